/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.IOUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A column read directly from the store covers the stretch from the first region the cache refused to the end of the
 * last, in one request; a region the cache admitted amid that stretch, or beside it, comes with it, and is neither
 * fetched again by a fill of its own nor left empty; two columns a cached region apart are one request, across that
 * region, when the store policy's model says a gap that long costs less than a round trip. The cache's admissions are
 * made on purpose here (a policy that admits what the test favours and refuses the rest), not left to the sampling of
 * a busy cache. Columns are named as {@link ColumnPrefetch} names them: inside a {@link PrefetchBatch}, their direct
 * reads started before it closes.
 */
class DirectReadPastAdmittedRegionTest {
  private static final int REGION = 64 << 10;
  /**
   * The cache's regions: twice the largest columns one call names here, which may then take regions of it
   * ({@link ReadIntent#COLUMN_SHARE_OF_CACHE}).
   */
  private static final int CACHE_REGIONS = 8;
  /** A model in which a gap of a megabyte costs less than a round trip: 1 s to a first byte, at 1 MB a second. */
  private static final StorePolicy BRIDGING = StorePolicy.builder().firstByteLatency(Duration.ofSeconds(1))
      .readThroughput(1 << 20).build();
  /** A model that reads across no gap. */
  private static final StorePolicy NO_BRIDGING = StorePolicy.builder().firstByteLatency(Duration.ZERO).build();

  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Favouring policy = new Favouring();
  private byte[] column;
  private FetchOnceTest.RecordingBlobStore store;
  private SharedRegionCache cache;
  private BlobDirectory dir;
  private IndexInput in;
  private IndexInput otherIn;
  private CachedBlob blob;

  /** Admits what it favours and nothing else; a cached region is worth 1, or 100 if favoured. */
  static final class Favouring implements EvictionPolicy {
    final List<Long> favoured = new ArrayList<>();

    @Override
    public void recordAccess(long key) {}

    @Override
    public int candidateValue(long key, boolean reader) {
      return favoured.contains(key) ? 100 : 0;
    }

    @Override
    public int residentValue(long key, boolean readerFetched) {
      return favoured.contains(key) ? 100 : 1; // a favoured region never makes room for another
    }

    @Override
    public int frequency(long key) {
      return 0;
    }

    @Override
    public void restoreFrequency(long key, int frequency) {}
  }

