/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.snapshot.ChunkTable;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot that keeps its chunk tables in its manifest (format 3) is searched cold with no request for a table,
 * and every range is still verified; one that keeps them in blobs (format 2) still mounts and reads, loading them.
 */
class TablesInManifestTest {
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private Directory local;
  private FileSystemBlobStore fs;
  /** Every blob read through {@link #repo}, whole or by range, in order. */
  private final Queue<String> reads = new ConcurrentLinkedQueue<>();
  private SnapshotRepository repo;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    local = FSDirectory.open(tmp.resolve("local"));
    RandomIndexes.build(local, random, 5000, 3);
    fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    BlobStore recording = new FilterBlobStore(fs) {
      @Override
      public InputStream read(String blob) throws IOException {
        reads.add(blob);
        return super.read(blob);
      }

      @Override
      public InputStream read(String blob, long offset, long length) throws IOException {
        reads.add(blob);
        return super.read(blob, offset, length);
      }
    };
    repo = SnapshotRepository.open(recording);
    repo.createSnapshot("snap", local);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
    local.close();
  }

  private SharedRegionCache cache(String name) throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve(name)).size(4 << 20).regionSize(64 << 10)
        .tailRegionSize(16 << 10).fetchThreads(3).build();
    toClose.add(cache);
    return cache;
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    toClose.add(c);
    return c;
  }

  private List<String> tableReads() {
    return reads.stream().filter(b -> b.contains(".crc32c-")).toList();
  }

  private List<String> expectedAnswers(SearchOracle oracle) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      return oracle.answers(new IndexSearcher(reader));
    }
  }

  @Test
  void aColdSearchOfANewSnapshotRequestsNoChunkTableAndTheRepositoryHasNone() throws Exception {
    SnapshotManifest manifest = repo.readManifest("snap");
    assertTrue(manifest.tablesInManifest());
    int tables = 0;
    for (FileEntry f : manifest.files()) {
      assertNull(manifest.chunkTableBlob(f), "no table blob: " + f);
      if (f.blobName() != null && ChunkTable.hasTable(f.length(), manifest.chunkSize())) {
        assertNotNull(f.chunkTable(), "the manifest keeps the table of " + f);
        tables++;
      }
    }
    assertTrue(tables >= 3, "seed " + seed + ": the index must have files of more than one chunk: " + manifest.files());
    for (BlobMetadata b : fs.list("blobs/")) {
      assertFalse(b.name().contains(".crc32c-"), "the snapshot wrote a table blob: " + b.name());
    }

    SearchOracle oracle = new SearchOracle(random, 24);
    List<String> expected = expectedAnswers(oracle);
    SharedRegionCache cache = cache("cold");
    reads.clear();
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "snap", cache));
    DirectoryReader reader = closeLater(DirectoryReader.open(dir));
    assertEquals(expected, oracle.answers(new IndexSearcher(reader)), "seed " + seed);
    Waits.awaitNoFetch(cache);
    assertTrue(reads.stream().anyMatch(b -> b.startsWith("blobs/")), "the searches read data blobs: " + reads);
    assertEquals(List.of(), tableReads(), "seed " + seed + ": a table request");
    assertEquals(0, cache.stats().total().chunkTableFetches());
    assertTrue(cache.stats().total().fetches() > 0);
    assertEquals(cache.stats().total().fetches() + cache.stats().total().directReads(),
        cache.stats().total().storeRequests(), "every store request a fetch of data");
  }

  @Test
  void aByteFlippedInADataBlobFailsTheReadNamingBlobAndRangeAndIsNeverServed() throws Exception {
    SnapshotManifest manifest = repo.readManifest("snap");
    int chunkSize = manifest.chunkSize();
    FileEntry victim = manifest.files().stream().filter(f -> f.chunkTable() != null)
        .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    byte[] good = MountedIndexTest.readAll(local, victim.name());
    // a byte in the second chunk, away from the bytes the manifest keeps (header, footer, what an open reads)
    long at = chunkSize + chunkSize / 2;
    assertTrue(victim.length() > 2L * chunkSize || at < victim.length() - 16, victim.toString());
    assertTrue(victim.warmRanges().stream().noneMatch(r -> r.offset() <= at && at < r.end()),
        "seed " + seed + ": the damaged byte is kept in the manifest: " + victim);
    try (FileChannel ch = FileChannel.open(fs.root().resolve(victim.blobName()), StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) ~good[(int) at]}), at);
    }
    SharedRegionCache cache = cache("flipped");
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "snap", cache));
    reads.clear();
    try (IndexInput in = dir.openInput(victim.name(), IOContext.DEFAULT)) {
      in.seek(at - 10);
      byte[] bytes = new byte[20];
      CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> in.readBytes(bytes, 0, bytes.length));
      long chunkStart = at / chunkSize * chunkSize;
      String range = BlobStoreException.range(chunkStart, (int) Math.min(chunkSize, victim.length() - chunkStart));
      assertTrue(e.getMessage().contains("checksum mismatch in " + range + " of blob " + victim.blobName())
          && e.getMessage().contains(victim.name()) && e.getMessage().contains("snapshot 'snap'"), e.getMessage());
      // the chunk before it is good, and still served
      byte[] before = new byte[100];
      in.seek(chunkStart - 100);
      in.readBytes(before, 0, before.length);
      assertArrayEquals(java.util.Arrays.copyOfRange(good, (int) chunkStart - 100, (int) chunkStart), before);
      // asked again, the damaged chunk fails again: nothing of it was cached
      in.seek(at);
      assertThrows(CorruptIndexException.class, () -> in.readByte());
    }
    Waits.awaitNoFetch(cache);
    assertEquals(List.of(), tableReads(), "verified against the manifest's table, not a blob's");
    assertTrue(cache.stats().total().checksumMismatches() >= 2, "fetched once more before failing");
  }

  @Test
  void aSnapshotOfTheFormerFormatStillMountsAndSearchesLoadingItsTableBlobs() throws Exception {
    SnapshotManifest current = repo.readManifest("snap");
    SnapshotManifest old = TestManifests.rewriteAsFormat2(fs, "snap");
    SnapshotManifest read = repo.readManifest("snap");
    assertFalse(read.tablesInManifest());
    List<String> tableBlobs = new ArrayList<>();
    for (FileEntry f : read.files()) {
      assertNull(f.chunkTable(), f.toString());
      if (read.chunkTableBlob(f) != null) {
        tableBlobs.add(read.chunkTableBlob(f));
        assertTrue(fs.exists(read.chunkTableBlob(f)), f.toString());
      }
    }
    assertFalse(tableBlobs.isEmpty());
    assertTrue(current.heapBytes() >= read.heapBytes() + 4L * tableBlobs.size(),
        "the tables of the new format are counted in its heap: " + current.heapBytes() + " vs " + read.heapBytes());
    assertEquals(old.files().size(), read.files().size());

    SearchOracle oracle = new SearchOracle(random, 24);
    List<String> expected = expectedAnswers(oracle);
    SharedRegionCache cache = cache("old");
    reads.clear();
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "snap", cache));
    DirectoryReader reader = closeLater(DirectoryReader.open(dir));
    assertEquals(expected, oracle.answers(new IndexSearcher(reader)), "seed " + seed);
    Waits.awaitNoFetch(cache);
    List<String> loaded = tableReads();
    assertFalse(loaded.isEmpty(), "the tables are loaded from their blobs");
    assertTrue(tableBlobs.containsAll(loaded), loaded.toString());
    assertEquals(loaded.size(), loaded.stream().distinct().count(), "each table is loaded once: " + loaded);
    assertEquals(loaded.size(), cache.stats().total().chunkTableFetches());

    // deleting the snapshot deletes its table blobs with its file blobs: one rule for what a snapshot has
    repo.deleteSnapshot("snap");
    for (String table : tableBlobs) {
      assertFalse(fs.exists(table), table);
    }
  }

  @Test
  void aBlobReadByASnapshotOfEachFormatIsVerifiedAgainstTheManifestsTableWhileTheNewOneIsOpen() throws Exception {
    // the same blobs (content-addressed) in a snapshot of each format: the cache knows each blob once
    TestManifests.rewriteAsFormat2(fs, "snap");
    repo.createSnapshot("snap-new", local);
    assertTrue(repo.readManifest("snap-new").tablesInManifest());
    SharedRegionCache cache = cache("mixed");
    SearchOracle oracle = new SearchOracle(random, 12);
    List<String> expected = expectedAnswers(oracle);
    BlobDirectory fresh = closeLater(BlobDirectory.open(repo, "snap-new", cache));
    BlobDirectory old = closeLater(BlobDirectory.open(repo, "snap", cache));
    DirectoryReader freshReader = closeLater(DirectoryReader.open(fresh)); // opens (acquires) every file first
    DirectoryReader oldReader = closeLater(DirectoryReader.open(old));
    cache.clear();
    Waits.awaitNoFetch(cache);
    reads.clear();
    assertEquals(expected, oracle.answers(new IndexSearcher(oldReader)), "seed " + seed);
    cache.clear();
    assertEquals(expected, oracle.answers(new IndexSearcher(freshReader)), "seed " + seed);
    Waits.awaitNoFetch(cache);
    assertTrue(reads.stream().anyMatch(b -> b.startsWith("blobs/")), "the searches read data blobs: " + reads);
    assertEquals(List.of(), tableReads(), "the open new snapshot gave every table: the old one's reads need none");
  }

  @Test
  void filesOfEveryLengthAroundAChunkRoundTripThroughTheManifestAndTheCache() throws Exception {
    int chunk = TestManifests.CHUNK_SIZE;
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int length : new int[] {0, 1, 100, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk - 1, 5 * chunk + 7}) {
      byte[] bytes = new byte[length];
      random.nextBytes(bytes);
      files.put("f" + length + ".bin", bytes);
    }
    SnapshotManifest written = TestManifests.upload(fs, "lengths", "lengths-", files, 0, chunk, true);
    TestManifests.writeManifest(fs, written, 3);
    SnapshotManifest read = repo.readManifest("lengths");
    assertTrue(read.tablesInManifest());
    for (FileEntry f : read.files()) {
      byte[] bytes = files.get(f.name());
      assertEquals(bytes.length, f.length(), f.name());
      if (bytes.length == 0) {
        assertTrue(f.isKeptWhole(), "an empty file is kept whole: " + f);
        continue;
      }
      if (bytes.length <= chunk) {
        assertNull(f.chunkTable(), f.name());
        assertEquals(ChunkTable.crc32c(bytes, 0, bytes.length), f.wholeCrc32c(), f.name());
      } else {
        ChunkTable t = f.chunkTable();
        assertEquals((bytes.length + chunk - 1) / chunk, t.chunkCount(), f.name());
        for (int c = 0; c < t.chunkCount(); c++) {
          int from = c * chunk;
          assertEquals(ChunkTable.crc32c(bytes, from, Math.min(chunk, bytes.length - from)), t.checksum(c), f.name());
        }
      }
    }
    SharedRegionCache cache = cache("lengths");
    reads.clear();
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "lengths", cache));
    for (var e : files.entrySet()) {
      assertArrayEquals(e.getValue(), MountedIndexTest.readAll(dir, e.getKey()), e.getKey());
    }
    cache.clear();
    for (var e : files.entrySet()) { // read backwards by slices this time: fills start at chunks inside the file
      byte[] bytes = e.getValue();
      try (IndexInput in = dir.openInput(e.getKey(), IOContext.DEFAULT)) {
        for (long p = bytes.length - 1; p >= 0; p -= 997) {
          in.seek(p);
          assertEquals(bytes[(int) p], in.readByte(), e.getKey() + " at " + p);
        }
      }
    }
    Waits.awaitNoFetch(cache);
    assertEquals(List.of(), tableReads());
    assertEquals(0, cache.stats().total().chunkTableFetches());
  }
}
