/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.await;
import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.store.FileTypeHint;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fills of a prefetch are registered in their slots first and queued afterwards, without the slots' monitors: a
 * reader who comes in between is not lost. These tests put the reader there on purpose (the registration and the
 * queuing are called apart, the reader's arrival awaited as a state), so they give the same answer on every run.
 */
class QueuedFillTest {
  private static final int REGION = 64 << 10;
  private static final String BLOCKER = "blobs/q-blocker.bin";
  private static final String DATA = "blobs/q-d.bin";
  /** Reads at points (an index structure's): a fill stops at its region's end, no request carries it on. */
  private static final IOContext POINT_READS = IOContext.DEFAULT.withHints(FileTypeHint.INDEX);
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final byte[] bytes = new byte[300_000];
  private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
  private final CountDownLatch blockerSent = new CountDownLatch(1);
  private final CountDownLatch unblock = new CountDownLatch(1);
  private SharedRegionCache cache;
  private BlobDirectory dir;

  @BeforeEach
  void setUp() throws IOException {
    new Random(seed).nextBytes(bytes);
    BlobStore store = new FilterBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false)) {
      @Override
      public InputStream read(String name, long offset, long length) throws IOException {
        requests.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
        if (name.equals(BLOCKER)) { // holds the prefetch lane's one thread until the test lets go
          blockerSent.countDown();
          try {
            unblock.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("blocked");
          }
        }
        return super.read(name, offset, length);
      }
    };
    SnapshotManifest manifest = TestManifests.upload(store, "q", "q-",
        Map.of("d.bin", bytes, "blocker.bin", new byte[100_000]), 0, 32 << 10);
    requests.clear();
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(8 << 20).regionSize(REGION)
        .tailRegionSize(REGION).fetchThreads(4).prefetchThreads(1).build();
    dir = BlobDirectory.open(manifest, store, cache, "q");
  }

  @AfterEach
  void tearDown() throws IOException {
    unblock.countDown();
    dir.close();
    cache.close();
  }

  private long requestsFor(String blob) {
    AtomicLong n = requests.get(blob);
    return n == null ? 0 : n.get();
  }

  /** Registers fills for the whole of regions [first, last] of d.bin, as a prefetch does, without queuing them. */
  private List<Filler.Piece> registerPrefetch(IndexFile file, int first, int last) {
    CachedBlob blob = file.cachedBlob;
    List<Filler.Piece> batch = new ArrayList<>();
    for (int index = first; index <= last; index++) {
      Slot slot = blob.slotFor(index, false);
      slot.prefetch(blob, index, 0, blob.regionLength(index), file, batch, true, false);
    }
    assertEquals(last - first + 1, batch.size());
    return batch;
  }

  @Test
  void aReaderWhoComesBeforeAPrefetchIsQueuedHasItFetchedOnTheDemandLane() throws Exception {
    try (IndexInput blocker = dir.openInput("blocker.bin", IOContext.DEFAULT);
        IndexInput in = dir.openInput("d.bin", POINT_READS)) {
      blocker.prefetch(0, 10);
      assertTrue(blockerSent.await(1, TimeUnit.MINUTES), "the prefetch lane's one thread is busy");
      IndexFile file = dir.openedFile("d.bin");
      List<Filler.Piece> batch = registerPrefetch(file, 0, 1); // one run of two adjacent regions
      Filler.Piece second = batch.get(1);
      ExecutorService readers = Executors.newSingleThreadExecutor();
      try {
        long at = REGION + 100;
        Future<Byte> read = readers.submit(() -> {
          try (IndexInput mine = in.clone()) {
            mine.seek(at);
            return mine.readByte();
          }
        });
        await("the reader to wait for the registered fill", () -> {
          synchronized (second.slot()) {
            return second.fill().waiters == 1;
          }
        });
        synchronized (second.slot()) {
          assertNull(second.fill().task, "not queued yet");
          assertTrue(second.fill().demand, "the reader asked for it");
        }
        ((Slot) batch.get(0).slot()).cacheSpace.filler.start(batch, file.cachedBlob.checksums, file);
        // the prefetch lane is still held: only the demand lane can bring the reader its byte
        assertEquals(bytes[(int) at], read.get(1, TimeUnit.MINUTES));
        assertEquals(1, requestsFor(DATA), "one request for the run of both regions");
        assertEquals(1, requestsFor(BLOCKER), "the prefetch lane is still held");
      } finally {
        readers.shutdownNow();
      }
    }
  }

  @Test
  void aReaderWhoGivesUpBeforeAPrefetchIsQueuedCallsItsFetchOff() throws Exception {
    try (IndexInput in = dir.openInput("d.bin", POINT_READS)) {
      IndexFile file = dir.openedFile("d.bin");
      List<Filler.Piece> batch = registerPrefetch(file, 0, 0);
      Filler.Piece piece = batch.get(0);
      // the reader joins the registered fill and gives up at once: its deadline has passed
      try (ReadDeadline.Scope passed = ReadDeadline.at(System.nanoTime() - 1, "a deadline already passed")) {
        in.seek(100);
        assertThrows(BlobStoreTimeoutException.class, in::readByte);
      }
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope s = ReadCost.attach(cost)) {
        ((Slot) batch.get(0).slot()).cacheSpace.filler.start(batch, file.cachedBlob.checksums, file);
      }
      synchronized (piece.slot()) {
        assertTrue(piece.fill().done, "called off as it was queued: " + piece.fill());
        assertInstanceOf(FetchTask.Cancelled.class, piece.fill().error);
      }
      assertEquals(0, cost.requests(), "a fetch called off before it was sent does not count: " + cost);
      awaitNoFetch(cache);
      assertEquals(0, requestsFor(DATA), "no request was sent for nobody");
      // the next reader fetches the bytes itself
      in.seek(100);
      assertEquals(bytes[100], in.readByte());
      assertEquals(1, requestsFor(DATA));
    }
  }
}
