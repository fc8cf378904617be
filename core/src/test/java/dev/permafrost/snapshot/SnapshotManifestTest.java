/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The manifest's bytes, format by format: what is written is what is read, and a format keeps what it can. */
class SnapshotManifestTest {
  private static final int CHUNK = ChunkTable.MIN_CHUNK_SIZE;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);

  private byte[] bytes(int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }

  private static ChunkTable tableOf(byte[] bytes) {
    ChunkTable.Builder b = new ChunkTable.Builder(bytes.length, CHUNK);
    b.update(bytes, 0, bytes.length);
    return b.build();
  }

  /** A blob entry of {@code bytes}: its table in the manifest if it has one and {@code tables}, else its CRC32C. */
  private static FileEntry blob(String name, byte[] bytes, boolean tables, List<FileEntry.WarmRange> warm) {
    boolean hasTable = ChunkTable.hasTable(bytes.length, CHUNK);
    return new FileEntry(name, bytes.length, TestManifests.luceneChecksum(bytes), "blobs/" + name, null, warm,
        hasTable ? 0 : ChunkTable.crc32c(bytes, 0, bytes.length), hasTable && tables ? tableOf(bytes) : null);
  }

  /** Every kind of file: kept whole (one empty), blobs empty, of one byte, of a chunk, a chunk and a byte, and more. */
  private Map<String, byte[]> contents() {
    return Map.of("a.whole", bytes(200), "b.whole-empty", new byte[0], "c.empty", new byte[0], "d.one", bytes(1),
        "e.chunk", bytes(CHUNK), "f.chunk-plus-one", bytes(CHUNK + 1), "g.chunks", bytes(3 * CHUNK),
        "h.many", bytes(70 * CHUNK + 5), "segments_1", bytes(40));
  }

  private SnapshotManifest manifest(Map<String, byte[]> contents, boolean tables) {
    List<FileEntry> files = new ArrayList<>();
    for (String name : contents.keySet().stream().sorted().toList()) {
      byte[] b = contents.get(name);
      if (name.contains("whole") || name.startsWith("segments")) {
        files.add(new FileEntry(name, b.length, TestManifests.luceneChecksum(b), null, b, List.of()));
      } else {
        List<FileEntry.WarmRange> warm = b.length > 100
            ? List.of(new FileEntry.WarmRange(0, java.util.Arrays.copyOf(b, 10))) : List.of();
        files.add(blob(name, b, tables, warm));
      }
    }
    SnapshotInfo info = new SnapshotInfo("kinds", Instant.ofEpochMilli(1234), "10.6.0", 1, 1, 10, 10, files.size(),
        contents.values().stream().mapToLong(b -> b.length).sum(), Map.of("k", "v"), Map.of());
    return new SnapshotManifest(info, "segments_1", CHUNK, files, tables);
  }

  @Test
  void everyKindOfFileRoundTripsInFormat3WithItsChunkTable() throws IOException {
    Map<String, byte[]> contents = contents();
    SnapshotManifest written = manifest(contents, true);
    byte[] bytes = written.toBytes();
    SnapshotManifest read = SnapshotManifest.fromBytes(bytes, "snapshots/kinds.manifest", "test");
    assertTrue(read.tablesInManifest());
    assertEquals(CHUNK, read.chunkSize());
    assertEquals(written.files().size(), read.files().size());
    for (FileEntry w : written.files()) {
      FileEntry r = read.file(w.name());
      byte[] content = contents.get(w.name());
      assertEquals(w.length(), r.length(), w.name());
      assertEquals(w.checksum(), r.checksum(), w.name());
      assertEquals(w.blobName(), r.blobName(), w.name());
      assertEquals(w.warmRanges(), r.warmRanges(), w.name());
      assertNull(read.chunkTableBlob(r), "format 3 has no table blobs: " + w.name());
      if (w.isKeptWhole()) {
        assertArrayEquals(content, r.wholeBytes(), w.name());
        assertNull(r.chunkTable(), w.name());
      } else if (content.length <= CHUNK) {
        assertNull(r.chunkTable(), "a file of at most one chunk has no table: " + w.name());
        assertEquals(ChunkTable.crc32c(content, 0, content.length), r.wholeCrc32c(), w.name());
      } else {
        ChunkTable t = r.chunkTable();
        assertNotNull(t, w.name());
        assertEquals((content.length + CHUNK - 1) / CHUNK, t.chunkCount(), w.name());
        for (int c = 0; c < t.chunkCount(); c++) {
          int from = c * CHUNK;
          assertEquals(ChunkTable.crc32c(content, from, Math.min(CHUNK, content.length - from)), t.checksum(c),
              w.name() + " chunk " + c);
        }
      }
    }
    assertArrayEquals(bytes, read.toBytes(), "written again, the same bytes");
  }

  @Test
  void format2KeepsTheTablesInBlobsAndCannotCarryThemInline() throws IOException {
    Map<String, byte[]> contents = contents();
    SnapshotManifest old = manifest(contents, false);
    SnapshotManifest read = SnapshotManifest.fromBytes(old.toBytes(), "snapshots/kinds.manifest", "test");
    assertFalse(read.tablesInManifest());
    for (FileEntry f : read.files()) {
      assertNull(f.chunkTable(), f.name());
      boolean hasTable = f.blobName() != null && f.length() > CHUNK;
      assertEquals(hasTable ? f.blobName() + ".crc32c-4k" : null, read.chunkTableBlob(f), f.name());
    }
    SnapshotManifest current = manifest(contents, true);
    assertThrows(IllegalArgumentException.class, () -> current.toBytes(SnapshotManifest.VERSION_CHUNK_TABLES));
    assertThrows(IllegalArgumentException.class, () -> old.toBytes(SnapshotManifest.VERSION_TABLES_IN_MANIFEST));
    // the tables are heap of an open index: 4 bytes a chunk, of files g (3 chunks), f (2) and h (71)
    assertTrue(current.heapBytes() - old.heapBytes() >= 4L * (3 + 2 + 71),
        current.heapBytes() + " vs " + old.heapBytes());
  }

  /**
   * Every bit, not a sample: a flip in a count the parser sizes a list by (a file's warm ranges) once asked for
   * gigabytes, an {@code OutOfMemoryError} in place of a refusal, in 1 run of this test in many when it flipped 200
   * random bits.
   */
  @Test
  void anyFlippedBitOfAFormat3ManifestIsRefused() throws IOException {
    byte[] bytes = manifest(contents(), true).toBytes();
    for (int at = 0; at < bytes.length; at++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] damaged = bytes.clone();
        damaged[at] ^= (byte) (1 << bit);
        int where = at;
        int which = bit;
        assertThrows(SnapshotException.class,
            () -> SnapshotManifest.fromBytes(damaged, "snapshots/kinds.manifest", "test"),
            () -> "bit " + which + " flipped at " + where + " of " + bytes.length);
      }
    }
  }
}
