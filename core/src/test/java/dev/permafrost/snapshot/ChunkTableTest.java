/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.apache.lucene.index.CorruptIndexException;
import org.junit.jupiter.api.Test;

/** The chunk table: built from bytes in any pieces, written, read back, and damage or mismatch detected. */
class ChunkTableTest {
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);

  @Test
  void aTableBuiltFromRandomPiecesHoldsEachChunksChecksumAndReadsBack() throws IOException {
    for (int trial = 0; trial < 50; trial++) {
      int chunkSize = ChunkTable.MIN_CHUNK_SIZE << random.nextInt(4);
      byte[] file = new byte[chunkSize + 1 + random.nextInt(10 * chunkSize)];
      random.nextBytes(file);
      ChunkTable.Builder builder = new ChunkTable.Builder(file.length, chunkSize);
      for (int at = 0; at < file.length; ) {
        int n = Math.min(file.length - at, random.nextInt(3 * chunkSize));
        builder.update(file, at, n);
        at += n;
      }
      ChunkTable table = builder.build();
      assertEquals((file.length + chunkSize - 1) / chunkSize, table.chunkCount(), "seed " + seed);
      for (int c = 0; c < table.chunkCount(); c++) {
        int from = c * chunkSize;
        int to = Math.min(file.length, from + chunkSize);
        assertEquals(ChunkTable.crc32c(file, from, to - from), table.checksum(c), "seed " + seed + " chunk " + c);
      }
      long checksum = random.nextLong() & 0xFFFFFFFFL;
      byte[] bytes = table.toBytes(checksum);
      ChunkTable read = ChunkTable.parse(bytes, "f", file.length, checksum, chunkSize, "test");
      for (int c = 0; c < table.chunkCount(); c++) {
        assertEquals(table.checksum(c), read.checksum(c));
      }
    }
  }

  @Test
  void aDamagedTruncatedOrMismatchedTableIsRejected() throws IOException {
    byte[] file = new byte[100_000];
    random.nextBytes(file);
    ChunkTable.Builder builder = new ChunkTable.Builder(file.length, 16 << 10);
    builder.update(file, 0, file.length);
    byte[] bytes = builder.build().toBytes(1234);
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= (byte) (1 + random.nextInt(255));
      assertThrows(CorruptIndexException.class, () -> ChunkTable.parse(bad, "f", file.length, 1234, 16 << 10, "t"), "flip at " + i);
    }
    CorruptIndexException e = assertThrows(CorruptIndexException.class,
        () -> ChunkTable.parse(Arrays.copyOf(bytes, bytes.length - 1), "f", file.length, 1234, 16 << 10, "store blob t"));
    assertTrue(e.getMessage().contains("store blob t"), e.getMessage());
    e = assertThrows(CorruptIndexException.class, () -> ChunkTable.parse(bytes, "f", file.length, 999, 16 << 10, "t"));
    assertTrue(e.getMessage().contains("not f"), "a table of another file: " + e.getMessage());
    assertThrows(CorruptIndexException.class, () -> ChunkTable.parse(bytes, "f", file.length + 1, 1234, 16 << 10, "t"));
    assertThrows(CorruptIndexException.class, () -> ChunkTable.parse(bytes, "f", file.length, 1234, 32 << 10, "t"));
  }

  @Test
  void onlyFilesOfMoreThanOneChunkHaveATable() {
    assertFalse(ChunkTable.hasTable(32 << 10, 32 << 10));
    assertTrue(ChunkTable.hasTable((32 << 10) + 1, 32 << 10));
    assertFalse(ChunkTable.hasTable(1 << 30, 0), "no chunk size: no tables (format 1)");
    assertEquals("blobs/x.crc32c-32k", ChunkTable.blobName("blobs/x", 32 << 10));
  }
}
