/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slow repeat of a dashboard through a small cache, in miniature. One index's column was cached by the search
 * before; the repeat announces it (as {@link ColumnPrefetch} does: the bytes are cached, nothing to fetch) and, on
 * another index, announces a column the cache values more. If announcing cached bytes does not hold them for their
 * reader, they are the only regions the newcomer can evict (the ones just fetched are held), and the reader then
 * fetches them again, a region a round trip: at {@code medium} scale with a 0.5% cache, one repeat of the dashboard
 * took 100 dependent waves that way (the others 3 to 17). A column a search announced stays until it is read; what
 * finds no room is read directly from the store, in one request.
 */
class AnnouncedColumnStaysTest {
  private static final int REGION = 64 << 10;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  // each file: a column of two regions, then a little more (a slice that runs into the footer is not a column's)
  private final byte[] cached = new byte[2 * REGION + 1000];
  private final byte[] newcomer = new byte[2 * REGION + 1000];
  // two regions the cache values above anything: the half of the cache a search's columns may not take
  private final byte[] kept = new byte[2 * REGION];
  private FetchOnceTest.RecordingBlobStore store;
  private SnapshotManifest manifest;
  private final DirectReadPastAdmittedRegionTest.Favouring policy = new DirectReadPastAdmittedRegionTest.Favouring();

  @BeforeEach
  void twoFiles() throws Exception {
    Random random = new Random(seed);
    random.nextBytes(cached);
    random.nextBytes(newcomer);
    random.nextBytes(kept);
    store = new FetchOnceTest.RecordingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    manifest = TestManifests.upload(store, "s", "s-", Map.of("a.bin", cached, "b.bin", newcomer, "k.bin", kept), 0, 32 << 10);
  }

  /**
   * A cache with room for a.bin (its two regions and its tail) beside k.bin's two regions, and nothing more: a column
   * of two regions is then no more than the share of the cache one call's columns may take
   * ({@link ReadIntent#COLUMN_SHARE_OF_CACHE}), and k.bin, which the policy favours, never makes room.
   */
  private SharedRegionCache roomForA(BlobDirectory[] opened) throws Exception {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(4 * REGION + 4096)
        .regionSize(REGION).tailRegionSize(REGION).evictionPolicy(policy).build();
    BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
    try (IndexInput k = dir.openInput("k.bin", IOContext.DEFAULT)) {
      CachedBlob keptBlob = dir.openedFile("k.bin").cachedBlob;
      policy.favoured.addAll(List.of(keptBlob.regionKey(0), keptBlob.regionKey(1)));
      keptBlob.offerWhole(kept);
    }
    assertEquals(2, cache.stats().regionsInUse(), "k.bin's two regions");
    opened[0] = dir;
    return cache;
  }

  @Test
  void aCachedColumnAnnouncedBeforeAnotherIsReadFromTheCache() throws Exception {
    BlobDirectory[] opened = new BlobDirectory[1];
    try (SharedRegionCache cache = roomForA(opened);
        BlobDirectory dir = opened[0];
        IndexInput a = dir.openInput("a.bin", IOContext.DEFAULT);
        IndexInput b = dir.openInput("b.bin", IOContext.DEFAULT)) {
      // the last search left a.bin's column in the cache, which it fills; b.bin's regions are worth more
      dir.openedFile("a.bin").cachedBlob.offerWhole(cached);
      assertEquals(5, cache.stats().regionsInUse(), "k.bin's two regions, a.bin's two and its tail");
      CachedBlob newBlob = dir.openedFile("b.bin").cachedBlob;
      policy.favoured.addAll(List.of(newBlob.regionKey(0), newBlob.regionKey(1)));
      store.reads.clear();

      // the repeat's collectors announce both columns (two indices: two calls), the cached one first, then read them
      RandomAccessInput first = announce(a).get(0);
      RandomAccessInput second = announce(b).get(0);
      assertArrayEquals(Arrays.copyOf(cached, 2 * REGION), readValueAfterValue(first));
      assertArrayEquals(Arrays.copyOf(newcomer, 2 * REGION), readValueAfterValue(second));
      ReadIntent.forgetStarted();

      Waits.awaitNoFetch(cache);
      assertNull(store.reads.get("blobs/s-a.bin"), () -> "the announced column was evicted before its reader came"
          + " and fetched again: " + store.reads.get("blobs/s-a.bin").stream().map(Arrays::toString).toList());
      assertEquals(1, store.reads.get("blobs/s-b.bin").size(), () -> "the column that found no room is read directly"
          + " from the store in one request: " + store.reads.get("blobs/s-b.bin").stream().map(Arrays::toString).toList());
    }
  }

