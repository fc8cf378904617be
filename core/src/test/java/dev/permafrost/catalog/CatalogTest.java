/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static dev.permafrost.testutil.Waits.await;
import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static dev.permafrost.testutil.Waits.awaitWaitingIn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotSource;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.IOSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Mounting, opening on demand, leases, the bounds on open readers, idle closing and unmounting. */
class CatalogTest {
  private static final Duration GUARD = Duration.ofMinutes(2);
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private final List<Directory> locals = new ArrayList<>();
  private final List<List<String>> expected = new ArrayList<>();
  private CountingBlobStore store;
  private SnapshotRepository repo;
  private SharedRegionCache cache;
  private SearchOracle oracle;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
    oracle = new SearchOracle(random, 6);
    for (int i = 0; i < 5; i++) {
      Directory local = FSDirectory.open(tmp.resolve("local-" + i));
      RandomIndexes.build(local, random, 800 + random.nextInt(800), 2);
      repo.createSnapshot("snap-" + i, local);
      try (DirectoryReader reader = DirectoryReader.open(local)) {
        expected.add(oracle.answers(new IndexSearcher(reader)));
      }
      locals.add(local);
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(1 << 20).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
    cache.close();
    for (Directory d : locals) {
      d.close();
    }
  }

  private Catalog catalog(Catalog.Builder b) throws IOException {
    Catalog c = b.build();
    toClose.add(c);
    return c;
  }

  private void assertRight(Catalog catalog, int i) throws IOException {
    try (Lease lease = catalog.acquire("idx-" + i)) {
      assertEquals(expected.get(i), oracle.answers(lease.searcher()), "seed " + seed + ": idx-" + i);
    }
  }

  /**
   * A source that checks at mount ({@link SnapshotSource#checkReadable}) is given a directory of the snapshot's files
   * read through the shared cache: a refusal fails the mount and leaves nothing mounted; a check that passes leaves
   * its bytes in the cache, so the first search opens with no request. A source that checks nothing costs the mount
   * nothing but its manifest.
   */
  @Test
  void aSourceChecksWhatItReadsAtMount() throws Exception {
    class Checking implements SnapshotSource {
      final int refuseAbove;
      int checked;

      Checking(int refuseAbove) {
        this.refuseAbove = refuseAbove;
      }

      @Override public dev.permafrost.blob.BlobStore store() { return repo.store(); }
      @Override public byte[] readManifestBytes(String s) throws IOException { return repo.readManifestBytes(s); }
      @Override public SnapshotManifest parseManifest(String s, byte[] b) throws SnapshotException {
        return repo.parseManifest(s, b);
      }
      @Override public void checkReadable(String snapshot, IOSupplier<Directory> directory) throws IOException {
        try (Directory dir = directory.get(); DirectoryReader reader = DirectoryReader.open(dir)) {
          checked++;
          if (reader.maxDoc() > refuseAbove) {
            throw new SnapshotException.UnsupportedFormat(snapshot + " has " + reader.maxDoc() + " documents", null);
          }
        }
      }
    }
    try (Catalog catalog = Catalog.builder(cache).build()) {
      Checking refusing = new Checking(0);
      SnapshotException.UnsupportedFormat refused = assertThrows(SnapshotException.UnsupportedFormat.class,
          () -> catalog.mount("refused", refusing, "snap-0"));
      assertTrue(refused.getMessage().startsWith("snap-0 has "), refused.getMessage());
      assertEquals(1, refusing.checked);
      assertTrue(catalog.list().isEmpty(), "a refused snapshot is not mounted");

      Checking accepting = new Checking(Integer.MAX_VALUE);
      catalog.mount("accepted", accepting, "snap-1");
      assertEquals(1, accepting.checked);
      awaitNoFetch(cache);
      long before = store.requests();
      try (Lease lease = catalog.acquire("accepted"); DirectoryReader local = DirectoryReader.open(locals.get(1))) {
        assertEquals(local.maxDoc(), lease.reader().maxDoc());
      }
      awaitNoFetch(cache);
      assertEquals(before, store.requests(), "the first open after a checked mount reads from the cache");

      long beforePlain = store.requests();
      catalog.mount("plain", repo, "snap-2");
      assertEquals(beforePlain + 1, store.requests(), "a repository that checks nothing reads its manifest alone");
    }
  }