  /**
   * Mounts {@code c.bin} ({@code regions} regions and a little more, random bytes) under {@code model}, in a cache of
   * {@link #CACHE_REGIONS} regions full of another file's regions worth 1 each: a region of {@code c.bin} is admitted
   * only if the test favours it. The regions of {@code c.bin} listed in {@code cached} are put in the cache first.
   */
  private void mount(int regions, StorePolicy model, int... cached) throws IOException {
    Random random = new Random(seed);
    column = new byte[regions * REGION + 1000]; // the columns, then more (a slice to the file's end is a jump table's)
    byte[] other = new byte[CACHE_REGIONS * REGION];
    random.nextBytes(column);
    random.nextBytes(other);
    store = new FetchOnceTest.RecordingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "s", "s-", Map.of("c.bin", column, "o.bin", other), 0,
        32 << 10);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(CACHE_REGIONS * REGION).regionSize(REGION)
        .tailRegionSize(REGION).evictionPolicy(policy).build();
    dir = BlobDirectory.open(manifest, model.apply(store), cache, "s");
    in = dir.openInput("c.bin", IOContext.DEFAULT);
    otherIn = dir.openInput("o.bin", IOContext.DEFAULT);
    dir.openedFile("o.bin").cachedBlob.offerWhole(other);
    assertEquals(CACHE_REGIONS, cache.stats().regionsInUse());
    blob = dir.openedFile("c.bin").cachedBlob;
    for (int index : cached) {
      policy.favoured.add(blob.regionKey(index));
    }
    blob.offerWhole(column); // only the favoured regions are admitted
    for (int index : cached) {
      assertTrue(blob.slot(index).hasBytesAt(REGION - 1), "region " + index + " cached");
    }
    store.reads.clear();
  }

  @AfterEach
  void close() throws Exception {
    IOUtils.close(in, otherIn, dir);
    if (cache != null) {
      cache.close();
    }
  }

  /** Favours region {@code index} of {@code c.bin}: the cache admits it. */
  private void favour(int index) {
    policy.favoured.add(blob.regionKey(index));
  }

  /** Names the columns [from, to) of {@code c.bin} (pairs): see {@link #name(IndexInput, long...)}. */
  private List<RandomAccessInput> name(long... ranges) throws IOException {
    return name(in, ranges);
  }

  /**
   * Names the columns [from, to) of {@code input} (pairs) in one call, as a collector does through
   * {@link ColumnPrefetch}: in a prefetch batch, their direct reads started before it closes; returns their slices.
   */
  static List<RandomAccessInput> name(IndexInput input, long... ranges) throws IOException {
    List<RandomAccessInput> slices = new ArrayList<>();
    try (PrefetchBatch batch = PrefetchBatch.open()) {
      ReadIntent.Opening outer = ReadIntent.opening(ReadIntent.FetchWhole.forThisThread());
      try {
        for (int i = 0; i < ranges.length; i += 2) {
          slices.add(input.randomAccessSlice(ranges[i], ranges[i + 1] - ranges[i]));
        }
      } finally {
        ReadIntent.opening(outer);
      }
      ReadIntent.startWanted();
    }
    return slices;
  }

  /** Reads each slice whole and checks its bytes: see {@link #readAll(byte[], List, long...)}. */
  private void readAll(List<RandomAccessInput> slices, long... ranges) throws IOException {
    readAll(column, slices, ranges);
  }

  /**
   * Reads each slice of {@link #name(IndexInput, long...)} whole (the collector, on this thread) and checks its bytes
   * against {@code file}'s.
   */
  static void readAll(byte[] file, List<RandomAccessInput> slices, long... ranges) throws IOException {
    try {
      for (int i = 0; i < slices.size(); i++) {
        byte[] got = new byte[Math.toIntExact(ranges[2 * i + 1] - ranges[2 * i])];
        slices.get(i).readBytes(0, got, 0, got.length);
        assertArrayEquals(Arrays.copyOfRange(file, (int) ranges[2 * i], (int) ranges[2 * i + 1]), got);
      }
    } finally {
      ReadIntent.forgetStarted();
    }
  }

  /**
   * The requests for {@code c.bin}'s bytes, in the order of their offsets, after its fetches have ended; checks that
   * none read a byte twice.
   */
  private List<String> requests() throws InterruptedException {
    Waits.awaitNoFetch(cache);
    List<long[]> ranges = new ArrayList<>(store.reads.getOrDefault("blobs/s-c.bin", List.of()));
    ranges.sort((a, b) -> Long.compare(a[0], b[0]));
    List<String> reads = ranges.stream().map(Arrays::toString).toList();
    assertEquals("", store.overlaps(new long[1]), "no byte fetched twice: " + reads);
    return reads;
  }

  private boolean cached(int index) {
    return blob.slot(index) != null && blob.slot(index).hasBytesAt(0) && blob.slot(index).hasBytesAt(REGION - 1);
  }

  @Test
  void aRegionAdmittedAmidADirectReadComesWithItAndIsCached() throws Exception {
    mount(3, NO_BRIDGING);
    favour(1); // of c.bin's three regions, only the middle one is admitted
    long[] columns = {0, 3 * REGION};
    readAll(name(columns), columns);
    assertEquals(1, requests().size(), "one request for the whole column: " + requests());
    assertTrue(cached(1), "the admitted region holds its bytes, which came with the direct read");
    assertTrue(blob.slot(0) == null && blob.slot(2) == null, "the others were not admitted");
  }

  @Test
  void anAdmittedRegionBeforeTheRefusedOnesComesInTheirRequest() throws Exception {
    mount(3, NO_BRIDGING);
    favour(0);
    long[] columns = {0, 3 * REGION};
    readAll(name(columns), columns);
    assertEquals(List.of(Arrays.toString(new long[] {0, 3 * REGION})), requests(),
        "the admitted first region's fill is taken into the refused stretch's direct read");
    assertTrue(cached(0), "and is filled from it");
    assertTrue(blob.slot(1) == null && blob.slot(2) == null);
  }

  @Test
  void aRegionTakenInIsFilledThoughNoReaderReadsTheDirectRead() throws Exception {
    mount(3, NO_BRIDGING);
    favour(2);
    name(0, 3 * REGION);
    ReadIntent.forgetStarted(); // the collector never came
    assertEquals(1, requests().size(), requests().toString());
    assertTrue(cached(2), "the admitted region is filled as the read's bytes come, not when a reader takes them");
  }

  @Test
  void aRegionTheCacheRefusesIsFetchedOnceForEveryInputOfTheBlobWhileTheWorkRuns() throws Exception {
    mount(3, NO_BRIDGING); // no region of c.bin is admitted
    long budget = cache.directReadBudget.available();
    ReadCost work = new ReadCost();
    try (ReadCost.Scope reading = ReadCost.attach(work);
        IndexInput other = dir.openInput("c.bin", IOContext.DEFAULT)) {
      assertArrayEquals(Arrays.copyOfRange(column, REGION + 10, REGION + 110), read(in, REGION + 10, 100));
      assertEquals(1, requests().size(), requests().toString());
      // a postings reader's clone, its skip data's input: other inputs of the blob, moving into the same bytes
      assertArrayEquals(Arrays.copyOfRange(column, REGION + 20, REGION + 120), read(other, REGION + 20, 100));
      assertArrayEquals(Arrays.copyOfRange(column, REGION + 30, REGION + 130), read(in.clone(), REGION + 30, 100));
      assertEquals(1, requests().size(), "read there, not fetched again: " + requests());
      assertTrue(cache.directReadBudget.available() < budget, "the bytes are held for the work");
    } finally {
      work.settle();
    }
    assertEquals(budget, cache.directReadBudget.available(), "given back as the work settles");
    try (IndexInput later = dir.openInput("c.bin", IOContext.DEFAULT)) {
      assertArrayEquals(Arrays.copyOfRange(column, REGION + 40, REGION + 140), read(later, REGION + 40, 100));
    }
    assertEquals(2, store.reads.get("blobs/s-c.bin").size(), "after it, nothing holds them");
    assertTrue(blob.slot(1) == null, "and the cache never admitted the region");
  }

  @Test
  void aStretchTheWorkWillReadThatTheCacheRefusesIsOneDirectReadEveryInputOfTheBlobReads() throws Exception {
    mount(3, NO_BRIDGING); // no region of c.bin is admitted
    long budget = cache.directReadBudget.available();
    ReadCost work = new ReadCost();
    try (ReadCost.Scope reading = ReadCost.attach(work);
        IndexInput other = dir.openInput("c.bin", IOContext.DEFAULT)) {
      ColumnPrefetch.willRead(in, REGION + 10, REGION); // as a codec says where the search reads next
      // the stretch, aligned to the chunks its bytes are verified by (32 KiB here)
      assertEquals(List.of(Arrays.toString(new long[] {REGION, 2 * REGION + (32 << 10)})), requests(),
          "one request for the stretch");
      ColumnPrefetch.willRead(in.clone(), REGION + 10, REGION); // said again (another term of the same postings)
      assertArrayEquals(Arrays.copyOfRange(column, REGION + 20, 2 * REGION + 20), read(other, REGION + 20, REGION));
      assertArrayEquals(Arrays.copyOfRange(column, 2 * REGION, 2 * REGION + 100), read(in, 2 * REGION, 100));
      assertEquals(1, requests().size(), "read there, never fetched again: " + requests());
    } finally {
      work.settle();
    }
    assertEquals(budget, cache.directReadBudget.available(), "given back as the work settles");
  }

  @Test
  void aPrefetchedRegionIsWorthAPrefetchAndOneAskedForAsTheNextReadAReadersFetch() throws Exception {
    mount(3, NO_BRIDGING);
    favour(1);
    favour(2);
    in.prefetch(REGION + 10, 100); // a hint: Lucene's, or a column's
    ColumnPrefetch.willRead(in, 2 * REGION + 10, 100);
    assertEquals(2, requests().size(), requests().toString());
    assertTrue(!blob.slot(1).readerFetched && blob.slot(2).readerFetched,
        "only the next read is valued as a reader's fetch (CostAwareTinyLfu: 4 times a prefetch)");
  }

  @Test
  void outsideWorkAStretchTheCacheRefusesIsLeftToTheRead() throws Exception {
    mount(3, NO_BRIDGING);
    ColumnPrefetch.willRead(in, REGION + 10, REGION);
    assertEquals(List.of(), requests(), "no work would hold the bytes for the read");
    assertArrayEquals(Arrays.copyOfRange(column, REGION + 10, REGION + 110), read(in, REGION + 10, 100));
    assertEquals(1, requests().size(), requests().toString());
  }

  @Test
  void aStretchTheCacheAdmitsIsFilledAheadAndReadFromTheCache() throws Exception {
    mount(3, NO_BRIDGING);
    favour(1);
    ReadCost work = new ReadCost();
    try (ReadCost.Scope reading = ReadCost.attach(work)) {
      ColumnPrefetch.willRead(in, REGION + 10, 100);
      assertEquals(1, requests().size(), requests().toString());
      assertTrue(blob.slot(1) != null && blob.slot(1).hasBytesAt(10), "filled into the cache");
      assertTrue(blob.slot(1).readerFetched, "worth a reader's fetch to the cache, as the read it stands for");
      assertArrayEquals(Arrays.copyOfRange(column, REGION + 10, REGION + 110), read(in, REGION + 10, 100));
      assertEquals(1, requests().size(), "read from the cache: " + requests());
    } finally {
      work.settle();
    }
  }

  /**
   * A scan through regions the cache refuses reads a growing stretch a request: each four times the one before, as
   * a scan through the cache effectively grows (a fill is two window moves there, its region's and the one it
   * carried on into), so that a points walk or a postings list costs no more round trips through a small cache than
   * through a cold one.
   */
  @Test
  void aScanThroughRegionsTheCacheRefusesGrowsFourTimesARequest() throws Exception {
    mount(12, NO_BRIDGING);
    byte[] got = new byte[column.length];
    for (int at = 0; at < got.length; at += 4096) {
      in.readBytes(got, at, Math.min(4096, got.length - at));
    }
    assertArrayEquals(column, got);
    Waits.awaitNoFetch(cache);
    List<long[]> reads = new ArrayList<>(store.reads.get("blobs/s-c.bin"));
    reads.sort((a, b) -> Long.compare(a[0], b[0]));
    List<String> shown = reads.stream().map(Arrays::toString).toList();
    assertTrue(reads.size() >= 3, "several requests: " + shown);
    for (int i = 1; i + 1 < reads.size(); i++) { // the last stops at the file's end
      assertEquals(4 * (reads.get(i - 1)[1] - reads.get(i - 1)[0]), reads.get(i)[1] - reads.get(i)[0],
          "each request four times the one before: " + shown);
    }
  }

  private static byte[] read(IndexInput input, long at, int n) throws IOException {
    byte[] bytes = new byte[n];
    input.seek(at);
    input.readBytes(bytes, 0, n);
    return bytes;
  }

  @Test
  void twoColumnsACachedRegionApartAreOneRequestWhenTheModelBridgesTheGap() throws Exception {
    mount(3, BRIDGING, 1); // like a keyword's ordinals, a region the cache holds, then its terms dictionary
    long[] columns = {0, REGION, 2 * REGION, 3 * REGION};
    readAll(name(columns), columns);
    assertEquals(List.of(Arrays.toString(new long[] {0, 3 * REGION})), requests(),
        "one request across the cached region between them");
    assertTrue(cached(1), "the cached region kept");
  }

  @Test
  void twoColumnsACachedRegionApartAreTwoRequestsWhenTheModelBridgesNoGap() throws Exception {
    mount(3, NO_BRIDGING, 1);
    long[] columns = {0, REGION, 2 * REGION, 3 * REGION};
    readAll(name(columns), columns);
    assertEquals(2, requests().size(), requests().toString());
  }

  @Test
  void twoColumnsMoreThanARegionApartAreTwoRequestsWhateverTheModel() throws Exception {
    mount(4, BRIDGING, 1, 2); // a megabyte would be bridged; the gap is two regions, more than a direct read spans
    long[] columns = {0, REGION, 3 * REGION, 4 * REGION};
    readAll(name(columns), columns);
    assertEquals(List.of(Arrays.toString(new long[] {0, REGION}), Arrays.toString(new long[] {3 * REGION, 4 * REGION})),
        requests());
  }
}
