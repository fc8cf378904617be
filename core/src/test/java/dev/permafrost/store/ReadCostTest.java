/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a piece of work's reads cost, counted the same on any machine: a request counts, with every byte it asks for,
 * when the work asks for it (not as its bytes arrive); its wave is one more than the deepest wave whose bytes the
 * asking thread had read, whatever order the store or the CPU answered in.
 */
class ReadCostTest {
  private static final int CHUNK = 32 << 10;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  /** Counts the requests the store is sent and the bytes each asks for, when it is sent. */
  private static class AskedBlobStore extends FilterBlobStore {
    final AtomicLong requests = new AtomicLong();
    final AtomicLong bytesAsked = new AtomicLong();

    AskedBlobStore(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String name) throws IOException {
      requests.incrementAndGet();
      bytesAsked.addAndGet(in.length(name));
      return super.read(name);
    }

    @Override
    public InputStream read(String name, long offset, long length) throws IOException {
      requests.incrementAndGet();
      bytesAsked.addAndGet(length);
      return super.read(name, offset, length);
    }
  }

  /** Hands over the first chunk of every ranged read of a data blob, then holds the rest until {@link #release}. */
  private static final class HeldTailBlobStore extends AskedBlobStore {
    final CountDownLatch release = new CountDownLatch(1);

    HeldTailBlobStore(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String name, long offset, long length) throws IOException {
      return new FilterInputStream(super.read(name, offset, length)) {
        private long handed;

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          if (handed >= CHUNK) {
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new InterruptedIOException("held");
            }
          }
          int n = super.read(b, off, (int) Math.min(len, handed < CHUNK ? CHUNK - handed : len));
          handed += Math.max(0, n);
          return n;
        }
      };
    }
  }

  private byte[] randomBytes(int length) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /**
   * The cause of a search's cost falling short of the store's count by one 32 KiB chunk: a reader wakes as soon as
   * its own chunk is written, while the rest of its fill is still on its way. Counted as its bytes arrived, the cost
   * then held only what had arrived; a request counts whole when it is asked for.
   */
  @Test
  void aRequestCountsWithEveryByteItAsksForWhenItIsAskedForNotAsItsBytesArrive() throws Exception {
    byte[] bytes = randomBytes(600_000);
    HeldTailBlobStore store = new HeldTailBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "held", "held-", Map.of("d.bin", bytes), 0, CHUNK);
    store.requests.set(0);
    store.bytesAsked.set(0);
    // one region holds the whole file: the fill does not carry on into a next region
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(8 << 20)
            .regionSize(1 << 20).tailRegionSize(1 << 20).build();
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "held")) {
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope s = ReadCost.attach(cost); IndexInput in = dir.openInput("d.bin", IOContext.DEFAULT)) {
        in.seek(1000);
        assertEquals(bytes[1000], in.readByte()); // back with the first chunk; the rest of the fill is held
        // a fill of more than the chunk that arrived, and the chunk table beside it, both sent
        assertEquals(2, store.requests.get());
        assertTrue(store.bytesAsked.get() > 2 * CHUNK, store.bytesAsked + " bytes asked");
        assertEquals(store.requests.get(), cost.requests(), cost.toString());
        assertEquals(store.bytesAsked.get(), cost.bytesFetched(), "the cost holds every byte the requests ask for, not "
            + "only the chunk that arrived: " + cost);
        assertEquals(1, cost.waves());
        assertEquals(1, cost.readDepth(), "the thread read bytes of the first wave");
      } finally {
        store.release.countDown();
      }
      awaitNoFetch(cache);
      assertEquals(store.requests.get(), cost.requests(), "nothing more once the fill is done: " + cost);
      assertEquals(store.bytesAsked.get(), cost.bytesFetched(), cost.toString());
    }
  }

  /**
   * A busy machine makes independent requests follow each other: here the prefetch lane has one thread, so the store
   * gets three independent prefetches one after the other, each sent only once the one before it was read. The clock
   * counts three waves; by dependency they are one, and a read after reading their bytes is the second.
   */
  @Test
  void independentRequestsAreOneWaveEvenWhenTheyAreSentOneAfterAnother() throws Exception {
    byte[] bytes = randomBytes(1 << 20);
    AskedBlobStore store = new AskedBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "one", "one-", Map.of("d.bin", bytes), 0, CHUNK);
    store.requests.set(0);
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(8 << 20)
            .regionSize(64 << 10).prefetchThreads(1).build();
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "one")) {
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope s = ReadCost.attach(cost); IndexInput in = dir.openInput("d.bin", IOContext.DEFAULT)) {
        long[] at = {100_000, 400_000, 700_000}; // in three regions, none beside another
        for (long p : at) {
          in.prefetch(p, 10);
        }
        awaitNoFetch(cache);
        assertEquals(1, cost.waves(), "three prefetches from a thread that has read nothing: " + cost);
        assertEquals(0, cost.readDepth());
        for (long p : at) {
          in.seek(p);
          assertEquals(bytes[(int) p], in.readByte());
        }
        assertEquals(1, cost.readDepth(), cost.toString());
        assertEquals(4, cost.requests(), "three prefetches and the chunk table: " + cost);
        assertTrue(cost.clockWaves() >= 3, "the clock saw them one after another: " + cost);
        byte[] got = new byte[100];
        in.seek(900_000);
        in.readBytes(got, 0, got.length); // not cached: a request after reading the first wave's bytes
        assertArrayEquals(Arrays.copyOfRange(bytes, 900_000, 900_100), got);
        assertEquals(2, cost.waves(), cost.toString());
        assertEquals(2, cost.readDepth());
      }
      awaitNoFetch(cache); // the read's fill carries on into the next region, a request that may not be sent yet
      assertEquals(store.requests.get(), cost.requests());
    }
  }

  /**
   * A thread that reads only bytes cached before its work began stays at depth 0, even while other bytes of the same
   * blob that its work fetched sit beside them in one cache region: its window never spans both.
   */
  @Test
  void bytesCachedBeforeTheWorkDoNotDeepenItsWaves() throws Exception {
    byte[] bytes = randomBytes(300_000);
    AskedBlobStore store = new AskedBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "mix", "mix-", Map.of("d.bin", bytes), 0, CHUNK);
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(8 << 20)
            .regionSize(1 << 20).build();
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "mix")) {
      try (IndexInput in = dir.openInput("d.bin", IOContext.DEFAULT)) {
        in.seek(0);
        in.readByte(); // [0, 128 KiB) cached by no work
      }
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope s = ReadCost.attach(cost); IndexInput in = dir.openInput("d.bin", IOContext.DEFAULT)) {
        in.prefetch(4 * CHUNK, 10); // the chunk right after them, in the same region, fetched for this work
        awaitNoFetch(cache);
        in.seek(0);
        byte[] got = new byte[4 * CHUNK];
        in.readBytes(got, 0, got.length);
        assertArrayEquals(Arrays.copyOf(bytes, got.length), got);
        assertEquals(0, cost.readDepth(), "only bytes cached before: " + cost);
        assertEquals(bytes[4 * CHUNK], in.readByte());
        assertEquals(1, cost.readDepth(), "then a byte the work's own request brought: " + cost);
      }
    }
  }
}
