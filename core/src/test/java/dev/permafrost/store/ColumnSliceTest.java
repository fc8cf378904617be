/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ColumnPrefetch#columnSlice}, the hook by which a codec says that a sequential slice is a column's (the TSDB
 * doc-values formats read their value blocks that way), on a plain {@link BlobDirectory}: opened while a collector
 * names the column ({@link ReadIntent#opening()}, as {@link ColumnPrefetch#prefetch} sets it), it is fetched whole in
 * one wave, as a random-access slice is, where a plain sequential slice is fetched as it is read, a growing fill after
 * another; what the cache refuses is read directly from the store and handed to the slice the collector opens; at
 * most {@link ColumnPrefetch#MAX_COLUMN_BYTES} of it; on another directory it is a plain slice. Counts are of store
 * requests and of waves by dependency ({@link ReadCost#waves()}), never of time.
 */
class ColumnSliceTest {
  private static final int REGION = 64 << 10;
  /** Where the column begins in its file, and its length: 16 regions, not aligned to one. */
  private static final int OFFSET = 10_000;
  private static final int LENGTH = 1 << 20;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private byte[] file;
  private CountingBlobStore store;
  private SnapshotManifest manifest;

  @BeforeEach
  void upload() throws IOException {
    Random random = new Random(seed);
    file = new byte[OFFSET + LENGTH + 300_000]; // the column, between other bytes of the file
    random.nextBytes(file);
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    manifest = TestManifests.upload(store, "s", "s-", Map.of("c.dvd", file), 0, 0);
  }

  private SharedRegionCache cache(String name, long size) throws IOException {
    return SharedRegionCache.builder().path(tmp.resolve(name)).size(size).regionSize(REGION).tailRegionSize(REGION)
        .build();
  }

  /** Opens {@code [OFFSET, OFFSET + LENGTH)} of {@code in} as a column would be while a collector names it. */
  private static IndexInput openNamed(IndexInput in, boolean column) throws IOException {
    try (PrefetchBatch batch = PrefetchBatch.open()) {
      ReadIntent.Opening outer = ReadIntent.opening(ReadIntent.FetchWhole.forThisThread());
      try {
        return column ? ColumnPrefetch.columnSlice(in, "values", OFFSET, LENGTH) : in.slice("terms", OFFSET, LENGTH);
      } finally {
        ReadIntent.opening(outer);
        ReadIntent.startWanted();
      }
    }
  }

  /** Reads {@code slice} from its start to its end, 4 KiB at a time (a block decoder's reads), checking each byte. */
  private void readInOrder(IndexInput slice) throws IOException {
    byte[] got = new byte[LENGTH];
    for (int at = 0; at < LENGTH; at += 4096) {
      slice.readBytes(got, at, Math.min(4096, LENGTH - at));
    }
    assertArrayEquals(Arrays.copyOfRange(file, OFFSET, OFFSET + LENGTH), got, "seed " + seed);
  }

  @Test
  void aSequentialSliceNamedAColumnIsFetchedWholeInOneWaveAndAPlainOneIsNot() throws Exception {
    long[] plain = readNamed(false);
    long[] column = readNamed(true);
    System.out.printf("a 1 MiB sequential slice read in order: plain %d requests before the reads, %d in all, %d waves;"
        + " a column's %d, %d, %d%n", plain[0], plain[1], plain[2], column[0], column[1], column[2]);
    assertEquals(0, plain[0], "a plain slice is not fetched when it is opened");
    // a reader's first fill is far smaller than the slice: the next is asked for once its bytes are read, a wave on
    // (how many more follow depends on how far fills carried on meanwhile: 3 or 4 waves were seen)
    assertTrue(plain[2] >= 2, "a plain slice is fetched as it is read, fill after fill: " + plain[2] + " waves");
    assertTrue(column[0] >= 1, "the column is fetched when it is opened");
    assertEquals(column[0], column[1], "every byte of it was fetched ahead, seed " + seed);
    assertEquals(1, column[2], "in one wave");
  }

  /** Opens the slice as {@link #openNamed}, then reads it all: requests then, requests in all, waves. */
  private long[] readNamed(boolean column) throws Exception {
    try (SharedRegionCache cache = cache(column ? "column" : "plain", 64 << 20);
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        IndexInput in = dir.openInput("c.dvd", IOContext.DEFAULT)) {
      store.reset();
      ReadCost cost = new ReadCost();
      long opened;
      try (ReadCost.Scope scope = ReadCost.attach(cost)) {
        IndexInput slice = openNamed(in, column);
        Waits.awaitNoFetch(cache);
        opened = store.readRequests.get();
        readInOrder(slice);
      }
      ReadIntent.forgetStarted();
      return new long[] {opened, store.readRequests.get(), cost.waves()};
    }
  }

  /**
   * A cache full of another file's regions, worth more than any of the column's: the column is read directly from
   * the store, in one request, when it is named, and the slice the collector opens then reads from that read.
   */
  @Test
  void whatTheCacheRefusesIsReadDirectlyAndHandedToTheSliceTheCollectorOpens() throws Exception {
    byte[] other = new byte[4 * REGION];
    new Random(seed + 1).nextBytes(other);
    SnapshotManifest both = TestManifests.upload(store, "t", "t-", Map.of("c.dvd", file, "o.bin", other), 0, 0);
    DirectReadPastAdmittedRegionTest.Favouring policy = new DirectReadPastAdmittedRegionTest.Favouring();
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("tiny")).size(4 * REGION)
            .regionSize(REGION).tailRegionSize(REGION).evictionPolicy(policy).build();
        BlobDirectory dir = BlobDirectory.open(both, store, cache, "t");
        IndexInput in = dir.openInput("c.dvd", IOContext.DEFAULT);
        IndexInput filler = dir.openInput("o.bin", IOContext.DEFAULT)) {
      dir.openedFile("o.bin").cachedBlob.offerWhole(other); // the cache is full, and admits none of the column
      assertEquals(4, cache.stats().regionsInUse());
      store.reset();
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope scope = ReadCost.attach(cost)) {
        openNamed(in, true); // as ColumnPrefetch opens the field
        IndexInput slice = ColumnPrefetch.columnSlice(in, "values", OFFSET, LENGTH); // as the collector opens it
        readInOrder(slice);
      } finally {
        ReadIntent.forgetStarted();
      }
      assertEquals(1, store.readRequests.get(), "the column in one direct read");
      assertEquals(LENGTH, store.bytesRead.get(), "the column's bytes, no more");
      assertEquals(1, cost.waves());
      assertEquals(1, cache.stats().total().directReads());
    }
  }

  @Test
  void atMostMaxColumnBytesOfASliceAreFetchedAhead() throws Exception {
    byte[] big = new byte[(int) ColumnPrefetch.MAX_COLUMN_BYTES + 3 * REGION];
    new Random(seed + 2).nextBytes(big);
    SnapshotManifest large = TestManifests.upload(store, "l", "l-", Map.of("big.dvd", big), 0, 0);
    try (SharedRegionCache cache = cache("large", 64 << 20);
        BlobDirectory dir = BlobDirectory.open(large, store, cache, "l");
        IndexInput in = dir.openInput("big.dvd", IOContext.DEFAULT)) {
      store.reset();
      try (PrefetchBatch batch = PrefetchBatch.open()) {
        ReadIntent.Opening outer = ReadIntent.opening(ReadIntent.FetchWhole.forThisThread());
        try {
          ColumnPrefetch.columnSlice(in, "values", 0, big.length - 1000); // not into the footer: a column of its own
        } finally {
          ReadIntent.opening(outer);
          ReadIntent.startWanted();
          ReadIntent.forgetStarted();
        }
      }
      Waits.awaitNoFetch(cache);
      assertEquals(ColumnPrefetch.MAX_COLUMN_BYTES, store.bytesRead.get());
    }
  }

  @Test
  void aSliceOpenedWhileNoCollectorNamesItIsFetchedAsItIsRead() throws Exception {
    try (SharedRegionCache cache = cache("unnamed", 64 << 20);
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        IndexInput in = dir.openInput("c.dvd", IOContext.DEFAULT)) {
      store.reset();
      IndexInput slice = ColumnPrefetch.columnSlice(in, "values", OFFSET, LENGTH);
      Waits.awaitNoFetch(cache);
      assertEquals(0, store.readRequests.get(), "nothing fetched ahead");
      readInOrder(slice);
      assertTrue(store.readRequests.get() > 1);
    }
  }

  @Test
  void onAnotherDirectoryAColumnSliceIsAPlainSlice() throws Exception {
    try (ByteBuffersDirectory local = new ByteBuffersDirectory()) {
      try (IndexOutput out = local.createOutput("c.dvd", IOContext.DEFAULT)) {
        out.writeBytes(file, file.length);
      }
      try (IndexInput in = local.openInput("c.dvd", IOContext.DEFAULT)) {
        readInOrder(openNamed(in, true));
        IndexInput slice = ColumnPrefetch.columnSlice(in, "values", OFFSET, LENGTH);
        assertEquals(LENGTH, slice.length());
        readInOrder(slice);
      } finally {
        ReadIntent.forgetStarted();
      }
    }
  }
}
