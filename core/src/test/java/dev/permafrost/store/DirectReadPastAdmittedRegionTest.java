/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A column read directly from the store covers the stretch from the first region the cache refused to the end of the
 * last, in one request; a region the cache admitted amid that stretch comes with it, and is neither fetched again by a
 * fill of its own nor left empty. The cache's admissions are made on purpose here (a policy that admits one region
 * and refuses the others), not left to the sampling of a busy cache.
 */
class DirectReadPastAdmittedRegionTest {
  private static final int REGION = 64 << 10;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  /** Admits what it favours and nothing else; every cached region is worth 1. */
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
      return 1;
    }

    @Override
    public int frequency(long key) {
      return 0;
    }

    @Override
    public void restoreFrequency(long key, int frequency) {}
  }

  @Test
  void aRegionAdmittedAmidADirectReadComesWithItAndIsCached() throws Exception {
    Random random = new Random(seed);
    byte[] column = new byte[3 * REGION + 1000]; // the column, then more (a slice to the file's end is a jump table's)
    byte[] other = new byte[4 * REGION];
    random.nextBytes(column);
    random.nextBytes(other);
    FetchOnceTest.RecordingBlobStore store = new FetchOnceTest.RecordingBlobStore(
        FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "s", "s-", Map.of("c.bin", column, "o.bin", other), 0,
        32 << 10);
    Favouring policy = new Favouring();
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(4 * REGION)
            .regionSize(REGION).tailRegionSize(REGION).evictionPolicy(policy).build();
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        IndexInput in = dir.openInput("c.bin", IOContext.DEFAULT);
        IndexInput filler = dir.openInput("o.bin", IOContext.DEFAULT)) {
      // the cache is full of o.bin's regions (worth 1 each); of c.bin's three, only the middle one is worth more
      dir.openedFile("o.bin").cachedBlob.offerWhole(other);
      assertEquals(4, cache.stats().regionsInUse());
      CachedBlob blob = dir.openedFile("c.bin").cachedBlob;
      policy.favoured.add(blob.regionKey(1));
      store.reads.clear();

      // a collector names the column it will scan (as ColumnPrefetch does): regions 0 and 2 are refused, 1 admitted
      ReadIntent.Opening outer = ReadIntent.opening(ReadIntent.FetchWhole.FOR_THIS_THREAD);
      RandomAccessInput slice;
      try {
        slice = in.randomAccessSlice(0, 3 * REGION);
      } finally {
        ReadIntent.opening(outer);
      }
      ReadIntent.startWanted();
      byte[] got = new byte[3 * REGION];
      slice.readBytes(0, got, 0, got.length);
      ReadIntent.forgetStarted();
      assertArrayEquals(Arrays.copyOf(column, got.length), got);

      Waits.awaitNoFetch(cache);
      long[] bytes = new long[1];
      assertEquals("", store.overlaps(bytes), "no byte fetched twice: " + store.reads.get("blobs/s-c.bin").stream()
          .map(Arrays::toString).toList());
      assertEquals(1, store.reads.get("blobs/s-c.bin").size(), "one request for the whole column: "
          + store.reads.get("blobs/s-c.bin").stream().map(Arrays::toString).toList());
      assertTrue(blob.slot(1) != null && blob.slot(1).hasBytesAt(0) && blob.slot(1).hasBytesAt(REGION - 1),
          "the admitted region holds its bytes, which came with the direct read");
      assertTrue(blob.slot(0) == null && blob.slot(2) == null, "the others were not admitted");
    }
  }
}
