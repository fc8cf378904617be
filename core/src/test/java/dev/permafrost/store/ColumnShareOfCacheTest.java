/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columns one {@link ColumnPrefetch} call names take at most half of the cache
 * ({@link ReadIntent#COLUMN_SHARE_OF_CACHE}); past that, what is not cached already is read directly from the store.
 * The case in miniature: a dashboard over an engine's index of one large segment, repeated through a cache of 0.5% of
 * it. Its columns were three times the cache; the first search's took all of the empty cache and held it, so the
 * term's block, its postings and the points' leaves that its readers waited for after them were read directly, and
 * every repeat did the same: three waves, as many as the cold search. With the columns read directly, those stay
 * cached and a repeat is the columns' one wave.
 */
class ColumnShareOfCacheTest {
  private static final int REGION = 64 << 10;
  /** The cache: four regions, so that one call's columns may take two. */
  private static final int CACHE_REGIONS = 4;

  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final byte[] columns = new byte[4 * REGION + 1000]; // columns, then more (a slice to the end is a jump table's)
  private final byte[] structure = new byte[2 * REGION]; // what a search's readers walk: a terms block, its postings
  private FetchOnceTest.RecordingBlobStore store;
  private SharedRegionCache cache;
  private BlobDirectory dir;
  private IndexInput in;
  private CachedBlob blob;

  @BeforeEach
  void mount() throws Exception {
    Random random = new Random(seed);
    random.nextBytes(columns);
    random.nextBytes(structure);
    store = new FetchOnceTest.RecordingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "s", "s-", Map.of("c.bin", columns, "t.bin", structure),
        0, 32 << 10);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(CACHE_REGIONS * REGION).regionSize(REGION)
        .tailRegionSize(REGION).build();
    dir = BlobDirectory.open(manifest, store, cache, "s");
    in = dir.openInput("c.bin", IOContext.DEFAULT);
    blob = dir.openedFile("c.bin").cachedBlob;
  }

  @AfterEach
  void close() throws Exception {
    IOUtils.close(in, dir);
    if (cache != null) {
      cache.close();
    }
  }

  @Test
  void aColumnLargerThanHalfTheCacheIsReadDirectlyAndLeavesTheCacheToWhatReadersWaitFor() throws Exception {
    long[] column = {0, 3 * REGION};
    readAll(name(column), column);
    assertEquals(List.of(Arrays.toString(new long[] {0, 3 * REGION})), requests("c.bin"), "one direct request");
    assertEquals(0, cache.stats().regionsInUse(), "the empty cache took none of it");

    // what the search's readers read after the columns, each a wave: admitted, and cached for the next search
    try (IndexInput t = dir.openInput("t.bin", IOContext.DEFAULT)) {
      assertArrayEquals(structure, read(t, 0, structure.length));
      CachedBlob walked = dir.openedFile("t.bin").cachedBlob;
      assertTrue(walked.slot(0) != null && walked.slot(1) != null, "the cache had room for the readers' regions");
      store.reads.clear();
      assertArrayEquals(structure, read(t, 0, structure.length));
      assertEquals(List.of(), requests("t.bin"), "read from the cache the next time");
    }
  }

  @Test
  void theColumnsOfOneCallTakeRegionsUpToHalfTheCacheAndTheRestIsReadDirectly() throws Exception {
    long[] both = {0, 2 * REGION, 2 * REGION, 4 * REGION};
    readAll(name(both), both);
    assertTrue(cached(0) && cached(1), "the first column, half the cache, was admitted");
    assertTrue(blob.slot(2) == null && blob.slot(3) == null, "the second, past half of it, was not");
    assertEquals(2, cache.stats().regionsInUse());
    assertEquals(List.of(Arrays.toString(new long[] {0, 4 * REGION})), requests("c.bin"),
        "the admitted column's fills came in the direct read's request, beside it");
  }

  @Test
  void eachCallHasAShareOfItsOwn() throws Exception {
    long[] first = {0, 2 * REGION};
    long[] second = {2 * REGION, 4 * REGION};
    readAll(name(first), first);
    readAll(name(second), second);
    assertTrue(cached(0) && cached(1) && cached(2) && cached(3), "two calls, each within its share: all admitted");
  }

  @Test
  void aColumnPastTheShareIsReadFromTheCacheWhereItIsCachedAlready() throws Exception {
    assertArrayEquals(Arrays.copyOfRange(columns, 2 * REGION, 4 * REGION), read(in, 2 * REGION, 2 * REGION));
    assertTrue(cached(2) && cached(3), "read before, by a reader");
    store.reads.clear();

    long[] both = {0, 2 * REGION, 2 * REGION, 4 * REGION};
    readAll(name(both), both);
    assertEquals(List.of(Arrays.toString(new long[] {0, 2 * REGION})), requests("c.bin"),
        "only the first column fetched: the second, past the share, was read from the cache");
    assertTrue(cached(0) && cached(1) && cached(2) && cached(3));
  }

  @Test
  void aFetchIntoTheCacheForOtherThreadsIsNotBoundByTheShare() throws Exception {
    try (PrefetchBatch batch = PrefetchBatch.open()) {
      ReadIntent.Opening outer = ReadIntent.opening(ReadIntent.FetchWhole.intoCache());
      try {
        in.randomAccessSlice(0, 3 * REGION);
      } finally {
        ReadIntent.opening(outer);
      }
    }
    Waits.awaitNoFetch(cache);
    assertTrue(cached(0) && cached(1) && cached(2), "no collector on this thread would read it directly");
  }

  @Test
  void theShareIsHalfTheCacheCountedOverTheCall() {
    ReadIntent.FetchWhole call = ReadIntent.FetchWhole.forThisThread();
    long cacheBytes = CACHE_REGIONS * REGION;
    assertTrue(call.admits(REGION, cacheBytes));
    assertTrue(call.admits(REGION, cacheBytes), "two regions: half the cache");
    assertFalse(call.admits(1, cacheBytes), "a byte more");
    assertFalse(ReadIntent.FetchWhole.forThisThread().admits(2 * REGION + 1, cacheBytes), "one column past half");
    assertTrue(ReadIntent.FetchWhole.intoCache().admits(Long.MAX_VALUE / 2, cacheBytes), "into the cache: unbounded");
  }

  /** Names the columns [from, to) of {@code c.bin} (pairs) in one call, as {@link ColumnPrefetch} does. */
  private List<RandomAccessInput> name(long... ranges) throws IOException {
    return DirectReadPastAdmittedRegionTest.name(in, ranges);
  }

  /** Reads each slice whole (the collector, on this thread) and checks its bytes. */
  private void readAll(List<RandomAccessInput> slices, long... ranges) throws IOException {
    DirectReadPastAdmittedRegionTest.readAll(columns, slices, ranges);
  }

  /** The requests for {@code file}'s bytes, in the order of their offsets, after its fetches have ended. */
  private List<String> requests(String file) throws InterruptedException {
    Waits.awaitNoFetch(cache);
    List<long[]> ranges = new ArrayList<>(store.reads.getOrDefault("blobs/s-" + file, List.of()));
    ranges.sort((a, b) -> Long.compare(a[0], b[0]));
    return ranges.stream().map(Arrays::toString).toList();
  }

  private boolean cached(int index) {
    return blob.slot(index) != null && blob.slot(index).hasBytesAt(0) && blob.slot(index).hasBytesAt(REGION - 1);
  }

  private static byte[] read(IndexInput input, long at, int n) throws IOException {
    byte[] bytes = new byte[n];
    input.seek(at);
    input.readBytes(bytes, 0, n);
    return bytes;
  }
}
