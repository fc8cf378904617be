/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.Waits;
import java.nio.file.Path;
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
 * The slow repeat of a dashboard through a small cache, in miniature. One index's column was cached by the search
 * before; the repeat announces it (as {@link ColumnPrefetch} does: the bytes are cached, nothing to fetch) and, on
 * another index, announces a column the cache values more. If announcing cached bytes does not hold them for their
 * reader, they are the only regions the newcomer can evict (the ones just fetched are held), and the reader then
 * fetches them again, a region a round trip: at {@code medium} scale with a 0.5% cache, one repeat of the dashboard
 * took 100 dependent waves that way (the others 3 to 17). A column a search announced stays until it is read; what
 * finds no room is read straight from the store, in one request.
 */
class AnnouncedColumnStaysTest {
  private static final int REGION = 64 << 10;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void aCachedColumnAnnouncedBeforeAnotherIsReadFromTheCache() throws Exception {
    Random random = new Random(seed);
    // each file: a column of two regions, then a little more (a slice that runs into the footer is not a column's)
    byte[] cached = new byte[2 * REGION + 1000];
    byte[] newcomer = new byte[2 * REGION + 1000];
    random.nextBytes(cached);
    random.nextBytes(newcomer);
    FetchOnceTest.RecordingBlobStore store = new FetchOnceTest.RecordingBlobStore(
        FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "s", "s-", Map.of("a.bin", cached, "b.bin", newcomer), 0,
        32 << 10);
    StraightReadPastAdmittedRegionTest.Favouring policy = new StraightReadPastAdmittedRegionTest.Favouring();
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(2 * REGION + 4096)
            .regionSize(REGION).tailRegionSize(REGION).evictionPolicy(policy).build();
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        IndexInput a = dir.openInput("a.bin", IOContext.DEFAULT);
        IndexInput b = dir.openInput("b.bin", IOContext.DEFAULT)) {
      // the last search left a.bin's column in the cache, which it fills; b.bin's regions are worth more
      dir.openedFile("a.bin").cachedBlob.offerWhole(cached);
      assertEquals(3, cache.stats().regionsInUse(), "a.bin's two regions and its tail");
      CachedBlob newBlob = dir.openedFile("b.bin").cachedBlob;
      policy.favoured.addAll(List.of(newBlob.regionKey(0), newBlob.regionKey(1)));
      store.reads.clear();

      // the repeat's collectors announce both columns, the cached one first, then read them
      Object outer = ReadIntent.opening(Boolean.TRUE);
      RandomAccessInput sliceA;
      RandomAccessInput sliceB;
      try {
        sliceA = a.randomAccessSlice(0, 2 * REGION);
        sliceB = b.randomAccessSlice(0, 2 * REGION);
      } finally {
        ReadIntent.opening(outer);
      }
      ReadIntent.startWanted();
      byte[] gotA = new byte[2 * REGION];
      byte[] gotB = new byte[2 * REGION];
      for (int i = 0; i < gotA.length; i += 4096) { // a collector reads value after value
        sliceA.readBytes(i, gotA, i, 4096);
      }
      sliceB.readBytes(0, gotB, 0, gotB.length);
      ReadIntent.forgetStarted();
      assertArrayEquals(Arrays.copyOf(cached, gotA.length), gotA);
      assertArrayEquals(Arrays.copyOf(newcomer, gotB.length), gotB);

      Waits.awaitNoFetch(cache);
      assertNull(store.reads.get("blobs/s-a.bin"), () -> "the announced column was evicted before its reader came"
          + " and fetched again: " + store.reads.get("blobs/s-a.bin").stream().map(Arrays::toString).toList());
      assertEquals(1, store.reads.get("blobs/s-b.bin").size(), () -> "the column that found no room is read straight"
          + " from the store in one request: " + store.reads.get("blobs/s-b.bin").stream().map(Arrays::toString).toList());
    }
  }
}