  /**
   * Empties the cache, then opens mounted index {@code name} (a snapshot of {@code locals.get(local)}, which it is
   * checked against): the store requests the opening made.
   */
  private long requestsToOpenOnAnEmptyCache(Catalog catalog, String name, int local) throws Exception {
    awaitNoFetch(cache); // a fill in flight would outlive the clear
    cache.clear();
    long before = store.requests();
    try (Lease lease = catalog.acquire(name); DirectoryReader expected = DirectoryReader.open(locals.get(local))) {
      assertEquals(expected.maxDoc(), lease.reader().maxDoc());
    }
    awaitNoFetch(cache);
    return store.requests() - before;
  }

  /** {@link #repo} as a source that keeps its whole manifest with each mount ({@link SnapshotSource#checkAndKeep}). */
  private final class Keeping implements SnapshotSource {
    @Override public dev.permafrost.blob.BlobStore store() { return repo.store(); }
    @Override public byte[] readManifestBytes(String s) throws IOException { return repo.readManifestBytes(s); }
    @Override public SnapshotManifest parseManifest(String s, byte[] b) throws SnapshotException {
      return repo.parseManifest(s, b);
    }
    @Override public SnapshotManifest checkAndKeep(String snapshot, SnapshotManifest manifest,
        IOSupplier<Directory> directory) {
      return manifest;
    }
  }

  /**
   * A source that keeps its manifest with the mount ({@link SnapshotSource#checkAndKeep}) opens the index from it: on a
   * cache emptied after the mount, with no request at all (not even the manifest's, which a source that keeps nothing
   * reads again), and the mount reports what it keeps on the heap.
   */
  @Test
  void aSourceThatKeepsItsManifestOpensFromItWithNoRequest() throws Exception {
    try (Catalog catalog = Catalog.builder(cache).build()) {
      catalog.mount("kept", new Keeping(), "snap-1");
      catalog.mount("plain", repo, "snap-2");
      assertTrue(catalog.info("kept").keptHeapBytes() > 0, catalog.info("kept").toString());
      assertEquals(0, catalog.info("plain").keptHeapBytes());
      assertEquals(0, requestsToOpenOnAnEmptyCache(catalog, "kept", 1), "the kept manifest opened the index");
      long before = store.requests();
      try (Lease lease = catalog.acquire("plain")) {
        assertTrue(lease.reader().maxDoc() > 0);
      }
      awaitNoFetch(cache);
      assertTrue(store.requests() > before, "a source that keeps nothing reads its manifest again");
    }
  }

  /**
   * What mounts keep to open with no request is bounded for the whole catalog ({@code maxKeptHeap}): a mount past the
   * bound keeps nothing and opens its reader by reading its manifest again; an unmount, or a mount that fails after
   * its source kept something, gives the room back. (That a shard past the bound keeps the point ranges its source
   * recorded: {@code EngineTimeRangesTest}, over real engine snapshots.)
   */
  @Test
  void whatMountsKeepIsBoundedForTheCatalogAndAMountPastTheBoundKeepsNothing() throws Exception {
    Keeping keeping = new Keeping();
    long first = repo.readManifest("snap-1").heapBytes();
    long second = repo.readManifest("snap-2").heapBytes();
    long bound = first + second - 1; // room for either, not both
    try (Catalog catalog = Catalog.builder(cache).maxKeptHeap(bound + "b").build()) {
      catalog.mount("a", keeping, "snap-1");
      assertEquals(first, catalog.info("a").keptHeapBytes());
      catalog.mount("b", keeping, "snap-2");
      assertEquals(0, catalog.info("b").keptHeapBytes(), "past the bound: nothing kept");
      assertTrue(requestsToOpenOnAnEmptyCache(catalog, "b", 2) > 0, "it opened by reading its manifest again");

      catalog.unmount("a");
      catalog.mount("c", keeping, "snap-1");
      assertEquals(first, catalog.info("c").keptHeapBytes(), "the unmount gave its room back");
      assertThrows(IllegalArgumentException.class, () -> catalog.mount("c", keeping, "snap-1"));
      catalog.unmount("c");
      catalog.unmount("b");
      catalog.mount("d", keeping, "snap-2");
      assertEquals(second, catalog.info("d").keptHeapBytes(), "the failed mount kept no room");
    }
    assertThrows(IllegalArgumentException.class, () -> Catalog.builder(cache).maxKeptHeap("0b"));
  }

