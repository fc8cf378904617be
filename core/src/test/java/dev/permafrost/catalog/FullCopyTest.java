/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.lucene.codecs.CodecUtil;
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

/** Full-copy mounts: copied in the background, served locally once verified, kept across restarts, repaired. */
class FullCopyTest {
  private static final Duration GUARD = Duration.ofMinutes(2);
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private Directory local;
  private BlobStore store;
  private SnapshotRepository repo;
  private SharedRegionCache cache;
  private SearchOracle oracle;
  private List<String> expected;
  private Path copies;
  /** The blobs read since the last {@code blobsRead.clear()}, by name. */
  private final Set<String> blobsRead = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void setUp() throws IOException {
    local = FSDirectory.open(tmp.resolve("local"));
    RandomIndexes.build(local, random, 3000, 2);
    store = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    // outside the policy, so that a read is seen on the thread that asks for it
    repo = SnapshotRepository.open(new FilterBlobStore(StorePolicy.DEFAULT.apply(store)) {
      @Override
      public InputStream read(String blob) throws IOException {
        return super.read(seen(blob));
      }

      @Override
      public InputStream read(String blob, long offset, long length) throws IOException {
        return super.read(seen(blob), offset, length);
      }
    });
    repo.createSnapshot("snap", local);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(256 << 10).build();
    oracle = new SearchOracle(random, 8);
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      expected = oracle.answers(new IndexSearcher(reader));
    }
    copies = tmp.resolve("copies");
    manifestBlob();
  }

  @AfterEach
  void tearDown() throws IOException {
    cache.close();
    local.close();
  }

  /** While set, the full copy's reads of data blobs fail. */
  private volatile boolean copyFails;

  private String seen(String blob) throws IOException {
    blobsRead.add(blob);
    if (copyFails && blob.startsWith("blobs/") && Thread.currentThread().getName().startsWith("permafrost-full-copy")) {
      throw new IOException("injected: the full copy cannot read " + blob);
    }
    return blob;
  }

  private String manifestBlob;

  private String manifestBlob() throws IOException {
    if (manifestBlob == null) {
      manifestBlob = repo.readManifest("snap").ref().blobName();
    }
    return manifestBlob;
  }

  /** The blobs, leaving out chunk tables (read with the blob they describe). */
  private static Set<String> withoutChunkTables(Set<String> blobs) {
    return blobs.stream().filter(b -> !b.contains(".crc32c-")).collect(Collectors.toSet());
  }

  private Catalog catalog() throws IOException {
    return Catalog.builder(cache).fullCopyDirectory(copies).idleTimeout(Duration.ofMillis(50)).build();
  }

  private static void awaitCopied(Catalog catalog, String name) {
    assertTimeoutPreemptively(GUARD, () -> {
      while (catalog.info(name).localCopyProgress() < 1) {
        Thread.sleep(20);
      }
    }, "the full copy completes");
  }

  private void assertRight(Catalog catalog) throws IOException {
    try (Lease lease = catalog.acquire("idx")) {
      assertEquals(expected, oracle.answers(lease.searcher()), "seed " + seed);
    }
  }

  private static void awaitClosed(Catalog catalog) {
    assertTimeoutPreemptively(GUARD, () -> {
      while (catalog.info("idx").state() != MountState.CLOSED) {
        Thread.sleep(20);
      }
    });
  }

  @Test
  void aFullCopyVerifiesAgainstTheManifestsTablesOrAFormat2SnapshotsTableBlobs() throws Exception {
    for (boolean format2 : new boolean[] {false, true}) {
      if (format2) {
        TestManifests.rewriteAsFormat2(store, "snap");
      }
      blobsRead.clear();
      try (Catalog catalog = catalog()) {
        catalog.mount("idx", repo, "snap", MountMode.FULL_COPY);
        awaitCopied(catalog, "idx");
        Set<String> tables = blobsRead.stream().filter(b -> b.contains(".crc32c-")).collect(Collectors.toSet());
        if (format2) {
          assertFalse(tables.isEmpty(), "seed " + seed + ": the copy verifies against the table blobs: " + blobsRead);
        } else {
          assertEquals(Set.of(), tables, "seed " + seed + ": format 3 has its tables in the manifest");
        }
        cache.clear();
        assertRight(catalog);
        catalog.unmount("idx");
      }
    }
  }

  @Test
  void aFullCopyIsServedLocallyOnceCompleteAndSurvivesARestart() throws Exception {
    try (Catalog catalog = catalog()) {
      catalog.mount("idx", repo, "snap", MountMode.FULL_COPY);
      assertRight(catalog); // through the shared cache while the copy runs
      awaitCopied(catalog, "idx");
      awaitClosed(catalog);
      cache.clear();
      blobsRead.clear();
      assertRight(catalog);
      assertEquals(Set.of(manifestBlob()), blobsRead, "seed " + seed + ": only the manifest (the cache was cleared)"
          + " is read from the store; the files come from the copy");
    }
    blobsRead.clear();
    try (Catalog restarted = catalog()) {
      restarted.mount("idx", repo, "snap", MountMode.FULL_COPY);
      awaitCopied(restarted, "idx");
      assertEquals(Set.of(manifestBlob()), blobsRead, "after a restart the verified copy is reused: only the manifest"
          + " is read");
      blobsRead.clear();
      cache.clear();
      assertRight(restarted);
      assertEquals(Set.of(manifestBlob()), blobsRead, "seed " + seed + ": the files come from the reused copy");
      restarted.unmount("idx");
      assertFalse(Files.exists(copies.resolve("idx")), "unmounting removes the copy");
    }
  }

  @Test
  void aLocalFileDamagedWhileAwayIsDetectedAndFetchedAgain() throws Exception {
    try (Catalog catalog = catalog()) {
      catalog.mount("idx", repo, "snap", MountMode.FULL_COPY);
      awaitCopied(catalog, "idx");
    }
    SnapshotManifest manifest = repo.readManifest("snap");
    FileEntry victim = manifest.files().stream().filter(f -> f.blobName() != null)
        .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    Path copy = copies.resolve("idx").resolve(victim.name());
    try (FileChannel ch = FileChannel.open(copy, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, victim.length() / 2);
      ch.write(ByteBuffer.wrap(new byte[] {(byte) ~b.get(0)}), victim.length() / 2);
    }
    blobsRead.clear();
    try (Catalog restarted = catalog()) {
      restarted.mount("idx", repo, "snap", MountMode.FULL_COPY);
      awaitCopied(restarted, "idx");
      assertEquals(Set.of(manifestBlob(), victim.blobName()), withoutChunkTables(blobsRead), "only the damaged file"
          + " was fetched again");
      cache.clear();
      assertRight(restarted);
    }
    assertEquals(victim.length(), Files.size(copy));
    try (Directory dir = FSDirectory.open(copy.getParent());
        IndexInput in = dir.openInput(victim.name(), IOContext.READONCE)) {
      assertEquals(victim.checksum(), CodecUtil.checksumEntireFile(in), "the damaged file was replaced by a good one");
    }
  }

  @Test
  void filesThatFailToCopyAreServedThroughTheCacheAndCopiedLater() throws Exception {
    copyFails = true;
    try (Catalog catalog = Catalog.builder(cache).fullCopyDirectory(copies).fullCopyRetryDelay(Duration.ofMillis(100))
        .build()) {
      catalog.mount("idx", repo, "snap", MountMode.FULL_COPY);
      assertRight(catalog); // through the shared cache, whose reads do not fail
      assertEquals(0, catalog.info("idx").localCopyProgress(), "nothing could be copied");
      copyFails = false;
      awaitCopied(catalog, "idx"); // a later pass copies it all
      for (FileEntry f : repo.readManifest("snap").files()) {
        if (f.blobName() != null) {
          assertTrue(Files.exists(copies.resolve("idx").resolve(f.name())), f.name());
        }
      }
      assertRight(catalog);
    }
  }

  @Test
  void aRateLimitedCopyReportsItsProgress() throws Exception {
    Set<Double> seen = new TreeSet<>();
    try (Catalog catalog = Catalog.builder(cache).fullCopyDirectory(copies).fullCopyMaxBytesPerSec("256kb").build()) {
      catalog.mount("idx", repo, "snap", MountMode.FULL_COPY);
      assertTimeoutPreemptively(GUARD, () -> {
        double progress;
        while ((progress = catalog.info("idx").localCopyProgress()) < 1) {
          seen.add(progress);
          Thread.sleep(10);
        }
      });
    }
    assertTrue(seen.stream().anyMatch(p -> p > 0 && p < 1), "progress was seen between 0 and 1: " + seen);
  }

  @Test
  void concurrentMountsOfOneNameLeaveOneIntactCopy() throws Exception {
    TestManifests.writeCopy(store, repo.readManifest("snap"), "snap-copy"); // another snapshot, the same files
    int threads = 4;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<String> winners = Collections.synchronizedList(new ArrayList<>());
    try (Catalog catalog = catalog()) {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String snapshot = t % 2 == 0 ? "snap" : "snap-copy";
        MountMode mode = t < 3 ? MountMode.FULL_COPY : MountMode.SHARED_CACHE;
        futures.add(pool.submit(() -> {
          go.await();
          try {
            catalog.mount("idx", repo, snapshot, mode);
            winners.add(snapshot + " " + mode);
          } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("mounted already"), e.getMessage());
          }
          return null;
        }));
      }
      go.countDown();
      for (var f : futures) {
        f.get();
      }
      assertEquals(1, winners.size(), "one mount takes the name: " + winners);
      MountInfo info = catalog.info("idx");
      assertRight(catalog);
      if (info.mode() == MountMode.FULL_COPY) {
        awaitCopied(catalog, "idx");
        cache.clear();
        blobsRead.clear();
        awaitClosed(catalog);
        assertRight(catalog);
        assertEquals(Set.of(repo.readManifest(info.snapshot()).ref().blobName()), withoutChunkTables(blobsRead),
            "seed " + seed + ": the winner's copy is whole: only its manifest is read");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFullCopyNeedsADirectoryAndOneCatalogPerDirectory() throws Exception {
    try (Catalog plain = Catalog.builder(cache).build()) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> plain.mount("idx", repo, "snap", MountMode.FULL_COPY));
      assertTrue(e.getMessage().contains("fullCopyDirectory"), e.getMessage());
    }
    try (Catalog first = catalog()) {
      IllegalStateException e = assertThrows(IllegalStateException.class, this::catalog);
      assertTrue(e.getMessage().contains(copies.toAbsolutePath().toString()), e.getMessage());
    }
  }
}