  /**
   * A search's hold on what it announced ends with the search, not after a time: once an index's part of a search
   * settles, the next search may evict what it read, however soon it comes. (Held for a second after it was read, the
   * regions of a search that ended a moment ago were the whole cache, and a dashboard repeated at once could admit
   * nothing: its terms and postings, fetched by readers, were read directly from the store every time.)
   */
  @Test
  void aSearchsHoldOnWhatItAnnouncedEndsWhenItSettles() throws Exception {
    BlobDirectory[] opened = new BlobDirectory[1];
    try (SharedRegionCache cache = roomForA(opened);
        BlobDirectory dir = opened[0];
        IndexInput a = dir.openInput("a.bin", IOContext.DEFAULT);
        IndexInput b = dir.openInput("b.bin", IOContext.DEFAULT)) {
      dir.openedFile("a.bin").cachedBlob.offerWhole(cached);
      CachedBlob oldBlob = dir.openedFile("a.bin").cachedBlob;
      CachedBlob newBlob = dir.openedFile("b.bin").cachedBlob;
      policy.favoured.addAll(List.of(newBlob.regionKey(0), newBlob.regionKey(1)));

      ReadCost first = new ReadCost();
      try (ReadCost.Scope counted = ReadCost.attach(first)) {
        RandomAccessInput slice = announce(a).get(0);
        assertArrayEquals(Arrays.copyOf(cached, 2 * REGION), readValueAfterValue(slice));
        ReadIntent.forgetStarted();
        // still searching: what it announced and read stays, what it announces next finds no room
        RandomAccessInput other = announce(b).get(0);
        assertArrayEquals(Arrays.copyOf(newcomer, 2 * REGION), readValueAfterValue(other));
        ReadIntent.forgetStarted();
        assertNull(newBlob.slot(0), "the first search's regions are held while it runs");
      } finally {
        first.settle();
      }
      Waits.awaitNoFetch(cache);

      ReadCost next = new ReadCost();
      try (ReadCost.Scope counted = ReadCost.attach(next)) {
        RandomAccessInput slice = announce(b).get(0);
        assertArrayEquals(Arrays.copyOf(newcomer, 2 * REGION), readValueAfterValue(slice));
        ReadIntent.forgetStarted();
      } finally {
        next.settle();
      }
      assertTrue(newBlob.slot(0) != null && newBlob.slot(1) != null && newBlob.slot(0).hasBytesAt(0)
          && newBlob.slot(1).hasBytesAt(REGION - 1), "the next search admitted the regions it values more");
      assertTrue(oldBlob.slot(0) == null && oldBlob.slot(1) == null, "in place of the settled search's");
    }
  }

  /** Opens each input's first two regions as a column a collector names ({@link ColumnPrefetch} does this). */
  private static List<RandomAccessInput> announce(IndexInput... inputs) throws IOException {
    try (PrefetchBatch batch = PrefetchBatch.open()) {
      ReadIntent.Opening outer = ReadIntent.opening(ReadIntent.FetchWhole.forThisThread());
      try {
        List<RandomAccessInput> slices = new ArrayList<>();
        for (IndexInput in : inputs) {
          slices.add(in.randomAccessSlice(0, 2 * REGION));
        }
        return slices;
      } finally {
        ReadIntent.opening(outer);
        ReadIntent.startWanted(); // what the cache refused, read directly before the batch closes
      }
    }
  }

  /** The column's two regions, read 4 KiB at a time as a collector reads value after value. */
  private static byte[] readValueAfterValue(RandomAccessInput slice) throws IOException {
    byte[] got = new byte[2 * REGION];
    for (int i = 0; i < got.length; i += 4096) {
      slice.readBytes(i, got, i, 4096);
    }
    return got;
  }
}