  @Test
  void aMountedIndexOpensOnDemandClosesWhenIdleAndReopensWithoutAStoreRequest() throws Exception {
    Catalog catalog = catalog(Catalog.builder(cache).idleTimeout(Duration.ofMillis(100)));
    store.reset();
    MountInfo info = catalog.mount("idx-0", repo, "snap-0");
    assertEquals(1, store.requests(), "mounting reads the manifest and nothing else");
    assertEquals(MountState.CLOSED, info.state());
    assertEquals(repo.readManifest("snap-0").info().numDocs(), info.numDocs());
    try (Lease lease = catalog.acquire("idx-0")) { // while leased, the idle time-out cannot close it
      assertEquals(expected.get(0), oracle.answers(lease.searcher()), "seed " + seed);
      assertEquals(MountState.OPEN, catalog.info("idx-0").state());
      assertTrue(catalog.info("idx-0").readerHeapBytes() > 0);
    }
    await("the idle reader to close after the idle time-out",
        () -> catalog.info("idx-0").state() == MountState.CLOSED && catalog.stats().readersClosedIdle() == 1);
    awaitNoFetch(cache); // a prefetch the search asked for counts for it, even if it reaches the store later
    store.reset();
    assertRight(catalog, 0);
    awaitNoFetch(cache);
    assertEquals(0, store.requests(), "seed " + seed + ": a recently used index reopens and searches without a request");
    assertEquals(2, catalog.stats().readerOpens());
  }

  @Test
  void afterARestartOfTheCacheTheSameSearchesMakeNoRequest() throws Exception {
    try (Catalog catalog = Catalog.builder(cache).build()) {
      for (int i = 0; i < locals.size(); i++) {
        catalog.mount("idx-" + i, repo, "snap-" + i);
        assertRight(catalog, i);
      }
    }
    cache.close(); // a process restart: the cache writes down what it holds
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(1 << 20).build();
    store.reset();
    try (Catalog restarted = Catalog.builder(cache).build()) {
      for (int i = 0; i < locals.size(); i++) {
        restarted.mount("idx-" + i, repo, "snap-" + i);
      }
      assertEquals(locals.size(), store.requests(), "mounting reads each manifest, nothing else");
      store.reset();
      for (int i = 0; i < locals.size(); i++) {
        assertRight(restarted, i);
      }
      awaitNoFetch(cache); // a prefetch the searches asked for counts for them, even if it reaches the store later
      assertEquals(0, store.requests(), "seed " + seed + ": the restarted cache serves the same searches");
      assertEquals(0, cache.stats().total().checksumMismatches());
    }
  }

