/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache file on a disk that is really full (a small tmpfs that {@code scripts/servers/small-disk.sh} mounts, filled
 * up by this test): fills cannot write, and searches are served directly from the store, right, and do not fail.
 */
class SharedRegionCacheFullDiskTest {
  @TempDir Path tmp;

  private static Path smallDisk() {
    String disk = System.getenv("PERMAFROST_SMALL_DISK");
    assertNotNull(disk, "PERMAFROST_SMALL_DISK is not set: run the tests with scripts/test, or run"
        + " 'scripts/test-servers.sh start' and 'eval \"$(scripts/test-servers.sh env)\"' first");
    Path path = Path.of(disk);
    assertTrue(Files.isDirectory(path), "the small disk " + path + " is not mounted: run scripts/test-servers.sh start");
    return path;
  }

  /** Writes zeros to {@code file} until the disk has no space left; returns the bytes written. */
  private static long fillUp(Path file) throws IOException {
    long written = 0;
    ByteBuffer zeros = ByteBuffer.allocate(64 << 10);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (;;) {
        zeros.clear();
        written += ch.write(zeros);
      }
    } catch (IOException e) {
      assertTrue(e.getMessage() != null && e.getMessage().contains("No space left"), "expected a full disk: " + e);
    }
    return written;
  }

  @Test
  void whenTheCacheFileCannotBeWrittenReadsAreServedDirectlyFromTheStore() throws Exception {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    Random random = new Random(seed);
    Path disk = smallDisk();
    Path cacheDir = disk.resolve("cache-" + System.nanoTime());
    Path ballast = disk.resolve("ballast-" + System.nanoTime());
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, random, 3000, 2);
      SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo"), false));
      repo.createSnapshot("snap", local);
      SearchOracle oracle = new SearchOracle(random, 12);
      List<String> expected;
      try (DirectoryReader reader = DirectoryReader.open(local)) {
        expected = oracle.answers(new IndexSearcher(reader));
      }
      try (SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir).size(4 << 20).regionSize(64 << 10)
              .tailRegionSize(16 << 10).preallocate(false).build();
          BlobDirectory dir = BlobDirectory.open(repo, "snap", cache);
          DirectoryReader reader = DirectoryReader.open(dir)) {
        assertTrue(fillUp(ballast) > 0, "the small disk must have had room to fill");
        IndexSearcher searcher = new IndexSearcher(reader);
        assertEquals(expected, oracle.answers(searcher), "seed " + seed + ": searches on a full disk are right");
        CacheStats full = cache.stats();
        assertTrue(full.cacheWriteFailures() > 0, "seed " + seed + ": fills must have failed to write: " + full);
        assertTrue(full.total().directReads() > 0, "seed " + seed + ": and been served directly: " + full);
        // prefetches the searches started may still be failing to write in the background: they end, none stays
        long waitUntil = System.nanoTime() + 30_000_000_000L;
        while (cache.stats().fillsInFlight() > 0 && System.nanoTime() - waitUntil < 0) {
          Thread.sleep(10);
        }
        assertEquals(0, cache.stats().fillsInFlight(), "seed " + seed + ": every fill ends: " + cache.stats());

        Files.delete(ballast); // room again: the cache fills as usual
        cache.clear();
        assertEquals(expected, oracle.answers(searcher), "seed " + seed);
        CacheStats after = cache.stats();
        assertTrue(after.total().bytesFetched() > full.total().bytesFetched(), "fills write again: " + after);
        assertEquals(expected, oracle.answers(searcher), "seed " + seed + ": and what they wrote is right");
      } finally {
        Files.deleteIfExists(ballast);
      }
    } finally {
      if (Files.exists(cacheDir)) {
        try (var files = Files.list(cacheDir)) {
          for (Path f : files.toList()) {
            Files.delete(f);
          }
        }
        Files.delete(cacheDir);
      }
    }
  }
}
