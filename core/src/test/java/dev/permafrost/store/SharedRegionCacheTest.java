/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FileTypeHint;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.BitUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** The read path over files of random bytes: correctness under eviction and concurrency, single flight, failures. */
class SharedRegionCacheTest {
  @TempDir Path tmp;
  /**
   * How Lucene opens an index structure (read at points): a fill stops at its region's end, so that a missing range
   * is one fetch. A data file's fill goes on into the next region (a second fetch beside it).
   */
  private static final IOContext POINT_READS = IOContext.DEFAULT.withHints(FileTypeHint.INDEX);
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private FileSystemBlobStore fsStore;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    fsStore = FileSystemBlobStore.open(tmp.resolve("repo"), false);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private SharedRegionCache cache(long size, int regionSize, int tailRegionSize) throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache-" + toClose.size())).size(size)
        .regionSize(regionSize).tailRegionSize(tailRegionSize).fetchThreads(4).build();
    toClose.add(cache);
    return cache;
  }

  private Map<String, byte[]> randomFiles(int count, int maxLength) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      byte[] bytes = new byte[1 + random.nextInt(maxLength)];
      random.nextBytes(bytes);
      files.put("file-" + i + ".bin", bytes);
    }
    return files;
  }

  private BlobDirectory mount(BlobStore store, SharedRegionCache cache, Map<String, byte[]> files, String name) throws IOException {
    SnapshotManifest manifest = TestManifests.upload(store, name, name + "-", files, 32);
    BlobDirectory dir = BlobDirectory.open(manifest, store, cache, name);
    toClose.add(dir);
    return dir;
  }

  @Test
  void manyThreadsReadOverlappingRangesUnderConstantEviction() throws Exception {
    Map<String, byte[]> files = randomFiles(12, 300_000);
    SharedRegionCache cache = cache(96 << 10, 16 << 10, 4 << 10); // far smaller than the 12 files
    BlobDirectory dir = mount(fsStore, cache, files, "conc");
    List<String> names = new ArrayList<>(files.keySet());
    int threads = 8;
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long threadSeed = random.nextLong();
        futures.add(executor.submit(() -> {
          Random r = new Random(threadSeed);
          Map<String, IndexInput> inputs = new LinkedHashMap<>();
          for (int i = 0; i < 400; i++) {
            String name = names.get(r.nextInt(names.size()));
            byte[] expected = files.get(name);
            IndexInput master = inputs.computeIfAbsent(name, n -> {
              try {
                return dir.openInput(n, IOContext.DEFAULT);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
            IndexInput in = r.nextBoolean() ? master.clone() : master;
            int offset = r.nextInt(expected.length);
            int length = Math.min(expected.length - offset, r.nextInt(40_000));
            switch (r.nextInt(4)) {
              case 0 -> {
                in.seek(offset);
                byte[] got = new byte[length];
                in.readBytes(got, 0, length);
                assertArrayEquals(Arrays.copyOfRange(expected, offset, offset + length), got, name + "@" + offset);
              }
              case 1 -> {
                in.seek(offset);
                for (int k = 0; k < Math.min(length, 300); k++) {
                  assertEquals(expected[offset + k], in.readByte(), name + "@" + (offset + k));
                }
              }
              case 2 -> {
                RandomAccessInput ra = in.randomAccessSlice(0, expected.length);
                for (int k = 0; k < 50; k++) {
                  int p = r.nextInt(Math.max(1, expected.length - 8));
                  if (p + 8 <= expected.length) {
                    assertEquals(ByteBuffer.wrap(expected, p, 8).order(ByteOrder.LITTLE_ENDIAN).getLong(),
                        ra.readLong(p), name + "@" + p);
                  }
                }
              }
              default -> {
                int sliceLength = Math.min(expected.length - offset, 5000);
                IndexInput slice = in.slice("s", offset, sliceLength);
                int longs = sliceLength / 8;
                long[] got = new long[longs];
                slice.readLongs(got, 0, longs);
                for (int k = 0; k < longs; k++) {
                  assertEquals(ByteBuffer.wrap(expected, offset + k * 8, 8).order(ByteOrder.LITTLE_ENDIAN).getLong(),
                      got[k], name + " long " + k);
                }
              }
            }
          }
          for (IndexInput in : inputs.values()) {
            in.close();
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      executor.shutdownNow();
    }
    CacheStats stats = cache.stats();
    assertTrue(stats.evictions() > 0, "seed " + seed + ": expected evictions, got " + stats);
    assertEquals(cache.sizeInBytes(), Files.size(cache.file()));
  }

  /** A store whose range reads wait at a gate, and which counts them. */
  private static final class GatedStore extends CountingBlobStoreWrapper {
    final CountDownLatch gate = new CountDownLatch(1);
    final AtomicInteger failuresLeft = new AtomicInteger();
    /** Which blobs wait for the gate (their chunk tables too). */
    volatile Predicate<String> gated = name -> true;

    GatedStore(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String blobName, long offset, long length) throws IOException {
      rangeReads.incrementAndGet();
      awaitGate(blobName);
      if (failuresLeft.getAndDecrement() > 0) {
        throw new IOException("injected failure reading " + blobName);
      }
      return in.read(blobName, offset, length);
    }

    @Override
    public InputStream read(String blobName) throws IOException {
      awaitGate(blobName); // chunk tables too: nothing of a fill is in before the gate opens
      return in.read(blobName);
    }

    private void awaitGate(String blobName) throws IOException {
      if (gated.test(blobName)) {
        try {
          gate.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          throw new InterruptedIOException();
        }
      }
    }
  }

  /** Counts range reads; other calls pass through. */
  private static class CountingBlobStoreWrapper extends FilterBlobStore {
    final AtomicInteger rangeReads = new AtomicInteger();

    CountingBlobStoreWrapper(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String blobName, long offset, long length) throws IOException {
      rangeReads.incrementAndGet();
      return in.read(blobName, offset, length);
    }
  }

  /** Waits until {@code readers} readers wait for the fetch of the region of {@code file} holding {@code position}. */
  private static void awaitWaiting(BlobDirectory dir, String file, long position, int readers) throws InterruptedException {
    Waits.await(readers + " readers waiting for " + file + " at " + position, () -> {
      IndexFile f = dir.openedFile(file);
      Slot slot = f == null ? null : f.cachedBlob.slot(f.cachedBlob.regionIndex(position));
      return slot != null && slot.waitingReaders() == readers;
    });
  }

  @Test
  void concurrentReadersOfOneMissingRangeShareOneFetch() throws Exception {
    Map<String, byte[]> files = Map.of("one.bin", bytes(200_000));
    GatedStore store = new GatedStore(fsStore);
    SharedRegionCache cache = cache(1 << 20, 64 << 10, 4 << 10);
    BlobDirectory dir = mount(store, cache, files, "single");
    byte[] expected = files.get("one.bin");
    int readers = 8;
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    IndexInput master = dir.openInput("one.bin", POINT_READS);
    for (int i = 0; i < readers; i++) {
      IndexInput in = master.clone();
      Thread t = new Thread(() -> {
        try {
          in.seek(1000);
          byte[] got = new byte[500];
          in.readBytes(got, 0, got.length);
          assertArrayEquals(Arrays.copyOfRange(expected, 1000, 1500), got);
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      threads.add(t);
      t.start();
    }
    awaitWaiting(dir, "one.bin", 1000, readers);
    store.gate.countDown();
    for (Thread t : threads) {
      t.join(60_000);
    }
    assertEquals(List.of(), failures);
    assertEquals(1, store.rangeReads.get(), "seed " + seed + ": " + readers + " readers of one missing range must share one fetch");
    CacheStats.Counts counts = dir.stats();
    assertEquals(1, counts.fetches());
    assertEquals(readers, counts.misses());
    master.close();
  }

  private byte[] bytes(int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }

  @Test
  void aFailedFetchWakesEveryWaiterWithTheErrorAndTheNextReadRetries() throws Exception {
    Map<String, byte[]> files = Map.of("f.bin", bytes(100_000));
    GatedStore store = new GatedStore(fsStore);
    store.failuresLeft.set(1);
    SharedRegionCache cache = cache(1 << 20, 64 << 10, 4 << 10);
    BlobDirectory dir = mount(store, cache, files, "fail");
    IndexInput master = dir.openInput("f.bin", POINT_READS);
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      IndexInput in = master.clone();
      Thread t = new Thread(() -> {
        try {
          in.seek(50_000);
          in.readByte();
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      threads.add(t);
      t.start();
    }
    awaitWaiting(dir, "f.bin", 50_000, 4);
    store.gate.countDown();
    for (Thread t : threads) {
      t.join(60_000);
    }
    assertEquals(4, failures.size(), "every waiter sees the failure: " + failures);
    for (Throwable e : failures) {
      assertTrue(e instanceof IOException && e.getMessage().contains("injected failure") && e.getMessage().contains("fail-f.bin"),
          String.valueOf(e));
    }
    master.seek(50_000);
    assertEquals(files.get("f.bin")[50_000], master.readByte(), "the next read fetches again and succeeds");
    assertEquals(2, store.rangeReads.get());
  }

  /** A hot file of two 16 KiB regions ("hot.bin") and six cold ones of four ("cold-i.bin"). */
  private Map<String, byte[]> hotAndColdFiles() {
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("hot.bin", bytes(32 << 10));
    for (int i = 0; i < 6; i++) {
      files.put("cold-" + i + ".bin", bytes(64 << 10));
    }
    return files;
  }

  /** 4 full regions of 16 KiB: room for the hot file and little else. */
  private SharedRegionCache fourRegions(String name) throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve(name)).size(64 << 10).regionSize(16 << 10)
        .build();
    toClose.add(cache);
    return cache;
  }

  /** Reads "hot.bin" whole {@code rounds} times, each through a new clone, as each query would. */
  private static void readByClones(BlobDirectory dir, byte[] hot, int rounds) throws IOException {
    try (IndexInput in = dir.openInput("hot.bin", IOContext.DEFAULT)) {
      for (int round = 0; round < rounds; round++) {
        IndexInput c = in.clone();
        byte[] got = new byte[hot.length];
        c.readBytes(got, 0, got.length);
        assertArrayEquals(hot, got);
      }
    }
  }

  private static void readColdFiles(BlobDirectory dir, Map<String, byte[]> files, int passes) throws IOException {
    for (int pass = 0; pass < passes; pass++) {
      for (int i = 0; i < 6; i++) {
        assertArrayEquals(files.get("cold-" + i + ".bin"), MountedIndexTest.readAll(dir, "cold-" + i + ".bin"));
      }
    }
  }

  @Test
  void aScanOverColdDataDoesNotFlushRegionsReadAgainAndAgain() throws IOException {
    Map<String, byte[]> files = hotAndColdFiles();
    byte[] hot = files.get("hot.bin");
    CountingBlobStoreWrapper store = new CountingBlobStoreWrapper(fsStore);
    SharedRegionCache cache = fourRegions("scan");
    BlobDirectory dir = mount(store, cache, files, "scan");
    readByClones(dir, hot, 20);
    readColdFiles(dir, files, 1);
    int before = store.rangeReads.get();
    try (IndexInput in = dir.openInput("hot.bin", IOContext.DEFAULT)) {
      byte[] got = new byte[hot.length];
      in.readBytes(got, 0, got.length);
      assertArrayEquals(hot, got);
    }
    assertEquals(before, store.rangeReads.get(), "seed " + seed + ": the hot file must still be cached after the scan; " + cache.stats());
    assertTrue(cache.stats().total().directReads() > 0, "the scan is served directly once the cache is full of hotter data");
  }

  @Test
  void aScanTheCacheDoesNotAdmitReadsAGrowingStretchARequestNotARegion() throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("hot.bin", bytes(32 << 10));
    byte[] cold = bytes(1 << 20); // 64 regions of 16 KiB
    files.put("cold.bin", cold);
    CountingBlobStoreWrapper store = new CountingBlobStoreWrapper(fsStore);
    SharedRegionCache cache = fourRegions("direct");
    BlobDirectory dir = mount(store, cache, files, "direct");
    readByClones(dir, files.get("hot.bin"), 20); // the cache is full of what is read again and again
    int before = store.rangeReads.get();
    long directBefore = cache.stats().total().directReads();
    byte[] got = new byte[cold.length];
    try (IndexInput in = dir.openInput("cold.bin", IOContext.DEFAULT)) {
      for (int at = 0; at < got.length; ) { // small reads: the input moves on region by region
        int n = Math.min(got.length - at, 1 + random.nextInt(8 << 10));
        in.readBytes(got, at, n);
        at += n;
      }
    }
    assertArrayEquals(cold, got, "seed " + seed);
    assertTrue(cache.stats().total().directReads() > directBefore, "the scan is read directly from the store");
    int requests = store.rangeReads.get() - before;
    // fills grow from 128 KiB, doubling as the scan reads on: 128 + 256 + 512 KiB cover the file; region by region it
    // would be 64 requests
    System.out.println("DEBUGREQ " + requests);
    assertTrue(requests <= 40, "seed " + seed + ": a refused scan took " + requests + " requests; " + cache.stats());
  }

  /**
   * A full cache of regions worth nothing (a search's prefetched columns, never read, its holds released): a reader's
   * fill cut short by its region's end carries on into the next regions, which are admitted with it, counted with the
   * move the reader is about to make; so reading on across the boundary costs no second request. Before, a region no
   * one had read yet was worth nothing against the full cache either, and each region waited for its reader to arrive:
   * a scan through admitted regions fetched one region a round trip. Every window the pool samples is worth nothing
   * here but the 9 being filled, of 64, so which it samples does not matter (all of its 24 samples would have to be
   * among those 9).
   */
  @Test
  void aFillCarriedOnThroughAFullCacheOfNoWorthIsAdmittedWithTheReadersRegion() throws Exception {
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("columns.bin", bytes(1 << 20)); // 64 regions: the whole cache
    byte[] scanned = bytes(512 << 10);
    files.put("scan.bin", scanned);
    CountingBlobStoreWrapper store = new CountingBlobStoreWrapper(fsStore);
    // the fill carries on through 8 regions of 64: every window the pool samples is free to take but those
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("carry")).size(1 << 20)
        .regionSize(16 << 10).build();
    toClose.add(cache);
    BlobDirectory dir = mount(store, cache, files, "carry");
    ReadCost work = new ReadCost();
    try (IndexInput columns = dir.openInput("columns.bin", IOContext.DEFAULT)) {
      try (ReadCost.Scope scope = ReadCost.attach(work)) {
        columns.prefetch(0, columns.length());
      }
      Waits.awaitNoFetch(cache);
      work.settle(); // the search ended: its holds are released
    }
    assertEquals(64, cache.stats().regionsInUse(), "the columns fill the cache: " + cache.stats());
    int before = store.rangeReads.get();
    try (IndexInput in = dir.openInput("scan.bin", IOContext.DEFAULT)) {
      int boundary = 5 * (16 << 10);
      byte[] got = new byte[1000];
      in.seek(boundary - 100); // the last bytes of a region: the fill is cut at its end and carried on
      in.readBytes(got, 0, 100);
      Waits.awaitNoFetch(cache);
      assertEquals(before + 1, store.rangeReads.get(), "one request: " + cache.stats());
      in.readBytes(got, 100, got.length - 100); // on across the boundary
      assertArrayEquals(Arrays.copyOfRange(scanned, boundary - 100, boundary + 900), got, "seed " + seed);
    }
    assertEquals(before + 1, store.rangeReads.get(),
        "seed " + seed + ": the next region came with the first, admitted; " + cache.stats());
  }

  @Test
  void aFileReadAgainAndAgainByShortLivedClonesOutweighsDataReadTwice() throws IOException {
    Map<String, byte[]> files = hotAndColdFiles();
    byte[] hot = files.get("hot.bin");
    CountingBlobStoreWrapper store = new CountingBlobStoreWrapper(fsStore);
    SharedRegionCache cache = fourRegions("clones");
    BlobDirectory dir = mount(store, cache, files, "clones");
    readByClones(dir, hot, 160); // each clone: two moves between cached regions, then dropped
    readColdFiles(dir, files, 2); // used twice: more than once, far less than the hot file
    int before = store.rangeReads.get();
    assertArrayEquals(hot, MountedIndexTest.readAll(dir, "hot.bin"));
    assertEquals(before, store.rangeReads.get(), "seed " + seed + ": the clones' moves counted as uses; " + cache.stats());
  }

  /** Reads every file of {@code names} whole, {@code passes} times or until a pass makes no range read; returns the passes made. */
  private static int readUntilCached(BlobDirectory dir, Map<String, byte[]> files, Iterable<String> names,
      CountingBlobStoreWrapper store, int passes) throws IOException {
    for (int pass = 1; pass <= passes; pass++) {
      int before = store.rangeReads.get();
      for (String name : names) {
        assertArrayEquals(files.get(name), MountedIndexTest.readAll(dir, name), name);
      }
      if (store.rangeReads.get() == before) {
        return pass;
      }
    }
    return passes + 1;
  }

  @Test
  void smallAndLargeRegionsTakeSpaceFromEachOtherAsTheirUseChanges() throws IOException {
    // 4 full regions of 16 KiB, tails of 4 KiB: one large file fills the cache, so do 16 small ones
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("large.bin", bytes(64 << 10));
    List<String> small = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      files.put("small-" + i + ".bin", bytes(3000 + random.nextInt(1000)));
      small.add("small-" + i + ".bin");
    }
    CountingBlobStoreWrapper store = new CountingBlobStoreWrapper(fsStore);
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("lend")).size(64 << 10).regionSize(16 << 10)
        .tailRegionSize(4 << 10).build();
    toClose.add(cache);
    BlobDirectory dir = mount(store, cache, files, "lend");
    List<String> large = List.of("large.bin");
    assertTrue(readUntilCached(dir, files, large, store, 5) <= 2, "seed " + seed + ": the large file fits at once");
    int before = store.rangeReads.get();
    for (String name : small) { // read once: a scan, colder than the large file
      assertArrayEquals(files.get(name), MountedIndexTest.readAll(dir, name));
    }
    assertTrue(store.rangeReads.get() > before);
    assertEquals(1, readUntilCached(dir, files, large, store, 1), "seed " + seed + ": a scan of small files did not push it out");
    int passes = readUntilCached(dir, files, small, store, 60);
    assertTrue(passes <= 60, "seed " + seed + ": small files read again and again take the large file's space; " + cache.stats());
    assertTrue(cache.stats().regions() > 4, "full regions were cut into small slots: " + cache.stats());
    passes = readUntilCached(dir, files, large, store, 60);
    assertTrue(passes <= 60, "seed " + seed + ": and the large file takes it back when it is read more; " + cache.stats());
    assertTrue(cache.pool.checkInvariants());
    assertFalse(cache.pool.thrashWarned(), "a layout problem, not a cache too small");
  }

  @Test
  void aCacheTooSmallForWhatIsReadAgainAndAgainSaysSo() throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int i = 0; i < 8; i++) {
      files.put("f-" + i + ".bin", bytes(16 << 10));
    }
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("thrash")).size(32 << 10).regionSize(16 << 10)
        .build();
    toClose.add(cache);
    BlobDirectory dir = mount(fsStore, cache, files, "thrash");
    List<IndexInput> inputs = new ArrayList<>();
    for (String name : files.keySet()) {
      inputs.add(dir.openInput(name, IOContext.DEFAULT));
    }
    for (int pass = 0; pass < 200 && !cache.pool.thrashWarned(); pass++) {
      for (int i = 0; i < inputs.size(); i++) {
        IndexInput in = inputs.get(i).clone();
        int p = random.nextInt(16 << 10);
        in.seek(p);
        assertEquals(files.get("f-" + i + ".bin")[p], in.readByte());
      }
    }
    assertTrue(cache.pool.thrashWarned(), "seed " + seed + ": eight hot regions in a cache of two must warn; " + cache.stats());
    for (IndexInput in : inputs) {
      in.close();
    }
  }

  @Test
  void whenNothingCanBeEvictedReadsAreServedDirectlyFromTheStore() throws Exception {
    Map<String, byte[]> files = Map.of("a.bin", bytes(40_000), "b.bin", bytes(40_000));
    GatedStore store = new GatedStore(fsStore);
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("full")).size(16 << 10).regionSize(16 << 10)
        .build();
    toClose.add(cache);
    store.gated = name -> name.contains("a.bin"); // a's fill waits at the gate; b's reads do not
    BlobDirectory dir = mount(store, cache, files, "busy");
    IndexInput a = dir.openInput("a.bin", IOContext.DEFAULT);
    Thread filling = new Thread(() -> {
      try {
        a.seek(100);
        a.readByte();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    filling.start();
    awaitWaiting(dir, "a.bin", 100, 1);
    // the only region is being filled: b must be read directly, without waiting for a's fill
    try (IndexInput b = dir.openInput("b.bin", IOContext.DEFAULT)) {
      b.seek(30_000);
      assertEquals(files.get("b.bin")[30_000], b.readByte());
    }
    store.gate.countDown();
    filling.join(60_000);
    assertTrue(dir.stats().directReads() >= 1, String.valueOf(dir.stats()));
    a.close();
  }

  @Test
  void prefetchFillsInTheBackgroundAndReturnsAtOnce() throws Exception {
    Map<String, byte[]> files = Map.of("p.bin", bytes(200_000));
    GatedStore store = new GatedStore(fsStore);
    SharedRegionCache cache = cache(1 << 20, 64 << 10, 4 << 10);
    BlobDirectory dir = mount(store, cache, files, "prefetch");
    try (IndexInput in = dir.openInput("p.bin", IOContext.DEFAULT)) {
      in.prefetch(10_000, 50_000); // the store is gated: this must not block
      assertEquals(2, cache.stats().fillsInFlight(), "the fill and its chunk table, both held at the gate");
      store.gate.countDown();
      awaitNoFetch(cache);
      in.seek(20_000);
      byte[] got = new byte[30_000];
      in.readBytes(got, 0, got.length);
      assertArrayEquals(Arrays.copyOfRange(files.get("p.bin"), 20_000, 50_000), got);
      assertEquals(1, store.rangeReads.get(), "the read is served by the prefetched range");
      assertEquals(0, dir.stats().misses());
    }
  }

  @Test
  void aReadRunningPastItsRegionsEndFetchesTheNextRegionInTheSameRoundTrip() throws Exception {
    byte[] bytes = bytes(600_000);
    CountingBlobStore store = new CountingBlobStore(fsStore);
    BlobDirectory dir = mount(store, cache(4 << 20, 64 << 10, 4 << 10), Map.of("d.bin", bytes), "runs");
    int[] waves = new int[2];
    for (int run = 0; run < 2; run++) {
      // a data file (read in runs) and an index structure (read at points); each run reads 40 KB from 5.5 KB before
      // the end of a 64 KiB region, far from what the other run fetched
      IOContext context = run == 0 ? IOContext.DEFAULT : POINT_READS;
      int from = run * (384 << 10) + 60_000;
      byte[] got = new byte[40_000];
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope s = ReadCost.attach(cost); IndexInput in = dir.openInput("d.bin", context)) {
        in.seek(from);
        in.readBytes(got, 0, got.length);
      }
      assertArrayEquals(Arrays.copyOfRange(bytes, from, from + got.length), got, "run " + run + ", seed " + seed);
      waves[run] = cost.waves();
    }
    assertEquals(1, waves[0], "the fill cut short by the region's end went on into the next region beside it");
    assertEquals(2, waves[1], "an index structure's fill stops at its region's end; the next region is a second wave");
  }

  @Test
  void aPrefetchOfAdjacentRegionsIsOneRequestAndNoByteIsFetchedTwice() throws Exception {
    int regionSize = TestManifests.CHUNK_SIZE * 2;
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int i = 0; i < 6; i++) {
      files.put("g" + i + ".bin", bytes(regionSize * 20 + random.nextInt(regionSize)));
    }
    FetchOnceTest.RecordingBlobStore store = new FetchOnceTest.RecordingBlobStore(fsStore);
    SharedRegionCache cache = cache(16 << 20, regionSize, regionSize);
    BlobDirectory dir = mount(store, cache, files, "grouped");
    for (Map.Entry<String, byte[]> e : files.entrySet()) {
      byte[] want = e.getValue();
      try (IndexInput in = dir.openInput(e.getKey(), IOContext.DEFAULT)) {
        // a first range over at least three regions, then a wider one around it: each run of missing regions is one
        // request, and what the first brought is not fetched again
        int from = regionSize * 3 + random.nextInt(regionSize * 2);
        int length = regionSize * 3 + random.nextInt(regionSize * 6);
        for (int round = 0; round < 2; round++) {
          store.reads.clear();
          in.prefetch(from, length);
          awaitFills(cache);
          List<long[]> reads = new ArrayList<>(store.reads.values().stream().flatMap(List::stream).toList());
          assertEquals(round == 0 ? 1 : 2, reads.size(), e.getKey() + " round " + round + ": one request for each run of"
              + " missing regions (before it, after it), seed " + seed);
          byte[] got = new byte[length];
          in.seek(from);
          in.readBytes(got, 0, length);
          assertArrayEquals(Arrays.copyOfRange(want, from, from + length), got, e.getKey() + ", seed " + seed);
          assertEquals(reads.size(), store.reads.values().stream().mapToInt(List::size).sum(),
              "every byte read was prefetched, seed " + seed);
          from = Math.max(0, from - regionSize - random.nextInt(regionSize));
          length = Math.min(want.length - from, length + 3 * regionSize);
        }
      }
    }
  }

  @Test
  void theDefaultRegionIsSmallAgainstTheCache() throws Exception {
    assertEquals(32 << 10, CacheSizing.defaultRegionSize(55L << 20), "a 55 MB cache: 1,760 regions of 32 KiB");
    assertEquals(128 << 10, CacheSizing.defaultRegionSize(2_100L << 20), "2.1 GB: 16,800 of 128 KiB");
    assertEquals(512 << 10, CacheSizing.defaultRegionSize(10_500L << 20), "10.5 GB: 20,000 of 512 KiB");
    assertEquals(16 << 20, CacheSizing.defaultRegionSize(1L << 40), "1 TiB: 65,536 of 16 MiB, no larger");
    assertEquals(32 << 10, CacheSizing.defaultRegionSize(1 << 20), "never below a chunk, 32 KiB");
    for (long size : new long[] {64L << 20, 256L << 20}) {
      // built without a regionSize, or with 0: the default for its size (larger sizes are the function's, above,
      // without a cache file of gigabytes)
      try (SharedRegionCache c = SharedRegionCache.builder().path(tmp.resolve("default-" + size)).size(size).build();
          SharedRegionCache zero = SharedRegionCache.builder().path(tmp.resolve("zero-" + size)).size(size)
              .regionSize(0).build()) {
        assertEquals(CacheSizing.defaultRegionSize(size), c.pool.maxSize, "size " + size);
        assertEquals(c.pool.maxSize, zero.pool.maxSize, "size " + size);
      }
    }
  }

  /** Waits for the cache's fetches to end. */
  private static void awaitFills(SharedRegionCache cache) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (cache.filler().inFlight() > 0 && System.nanoTime() < until) {
      Thread.sleep(2);
    }
    assertEquals(0, cache.filler().inFlight(), "fills still running after 30 s");
  }

  @Test
  void aFilledPageOfARegionNotYetCompleteIsReadWithoutTheSlotsLock() throws Exception {
    byte[] bytes = bytes(1 << 20);
    SharedRegionCache cache = cache(4 << 20, 1 << 20, 64 << 10);
    BlobDirectory dir = mount(fsStore, cache, Map.of("r.bin", bytes), "partial");
    try (IndexInput in = dir.openInput("r.bin", POINT_READS)) {
      in.seek(200_000);
      in.readLong(); // fetches a piece of the 1 MiB region: the region is not complete
    }
    Slot slot = null;
    for (Slot s : cache.pool.slots()) {
      if (s.owner != null) {
        slot = s;
      }
    }
    assertTrue(slot != null && !slot.complete, "one region, partly filled: " + slot);
    while (slot.isFilling()) { // the first read returned with its page; the rest of its fill may still be coming
      Thread.sleep(1);
    }
    long hits = dir.stats().hits();
    Thread reader;
    AtomicInteger read = new AtomicInteger();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    synchronized (slot) { // a fill's progress or a waiting reader holds it; a reader of filled pages does not need it
      reader = new Thread(() -> {
        try (IndexInput in = dir.openInput("r.bin", POINT_READS)) {
          RandomAccessInput ra = in.randomAccessSlice(0, in.length());
          for (int p = 200_000 - 1000; p < 200_000 + 1000; p += 8) {
            assertEquals((long) BitUtil.VH_LE_LONG.get(bytes, p), ra.readLong(p), "position " + p);
            read.incrementAndGet();
          }
        } catch (Throwable t) {
          failures.add(t);
        }
      });
      reader.start();
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      while (reader.isAlive()) {
        ThreadInfo info = threads.getThreadInfo(reader.threadId());
        LockInfo lock = info == null ? null : info.getLockInfo();
        assertFalse(lock != null && lock.getIdentityHashCode() == System.identityHashCode(slot),
            "the reader waits for the slot's monitor, after " + read.get() + " reads");
        Thread.onSpinWait();
      }
    }
    assertEquals(List.of(), failures);
    assertEquals(250, read.get());
    assertTrue(dir.stats().hits() > hits, "the reads are hits");
    assertEquals(1, dir.stats().misses(), "only the first read fetched");
  }

  @Test
  void aSettledCostCountsWhatItsInputsServedAndHeldAndTracksThemNoMore() throws IOException {
    byte[] bytes = bytes(300_000);
    BlobDirectory dir = mount(fsStore, cache(4 << 20, 64 << 10, 4 << 10), Map.of("s.bin", bytes), "settle");
    try (IndexInput in = dir.openInput("s.bin", IOContext.DEFAULT)) {
      in.readBytes(new byte[bytes.length], 0, bytes.length); // all of it cached
    }
    ReadCost cost = new ReadCost();
    long read = 0;
    try (ReadCost.Scope s = ReadCost.attach(cost); IndexInput in = dir.openInput("s.bin", IOContext.DEFAULT)) {
      for (int i = 0; i < 60; i++) { // clones that read a run each and are dropped, most still in a window
        IndexInput clone = random.nextBoolean() ? in.clone() : in.slice("s", 1000, bytes.length - 1000);
        int from = random.nextInt((int) clone.length());
        int length = random.nextInt((int) Math.min(clone.length() - from, 100_000) + 1);
        clone.seek(from);
        clone.readBytes(new byte[length], 0, length);
        read += length;
      }
      assertEquals(read, cost.bytesFromCache(), "reported as windows were left, plus what the inputs hold; seed " + seed);
      cost.settle();
      assertEquals(read, cost.bytesFromCache(), "settled: the same count, without the inputs; seed " + seed);
      in.clone().readBytes(new byte[100], 0, 100); // work after settling, tracked as any other
      cost.settle();
      assertEquals(read + 100, cost.bytesFromCache(), "inputs settled once are not counted again; seed " + seed);
    }
  }

  /**
   * A clone counts for the work of the thread that makes it, whatever its parent counts for: a clone made on its
   * parent's thread while the parent's work is current takes that work without a thread-local lookup, and must not
   * take it once an inner scope shadows it, once its scope closed, or on another thread.
   */
  @Test
  void aCloneCountsForTheWorkCurrentWhereItIsMadeNotItsParents() throws Exception {
    byte[] bytes = bytes(300_000);
    BlobDirectory dir = mount(fsStore, cache(4 << 20, 64 << 10, 4 << 10), Map.of("w.bin", bytes), "whose");
    try (IndexInput in = dir.openInput("w.bin", IOContext.DEFAULT)) {
      in.readBytes(new byte[bytes.length], 0, bytes.length); // all of it cached
    }
    ReadCost outer = new ReadCost();
    ReadCost inner = new ReadCost();
    ReadCost other = new ReadCost();
    IndexInput parent;
    IndexInput madeAfter;
    try (ReadCost.Scope s = ReadCost.attach(outer)) {
      parent = dir.openInput("w.bin", IOContext.DEFAULT);
      readThrough(parent.clone(), 10);
      try (ReadCost.Scope in = ReadCost.attach(inner)) {
        readThrough(parent.clone(), 200);
        readThrough(parent.slice("s", 0, 1000), 300);
        try (ReadCost.Scope none = ReadCost.attach(null)) {
          readThrough(parent.clone(), 4000);
        }
        readThrough(parent.clone(), 20);
      }
      readThrough(parent.slice("s", 0, 1000), 30);
      Thread t = Thread.ofVirtual().start(() -> {
        try (ReadCost.Scope elsewhere = ReadCost.attach(other)) {
          readThrough(parent.clone(), 50_000);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      t.join();
      madeAfter = parent.clone(); // read once the scope is closed: it still counts for the work it was made in
    }
    readThrough(madeAfter, 40);
    readThrough(parent.clone(), 60_000); // made outside any work
    parent.close();
    assertEquals(10 + 30 + 40, outer.bytesFromCache(), "the outer work's clones");
    assertEquals(200 + 300 + 20, inner.bytesFromCache(), "the inner scope's clones, made from the outer's input");
    assertEquals(50_000, other.bytesFromCache(), "the other thread's clone");
  }

  private static void readThrough(IndexInput input, int length) throws IOException {
    input.seek(0);
    input.readBytes(new byte[length], 0, length);
  }

  @Test
  void aReaderSkippingForwardInSmallStepsReadsInGrowingFills() throws Exception {
    byte[] bytes = bytes(2 << 20);
    CountingBlobStore store = new CountingBlobStore(fsStore);
    BlobDirectory dir = mount(store, cache(8 << 20, 1 << 20, 64 << 10), Map.of("c.bin", bytes), "skips");
    long before = store.readRequests.get();
    try (IndexInput in = dir.openInput("c.bin", IOContext.DEFAULT)) {
      RandomAccessInput column = in.randomAccessSlice(0, in.length());
      for (int p = 0; p + Long.BYTES <= bytes.length; p += 1000) { // a column read for sparse hits
        assertEquals((long) BitUtil.VH_LE_LONG.get(bytes, p), column.readLong(p), "position " + p + ", seed " + seed);
      }
    }
    long requests = store.readRequests.get() - before;
    // 128 KiB fills all the way would be 16 of them; fills that grow while the reader moves on: 128 KiB, 256 KiB,
    // 512 KiB, 1 MiB, and the chunk table
    assertTrue(requests <= 8, requests + " requests to read 2 MiB skipping 1,000 bytes at a time, seed " + seed);
  }

  @Test
  void closedInputsAndTheirClonesThrowAlreadyClosed() throws IOException {
    Map<String, byte[]> files = Map.of("c.bin", bytes(50_000));
    SharedRegionCache cache = cache(1 << 20, 64 << 10, 4 << 10);
    BlobDirectory dir = mount(fsStore, cache, files, "close");
    IndexInput master = dir.openInput("c.bin", IOContext.DEFAULT);
    master.seek(100);
    master.readByte(); // the window is now established
    IndexInput clone = master.clone();
    IndexInput slice = master.slice("s", 10, 1000);
    IndexInput clone2 = master.clone();
    clone2.close();
    assertThrows(AlreadyClosedException.class, clone2::readByte);
    assertEquals(files.get("c.bin")[101], clone.readByte(), "closing a clone does not affect the others");
    master.close();
    assertThrows(AlreadyClosedException.class, master::readByte);
    assertThrows(AlreadyClosedException.class, clone::readByte, "a clone of a closed input is closed too, even inside its window");
    assertThrows(AlreadyClosedException.class, slice::readByte);
    assertThrows(AlreadyClosedException.class, () -> ((RandomAccessInput) slice).readLong(0));
    dir.close();
    assertThrows(AlreadyClosedException.class, () -> dir.openInput("c.bin", IOContext.DEFAULT));
  }

  @Test
  void theDirectoryIsReadOnlyAndNamesMissingFiles() throws IOException {
    SharedRegionCache cache = cache(1 << 20, 64 << 10, 4 << 10);
    BlobDirectory dir = mount(fsStore, cache, Map.of("x.bin", bytes(100)), "ro");
    assertArrayEquals(new String[] {"x.bin"}, dir.listAll());
    assertEquals(100, dir.fileLength("x.bin"));
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> dir.openInput("nope", IOContext.DEFAULT));
    assertTrue(e.getMessage().contains("nope") && e.getMessage().contains("ro"), e.getMessage());
    assertThrows(NoSuchFileException.class, () -> dir.fileLength("nope"));
    for (Executable write : List.<Executable>of(
        () -> dir.createOutput("y", IOContext.DEFAULT), () -> dir.deleteFile("x.bin"), () -> dir.rename("x.bin", "z"),
        () -> dir.sync(List.of("x.bin")), dir::syncMetaData, () -> dir.createTempOutput("a", "b", IOContext.DEFAULT))) {
      UnsupportedOperationException u = assertThrows(UnsupportedOperationException.class, write);
      assertTrue(u.getMessage().contains("read-only"), u.getMessage());
    }
  }

  @Test
  void statsBreakDownByIndexAndExtensionAndClearEmptiesTheCache() throws IOException {
    SharedRegionCache cache = cache(1 << 20, 64 << 10, 4 << 10);
    BlobDirectory one = mount(fsStore, cache, Map.of("a.tim", bytes(30_000), "a.doc", bytes(30_000)), "one");
    BlobDirectory two = mount(fsStore, cache, Map.of("b.tim", bytes(30_000)), "two");
    MountedIndexTest.readAll(one, "a.tim");
    MountedIndexTest.readAll(one, "a.doc");
    MountedIndexTest.readAll(two, "b.tim");
    MountedIndexTest.readAll(two, "b.tim");
    CacheStats stats = cache.stats();
    assertTrue(stats.perIndex().get("one").bytesFetched() >= 60_000 - 64, String.valueOf(stats));
    assertTrue(stats.perIndex().get("two").bytesFetched() >= 30_000 - 32, String.valueOf(stats));
    assertTrue(stats.perIndex().get("two").hits() > 0, String.valueOf(stats));
    assertTrue(stats.perExtension().get("tim").bytesFetched() >= 60_000 - 64, String.valueOf(stats));
    assertTrue(stats.perExtension().get("doc").bytesFetched() >= 30_000 - 32, String.valueOf(stats));
    assertEquals(stats.total().bytesFetched(), stats.perIndex().values().stream().mapToLong(CacheStats.Counts::bytesFetched).sum());
    assertTrue(stats.regionsInUse() > 0);
    one.clearCache();
    long fetchedBefore = cache.stats().perIndex().get("two").fetches();
    MountedIndexTest.readAll(two, "b.tim");
    assertEquals(fetchedBefore, cache.stats().perIndex().get("two").fetches(), "clearing one index leaves the other");
    cache.clear();
    assertEquals(0, cache.stats().regionsInUse());
    MountedIndexTest.readAll(two, "b.tim");
    assertTrue(cache.stats().perIndex().get("two").fetches() > fetchedBefore);
  }

  @Test
  void badSettingsAreNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SharedRegionCache.builder().path(tmp.resolve("bad")).size("10gb").regionSize(3000).build());
    assertTrue(e.getMessage().contains("regionSize"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SharedRegionCache.builder().path(tmp.resolve("bad")).build());
    assertTrue(e.getMessage().contains("size"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SharedRegionCache.builder().path(tmp.resolve("bad")).size("lots").build());
    assertTrue(e.getMessage().contains("lots"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SharedRegionCache.builder().path(tmp.resolve("bad")).size("150%").build());
    assertTrue(e.getMessage().contains("150%"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SharedRegionCache.builder().path(tmp.resolve("bad")).size(100).regionSize(4096).build());
    assertTrue(e.getMessage().contains("no region"), e.getMessage());
  }

  @Test
  void aLargeCacheStartsSparseAndAnImpossibleOneFailsClearlyBeforeAllocating() throws IOException {
    long usableBefore = Files.getFileStore(tmp).getUsableSpace();
    try (SharedRegionCache big = SharedRegionCache.builder().path(tmp.resolve("big")).size("10gb").build()) {
      assertEquals(10L << 30, Files.size(big.file()));
      long taken = usableBefore - Files.getFileStore(tmp).getUsableSpace();
      assertTrue(taken < (100L << 20), "a 10gb cache file is created sparse, not written: " + taken + " bytes taken");
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SharedRegionCache.builder().path(tmp.resolve("huge")).size("100tb").build());
    assertTrue(e.getMessage().contains("100tb") && e.getMessage().contains("does not fit") && e.getMessage().contains("huge"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> SharedRegionCache.builder().path(tmp.resolve("tiny-regions")).size("20gb").regionSize(512).build());
    assertTrue(e.getMessage().contains("heap") && e.getMessage().contains("regionSize"), e.getMessage());
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    e = assertThrows(IllegalArgumentException.class, () -> SharedRegionCache.builder().path(file).size("1mb").build());
    assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SharedRegionCache.builder().size("1mb").build());
    assertTrue(e.getMessage().contains("path"), e.getMessage());
  }

  @Test
  void fullRegionsOnlyPutsEveryRegionInAFullOne() throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("full-only")).size(256 << 10)
        .regionSize(64 << 10).fullRegionsOnly(true).build();
    toClose.add(cache);
    BlobDirectory dir = mount(fsStore, cache, Map.of("small.bin", bytes(10_000)), "full-only");
    MountedIndexTest.readAll(dir, "small.bin");
    assertEquals(List.of(64 << 10), Arrays.stream(cache.pool.slots()).filter(s -> s.owner != null).map(s -> s.size).toList());
  }

  @Test
  void aShareOfTheDiskKeepsTheHeadroomAndTheCacheFileIsLocked() throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("share")).size("0.001%").headroom("1mb")
        .regionSize(4096).fullRegionsOnly(true).preallocate(false).build();
    toClose.add(cache);
    long total = Files.getFileStore(tmp).getTotalSpace();
    assertTrue(cache.sizeInBytes() <= total * 0.00001 && cache.sizeInBytes() > 0, String.valueOf(cache.sizeInBytes()));
    assertEquals(cache.sizeInBytes(), Files.size(cache.file()));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> SharedRegionCache.builder().path(tmp.resolve("share")).size("1mb").build());
    assertTrue(e.getMessage().contains(cache.file().getParent().toString()) && e.getMessage().contains("in use"), e.getMessage());
    assertEquals(cache.sizeInBytes(), Files.size(cache.file()), "the second cache did not resize the first one's file");
  }

  @Test
  void randomPrefetchesAndReadsOnASlice() throws IOException {
    byte[] arr = bytes(16384 + random.nextInt(50_000));
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("pf")).size(64 << 10).regionSize(8 << 10)
        .tailRegionSize(1 << 10).fetchThreads(2).build();
    toClose.add(cache);
    BlobDirectory dir = mount(fsStore, cache, Map.of("temp.bin", arr), "pfs");
    int startOffset = random.nextInt(1024);
    try (IndexInput orig = dir.openInput("temp.bin", IOContext.DEFAULT)) {
      IndexInput in = orig.slice("slice", startOffset, arr.length - startOffset);
      byte[] temp = new byte[2048];
      for (int i = 0; i < 10_000; ++i) {
        int offset = random.nextInt((int) in.length());
        if (random.nextBoolean()) {
          in.prefetch(offset, 1 + (long) (random.nextDouble() * (in.length() - offset - 1)));
        }
        in.seek(offset);
        int readLength = 1 + random.nextInt((int) Math.min(temp.length, in.length() - offset));
        in.readBytes(temp, 0, readLength);
        assertArrayEquals(Arrays.copyOfRange(arr, startOffset + offset, startOffset + offset + readLength),
            Arrays.copyOf(temp, readLength), "seed " + seed + " at " + offset);
      }
    }
  }
}
