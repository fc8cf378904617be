/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FaultInjectingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged bytes, in flight or at rest, are always detected and never served. */
class VerifiedReadsTest {
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private Directory local;
  private FileSystemBlobStore fs;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    local = FSDirectory.open(tmp.resolve("local"));
    RandomIndexes.build(local, random, 5000, 3);
    fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    SnapshotRepository.open(fs).createSnapshot("snap", local);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
    local.close();
  }

  private SharedRegionCache cache(String name) throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve(name)).size(512 << 10).regionSize(64 << 10)
        .tailRegionSize(16 << 10).fetchThreads(3).build();
    toClose.add(cache);
    return cache;
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    toClose.add(c);
    return c;
  }

  /** The answers, or for each search that failed, the failure. */
  private static List<Object> run(SearchOracle oracle, IndexSearcher searcher) {
    List<Object> results = new ArrayList<>();
    for (int i = 0; i < oracle.size(); i++) {
      try {
        results.add(oracle.answer(searcher, i));
      } catch (IOException | RuntimeException e) {
        if (SearchOracle.ioFailure(e) == null) {
          throw new AssertionError("not a read failure (Lucene wraps some in a RuntimeException): " + e, e);
        }
        results.add(e);
      }
    }
    return results;
  }

  static CorruptIndexException corruption(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CorruptIndexException cie) {
        return cie;
      }
    }
    return null;
  }

  @Test
  void bytesDamagedInFlightAreAllDetectedAndNeverServed() throws Exception {
    FaultInjectingBlobStore flipping = new FaultInjectingBlobStore(fs, seed).targets(n -> n.startsWith("blobs/")).flipRate(0.3);
    SnapshotRepository repo = SnapshotRepository.open(flipping, StorePolicy.builder().retryDelay(Duration.ofMillis(1)).build());
    SharedRegionCache cache = cache("flip");
    SearchOracle oracle = new SearchOracle(random, 24);
    List<String> expected;
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      expected = oracle.answers(new IndexSearcher(reader));
    }
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "snap", cache));
    DirectoryReader reader = closeLater(DirectoryReader.open(dir));
    IndexSearcher searcher = new IndexSearcher(reader);
    int failed = 0;
    // rounds until the store has damaged enough responses to tell: how many requests a round makes depends on how
    // fills meet (adjacent ones share a request), so a fixed number of rounds may see too few
    for (int round = 0; round < 3 || (flipping.flips.get() <= 5 && round < 100); round++) {
      cache.clear();
      List<Object> got = run(oracle, searcher);
      for (int i = 0; i < got.size(); i++) {
        if (got.get(i) instanceof Throwable t) {
          CorruptIndexException c = corruption(t);
          assertNotNull(c, "seed " + seed + ": a damaged read fails with a CorruptIndexException, not " + t);
          assertTrue(c.getMessage().contains("checksum mismatch") && c.getMessage().contains("blobs/")
              && c.getMessage().contains("snapshot 'snap'") && c.getMessage().contains(fs.describe()), c.getMessage());
          failed++;
        } else {
          assertEquals(expected.get(i), got.get(i), "seed " + seed + ": a wrong answer to " + oracle.describe(i));
        }
      }
    }
    // a fill nobody waited for (a carry-on, a prefetch) may still be reading a damaged response: count once it is done
    Waits.awaitNoFetch(cache);
    assertTrue(flipping.flips.get() > 5, "seed " + seed + ": the store must have damaged responses");
    assertEquals(flipping.flips.get(), cache.stats().total().checksumMismatches(),
        "seed " + seed + ": every damaged response is detected (" + failed + " searches failed)");
    flipping.heal();
    assertEquals(expected, run(oracle, searcher), "seed " + seed + ": nothing damaged was cached");
    try (CheckIndex check = new CheckIndex(dir)) {
      assertTrue(check.checkIndex().clean);
    }
  }

  /** Flips 16 bytes in the middle of the blob of each file with one of the extensions. */
  private List<String> damageAtRest(SnapshotManifest manifest, String... extensions) throws IOException {
    List<String> damaged = new ArrayList<>();
    for (FileEntry f : manifest.files()) {
      if (f.blobName() == null || Arrays.stream(extensions).noneMatch(e -> f.name().endsWith("." + e))) {
        continue;
      }
      long at = f.length() / 2;
      try (FileChannel ch = FileChannel.open(fs.root().resolve(f.blobName()), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        ByteBuffer bytes = ByteBuffer.allocate(16);
        ch.read(bytes, at);
        for (int i = 0; i < 16; i++) {
          bytes.put(i, (byte) ~bytes.get(i));
        }
        bytes.rewind();
        ch.write(bytes, at);
      }
      damaged.add(f.name());
    }
    return damaged;
  }

  @Test
  void bytesDamagedAtRestFailReadsOfThemBeforeAndAfterTheCacheWasWarmedAndCleared() throws Exception {
    SnapshotRepository repo = SnapshotRepository.open(fs);
    SnapshotManifest manifest = repo.readManifest("snap");
    SharedRegionCache cache = cache("rest");
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "snap", cache));
    Map<String, byte[]> good = new LinkedHashMap<>();
    for (FileEntry f : manifest.files()) {
      good.put(f.name(), MountedIndexTest.readAll(local, f.name()));
    }
    // warm part of the cache with good bytes, then damage the store
    for (FileEntry f : manifest.files()) {
      if (f.length() < 200_000) {
        assertArrayEquals(good.get(f.name()), MountedIndexTest.readAll(dir, f.name()));
      }
    }
    List<String> damaged = damageAtRest(manifest, "doc", "pos", "tim", "tip", "dvd", "kdd", "fdt", "cfs");
    assertFalse(damaged.isEmpty(), "the index must have files to damage");
    for (int pass = 0; pass < 2; pass++) {
      if (pass == 1) {
        cache.clear(); // what was cached good is gone: the damage must now be found
      }
      for (FileEntry f : manifest.files()) {
        byte[] got;
        try {
          got = MountedIndexTest.readAll(dir, f.name());
        } catch (CorruptIndexException e) {
          assertTrue(damaged.contains(f.name()), "seed " + seed + ": " + f.name() + " is not damaged: " + e);
          assertTrue(e.getMessage().contains(f.name()) && e.getMessage().contains(f.blobName())
              && e.getMessage().contains("snapshot 'snap'") && e.getMessage().contains("bytes [")
              && e.getMessage().contains("recorded"), e.getMessage());
          continue;
        }
        assertArrayEquals(good.get(f.name()), got, "seed " + seed + ": pass " + pass + " served damaged bytes of " + f.name());
        if (pass == 1) {
          assertFalse(damaged.contains(f.name()), "seed " + seed + ": damaged " + f.name() + " was read without an error");
        }
      }
    }
  }

  @Test
  void searchesOverDamagedFilesFailNamingTheFileAndNeverAnswerWrongly() throws Exception {
    SnapshotRepository repo = SnapshotRepository.open(fs);
    List<String> damaged = damageAtRest(repo.readManifest("snap"), "doc", "pos", "tim", "dvd", "fdt", "cfs");
    SearchOracle oracle = new SearchOracle(random, 24);
    List<String> expected;
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      expected = oracle.answers(new IndexSearcher(reader));
    }
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "snap", cache("search")));
    DirectoryReader reader = closeLater(DirectoryReader.open(dir));
    List<Object> got = run(oracle, new IndexSearcher(reader));
    int failures = 0;
    for (int i = 0; i < got.size(); i++) {
      if (got.get(i) instanceof Throwable t) {
        CorruptIndexException c = corruption(t);
        assertNotNull(c, "seed " + seed + ": " + t);
        assertTrue(damaged.stream().anyMatch(c.getMessage()::contains), c.getMessage());
        failures++;
      } else {
        assertEquals(expected.get(i), got.get(i), "seed " + seed + ": a wrong answer to " + oracle.describe(i));
      }
    }
    assertTrue(failures > 0, "seed " + seed + ": the damaged files " + damaged + " must fail some search");
    try (CheckIndex check = new CheckIndex(dir)) {
      check.setInfoStream(null);
      assertFalse(check.checkIndex().clean, "CheckIndex sees the damage too");
    } catch (CorruptIndexException expectedToo) {
      // the same detection, earlier
    }
  }

  @Test
  void anOldSnapshotWithoutChunkChecksumsStillMountsAndReads() throws Exception {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      byte[] bytes = new byte[20_000 + random.nextInt(80_000)];
      random.nextBytes(bytes);
      TestManifests.stampChecksum(bytes); // as a Lucene file ends
      files.put("f" + i + ".bin", bytes);
    }
    SnapshotManifest manifest = TestManifests.upload(fs, "old", "old-", files, 0, 0);
    TestManifests.writeManifest(fs, manifest, 1);
    SnapshotRepository repo = SnapshotRepository.open(fs);
    SnapshotManifest read = repo.readManifest("old");
    assertEquals(0, read.chunkSize(), "format 1 records no chunk tables");
    BlobDirectory dir = closeLater(BlobDirectory.open(repo, "old", cache("old")));
    for (var e : files.entrySet()) {
      assertArrayEquals(e.getValue(), MountedIndexTest.readAll(dir, e.getKey()));
    }
    // a whole file fetched at once is still checked against the Lucene checksum
    byte[] small = new byte[3000];
    random.nextBytes(small);
    TestManifests.stampChecksum(small);
    SnapshotManifest second = TestManifests.upload(fs, "old2", "old2-", Map.of("s.bin", small), 0, 0);
    TestManifests.writeManifest(fs, second, 1);
    try (FileChannel ch = FileChannel.open(fs.root().resolve("blobs/old2-s.bin"), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) ~small[1500]}), 1500);
    }
    BlobDirectory dir2 = closeLater(BlobDirectory.open(repo, "old2", cache("old2")));
    try (IndexInput in = dir2.openInput("s.bin", IOContext.READONCE)) {
      CorruptIndexException e = Assertions.assertThrows(CorruptIndexException.class,
          () -> in.readBytes(new byte[3000], 0, 3000));
      assertTrue(e.getMessage().contains("Lucene checksum") && e.getMessage().contains("s.bin"), e.getMessage());
    }
  }
}