  @Test
  void concurrentAcquiresOfAClosedIndexOpenItOnce() throws Exception {
    Catalog catalog = catalog(Catalog.builder(cache));
    catalog.mount("idx-1", repo, "snap-1");
    int threads = 8;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          go.await();
          assertRight(catalog, 1);
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, catalog.stats().readerOpens(), "one open for all");
  }

  @Test
  void anIndexIsCountedAsOpeningUntilItsReaderIsOpen() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean block = new AtomicBoolean();
    SnapshotRepository slow = SnapshotRepository.open(new FilterBlobStore(StorePolicy.DEFAULT.apply(store)) {
      @Override
      public InputStream read(String blob, long offset, long length) throws IOException {
        if (block.get()) {
          try {
            release.await();
          } catch (InterruptedException e) {
            throw new InterruptedIOException();
          }
        }
        return super.read(blob, offset, length);
      }
    });
    Catalog catalog = catalog(Catalog.builder(cache));
    catalog.mount("idx-2", slow, "snap-2");
    cache.clear();
    block.set(true);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> search = pool.submit(() -> {
        assertRight(catalog, 2);
        return null;
      });
      await("the acquire to be opening the reader, held up reading the manifest", () -> catalog.stats().opening() == 1);
      assertEquals(MountState.OPENING, catalog.info("idx-2").state());
      assertEquals(1, catalog.stats().open(), "an opening reader counts against the bound");
      release.countDown();
      search.get();
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, catalog.stats().opening());
    assertEquals(1, catalog.stats().open());
    assertEquals(MountState.OPEN, catalog.info("idx-2").state());
  }

  @Test
  void thePoolStaysUnderItsBoundClosingTheLeastRecentlyUsedIdleReader() throws Exception {
    Catalog catalog = catalog(Catalog.builder(cache).maxOpenReaders(2).acquireTimeout(Duration.ofMillis(300)));
    for (int i = 0; i < 5; i++) {
      catalog.mount("idx-" + i, repo, "snap-" + i);
    }
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 5; i++) {
        assertRight(catalog, i);
        assertTrue(catalog.stats().open() <= 2, "at most 2 open: " + catalog.stats());
      }
    }
    assertTrue(catalog.stats().readersClosedForRoom() >= 10, String.valueOf(catalog.stats()));
    assertEquals(MountState.OPEN, catalog.info("idx-4").state(), "the most recently used stays open");
    // every open reader leased: no room, a clear error, and room again once one is given back
    try (Lease a = catalog.acquire("idx-0"); Lease b = catalog.acquire("idx-1")) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> catalog.acquire("idx-2"));
      assertTrue(e.getMessage().contains("max_open_readers 2") && e.getMessage().contains("idx-2"), e.getMessage());
    }
    assertRight(catalog, 2);
  }

  @Test
  void aLeasedReaderIsNeverClosedAndUnmountWaitsForItsLeases() throws Exception {
    Catalog catalog = catalog(Catalog.builder(cache).idleTimeout(Duration.ofMillis(20)).unmountTimeout(Duration.ofMillis(300)));
    catalog.mount("idx-2", repo, "snap-2");
    catalog.mount("idx-3", repo, "snap-3");
    Lease lease = catalog.acquire("idx-2");
    // idx-3 is used after idx-2 was leased: once the idle time-out has closed idx-3, it has passed for idx-2 as well,
    // and every sweep that closes idx-3 looks at idx-2 too
    assertRight(catalog, 3);
    // (the pool counts a reader closed idle just after the reader is closed)
    await("the unleased reader to close when idle",
        () -> catalog.info("idx-3").state() == MountState.CLOSED && catalog.stats().readersClosedIdle() == 1);
    assertEquals(MountState.OPEN, catalog.info("idx-2").state(), "a leased reader stays open");
    assertEquals(expected.get(2), oracle.answers(lease.searcher()), "a leased reader stays open");
    catalog.unmount("idx-3");
    // a lease held throughout: the unmount's time-out passes however fast or slow the machine
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> catalog.unmount("idx-2"));
    assertTrue(e.getMessage().contains("idx-2") && e.getMessage().contains("time-out of 300 ms; it stays mounted"),
        e.getMessage());
    assertEquals(expected.get(2), oracle.answers(lease.searcher()), "a failed unmount leaves the search alone");

    Thread unmounter = new Thread(() -> {
      try {
        catalog.unmount("idx-2");
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    });
    Catalog slow = catalog(Catalog.builder(cache).unmountTimeout(Duration.ofSeconds(60)));
    slow.mount("idx-2", repo, "snap-2");
    Lease held = slow.acquire("idx-2");
    FutureTask<Void> unmounting = new FutureTask<>(() -> {
      slow.unmount("idx-2");
      return null;
    });
    Thread waiter = new Thread(unmounting, "unmount-waiter");
    waiter.start();
    awaitWaitingIn(waiter, MountedIndex.class, "unmount"); // "unmount waits for the lease"
    assertEquals(expected.get(2), oracle.answers(held.searcher()), "a search holding the lease goes on");
    held.close();
    assertTimeoutPreemptively(GUARD, () -> unmounting.get(), "the unmount ends once the lease is given back");
    assertThrows(IllegalArgumentException.class, () -> slow.acquire("idx-2"), "unmounted");
    lease.close();
    unmounter.start();
    unmounter.join(GUARD.toMillis());
    assertThrows(IllegalArgumentException.class, () -> catalog.info("idx-2"));
    assertEquals(0, catalog.stats().mounted());
  }

  @Test
  void unmountingFreesTheIndexRegionsAtOnce() throws Exception {
    Catalog catalog = catalog(Catalog.builder(cache));
    catalog.mount("idx-3", repo, "snap-3");
    assertRight(catalog, 3);
    awaitNoFetch(cache); // a region still filling for a prefetch is not the unmount's to free at once
    assertTrue(cache.stats().regionsInUse() > 0);
    catalog.unmount("idx-3");
    assertEquals(0, cache.stats().regionsInUse(), "unmounting freed the index's regions and its manifest");
    assertTrue(!cache.stats().perIndex().containsKey("idx-3"), "and its stats");
  }

  @Test
  void badNamesAndMissingSnapshotsAreNamed() throws Exception {
    Catalog catalog = catalog(Catalog.builder(cache));
    assertThrows(IllegalArgumentException.class, () -> catalog.mount("../x", repo, "snap-0"));
    catalog.mount("idx-0", repo, "snap-0");
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> catalog.mount("idx-0", repo, "snap-1"));
    assertTrue(twice.getMessage().contains("idx-0"), twice.getMessage());
    SnapshotException nf = assertThrows(SnapshotException.class,
        () -> catalog.mount("idx-9", repo, "no-such"));
    assertTrue(nf.getMessage().contains("no-such"), nf.getMessage());
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> catalog.acquire("nope"));
    assertTrue(missing.getMessage().contains("nope"), missing.getMessage());
  }
}
