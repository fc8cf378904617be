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
import java.util.Arrays;
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
  /**
   * A column: most of a region, so that it is no more than the share of the cache one call's columns may take
   * ({@link ReadIntent#COLUMN_SHARE_OF_CACHE}) in a cache with room for one region.
   */
  private static final int COLUMN = REGION - (8 << 10);
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  // each file: a column in its first region, then a little more (a slice that runs into the footer is not a column's)
  private final byte[] cached = new byte[REGION + 1000];
  private final byte[] newcomer = new byte[REGION + 1000];
  private FetchOnceTest.RecordingBlobStore store;
  private SnapshotManifest manifest;
  private final DirectReadPastAdmittedRegionTest.Favouring policy = new DirectReadPastAdmittedRegionTest.Favouring();

  @BeforeEach
  void twoFiles() throws Exception {
    Random random = new Random(seed);
    random.nextBytes(cached);
    random.nextBytes(newcomer);
    store = new FetchOnceTest.RecordingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    manifest = TestManifests.upload(store, "s", "s-", Map.of("a.bin", cached, "b.bin", newcomer), 0, 32 << 10);
  }

  /**
   * A cache with room for one full region (a.bin's first) and pieces of 32, 16, 8 and 4 KiB (a.bin's tail and free
   * space): every window a region can be given is a.bin's first region, so what the cache admits does not depend on
   * which windows its eviction happens to sample; and at 124 KiB, a column of {@link #COLUMN} bytes is within a
   * call's share.
   */
  private SharedRegionCache roomForA() throws Exception {
    return SharedRegionCache.builder().path(tmp.resolve("cache")).size(2 * REGION - 4096).regionSize(REGION)
        .tailRegionSize(REGION).evictionPolicy(policy).build();
  }

  @Test
  void aCachedColumnAnnouncedBeforeAnotherIsReadFromTheCache() throws Exception {
    try (SharedRegionCache cache = roomForA();
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        IndexInput a = dir.openInput("a.bin", IOContext.DEFAULT);
        IndexInput b = dir.openInput("b.bin", IOContext.DEFAULT)) {
      // the last search left a.bin's column in the cache, which it fills; b.bin's regions are worth more
      dir.openedFile("a.bin").cachedBlob.offerWhole(cached);
      assertEquals(2, cache.stats().regionsInUse(), "a.bin's region and its tail");
      CachedBlob newBlob = dir.openedFile("b.bin").cachedBlob;
      policy.favoured.add(newBlob.regionKey(0));
      store.reads.clear();

      // the repeat's collectors announce both columns (two indices: two calls), the cached one first, then read them
      RandomAccessInput first = announce(a);
      RandomAccessInput second = announce(b);
      assertArrayEquals(Arrays.copyOf(cached, COLUMN), readValueAfterValue(first));
      assertArrayEquals(Arrays.copyOf(newcomer, COLUMN), readValueAfterValue(second));
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
    try (SharedRegionCache cache = roomForA();
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        IndexInput a = dir.openInput("a.bin", IOContext.DEFAULT);
        IndexInput b = dir.openInput("b.bin", IOContext.DEFAULT)) {
      dir.openedFile("a.bin").cachedBlob.offerWhole(cached);
      CachedBlob oldBlob = dir.openedFile("a.bin").cachedBlob;
      CachedBlob newBlob = dir.openedFile("b.bin").cachedBlob;
      policy.favoured.add(newBlob.regionKey(0));

      ReadCost first = new ReadCost();
      try (ReadCost.Scope counted = ReadCost.attach(first)) {
        RandomAccessInput slice = announce(a);
        assertArrayEquals(Arrays.copyOf(cached, COLUMN), readValueAfterValue(slice));
        ReadIntent.forgetStarted();
        // still searching: what it announced and read stays, what it announces next finds no room
        RandomAccessInput other = announce(b);
        assertArrayEquals(Arrays.copyOf(newcomer, COLUMN), readValueAfterValue(other));
        ReadIntent.forgetStarted();
        assertNull(newBlob.slot(0), "the first search's regions are held while it runs");
      } finally {
        first.settle();
      }
      Waits.awaitNoFetch(cache);

      ReadCost next = new ReadCost();
      try (ReadCost.Scope counted = ReadCost.attach(next)) {
        RandomAccessInput slice = announce(b);
        assertArrayEquals(Arrays.copyOf(newcomer, COLUMN), readValueAfterValue(slice));
        ReadIntent.forgetStarted();
      } finally {
        next.settle();
      }
      assertTrue(newBlob.slot(0) != null && newBlob.slot(0).hasBytesAt(0) && newBlob.slot(0).hasBytesAt(COLUMN - 1),
          "the next search admitted the region it values more");
      assertNull(oldBlob.slot(0), "in place of the settled search's");
    }
  }

  /** Opens {@code input}'s column as a collector names it, in a call of its own ({@link ColumnPrefetch} does this). */
  private static RandomAccessInput announce(IndexInput input) throws IOException {
    return DirectReadPastAdmittedRegionTest.name(input, 0, COLUMN).get(0);
  }

  /** The column, read 4 KiB at a time as a collector reads value after value. */
  private static byte[] readValueAfterValue(RandomAccessInput slice) throws IOException {
    byte[] got = new byte[COLUMN];
    for (int i = 0; i < got.length; i += 4096) {
      slice.readBytes(i, got, i, 4096);
    }
    return got;
  }
}
