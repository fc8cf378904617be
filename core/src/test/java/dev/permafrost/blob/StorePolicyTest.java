/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import static dev.permafrost.testutil.Waits.await;
import static dev.permafrost.testutil.Waits.waitingIn;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.snapshot.SnapshotRepository;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store policy's decorators against a filesystem store that misbehaves on purpose. */
class StorePolicyTest {
  /** A liveness guard far above every deadline below: a hang fails the test instead of stalling the build. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(60);
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private FileSystemBlobStore fs;
  private byte[] data;

  @BeforeEach
  void setUp() throws IOException {
    fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    data = new byte[200_000];
    random.nextBytes(data);
    fs.write("blobs/a", new ByteArrayInputStream(data), data.length);
  }

  private static StorePolicy.Builder fast() {
    return StorePolicy.builder().retryDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(5));
  }

  private static byte[] readAll(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  @Test
  void transientFailuresAreRetriedUpToMaxRetriesThenReported() throws IOException {
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).failRate(1);
    BlobStore store = fast().maxRetries(3).build().apply(faulty);
    BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.read("blobs/a", 10, 100));
    assertEquals(4, faulty.reads.get(), "one attempt and 3 retries");
    assertTrue(e.getMessage().contains("gave up after 4 attempts") && e.getMessage().contains("blobs/a")
        && e.getMessage().contains(fs.describe()) && e.getMessage().contains("max_retries=3"), e.getMessage());

    faulty.failRate(0);
    faulty.reads.set(0);
    assertArrayEquals(Arrays.copyOfRange(data, 10, 110), readAll(store.read("blobs/a", 10, 100)));
    assertEquals(1, faulty.reads.get());
  }

  @Test
  void aFailureThatCannotPassIsNotRetried() {
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed);
    BlobStore store = fast().maxRetries(5).build().apply(faulty);
    BlobNotFoundException e = assertThrows(BlobNotFoundException.class, () -> store.read("blobs/missing", 0, 1));
    assertEquals(1, faulty.reads.get());
    assertFalse(e.isRetryable());
    assertThrows(BlobStoreException.class, () -> store.read("blobs/a", data.length - 1, 2)); // past the end
    assertEquals(2, faulty.reads.get());
  }

  @Test
  void retriesStopAtTheTimeLimit() {
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).failRate(1);
    BlobStore store = StorePolicy.builder().maxRetries(1000).retryDelay(Duration.ofMillis(20))
        .retryMaxDelay(Duration.ofMillis(40)).retryTimeLimit(Duration.ofMillis(300)).build().apply(faulty);
    BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.read("blobs/a", 0, 10));
    assertTrue(faulty.reads.get() > 1 && faulty.reads.get() < 1000, "stopped by time, not count: " + faulty.reads.get());
    assertTrue(e.getMessage().contains("retry_time_limit=300ms"), e.getMessage());
  }

  @Test
  void aStreamCutPartWayResumesWhereItStopped() throws IOException {
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).cutRate(0.5);
    BlobStore store = fast().maxRetries(50).build().apply(faulty);
    for (int i = 0; i < 20; i++) {
      int offset = random.nextInt(data.length - 1);
      int length = 1 + random.nextInt(data.length - offset - 1);
      assertArrayEquals(Arrays.copyOfRange(data, offset, offset + length), readAll(store.read("blobs/a", offset, length)),
          "seed " + seed);
    }
    assertArrayEquals(data, readAll(store.read("blobs/a")));
    assertTrue(faulty.cuts.get() > 0, "seed " + seed + ": some streams must have been cut");
    assertEquals(0, faulty.openStreams.get(), "every broken stream was closed");
  }

  @Test
  void aRequestThatNeverAnswersTimesOutNamingTheRangeAndIsRetried() throws InterruptedException {
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).stallRate(1);
    BlobStore store = fast().maxRetries(2).requestTimeout(Duration.ofMillis(100)).build().apply(faulty);
    try {
      BlobStoreTimeoutException e = assertTimeoutPreemptively(HANG_GUARD,
          () -> assertThrows(BlobStoreTimeoutException.class, () -> store.read("blobs/a", 1000, 5000)));
      assertTrue(e.getMessage().contains("timed out reading bytes [1000, 6000) of blob blobs/a")
          && e.getMessage().contains("request_timeout 100ms") && e.getMessage().contains("gave up after 3 attempts")
          && e.getMessage().contains(fs.describe()), e.getMessage());
      // each attempt's call runs on a thread of its own, which may reach the store after its time-out was reported
      await("the third attempt to reach the store", () -> faulty.stalls.get() >= 3);
      assertEquals(3, faulty.stalls.get(), "one attempt and 2 retries, each stalled");
    } finally {
      faulty.heal();
    }
  }

  @Test
  void aResponseThatStallsPartWayIsAbortedAtItsDeadline() throws IOException, InterruptedException {
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).hangRate(1);
    BlobStore store = fast().maxRetries(0).requestTimeout(Duration.ofMillis(100)).minReadThroughput(1 << 30).build().apply(faulty);
    try (InputStream in = store.read("blobs/a", 0, 1000)) {
      BlobStoreTimeoutException e = assertTimeoutPreemptively(HANG_GUARD,
          () -> assertThrows(BlobStoreTimeoutException.class, () -> in.read(new byte[100])));
      assertTrue(e.getMessage().contains("bytes [0, 1000)") && e.getMessage().contains("abandoned"), e.getMessage());
      // the read fails as soon as the deadline has passed; the timer closes the stream at that deadline, which on a
      // slow machine may be after the read saw it pass
      await("the deadline to close the stalled stream", () -> faulty.openStreams.get() == 0);
      assertEquals(1, faulty.streamsOpened.get(), "the one stream, closed by its deadline: nothing else closes it");
    } finally {
      faulty.heal();
    }
  }

  @Test
  void aSlowFirstByteIsHedgedAndTheFirstAnswerWins() throws IOException, InterruptedException {
    // the request that reaches the store first stalls until healed, which is only after the read returned: the read
    // can only be answered by the hedge, however late either request is sent
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).stallNext(1);
    BlobStore store = fast().hedgeAfter(Duration.ofMillis(50)).requestTimeout(Duration.ofSeconds(30)).build().apply(faulty);
    try {
      byte[] got = assertTimeoutPreemptively(HANG_GUARD, () -> readAll(store.read("blobs/a", 100, 1000)));
      assertArrayEquals(Arrays.copyOfRange(data, 100, 1100), got);
      assertEquals(2, faulty.reads.get(), "the read was sent twice");
      assertEquals(1, faulty.stalls.get());
    } finally {
      faulty.heal(); // the stalled request answers now, and its stream is closed as the loser
    }
    await("the losing request to answer and its stream to be closed",
        () -> faulty.streamsOpened.get() == 2 && faulty.openStreams.get() == 0);
    assertEquals(2, faulty.reads.get(), "no third request");
  }

  @Test
  void requestsInFlightStayWithinTheBound() throws Exception {
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed);
    // a deadline far beyond this test's waits: the streams it holds open on purpose are not closed under it
    BlobStore store = fast().maxConcurrentRequests(3).requestTimeout(Duration.ofMinutes(10)).build().apply(faulty);
    int readers = 12;
    Semaphore finish = new Semaphore(0);
    List<Thread> threads = new ArrayList<>();
    List<FutureTask<byte[]>> reads = new ArrayList<>();
    for (int t = 0; t < readers; t++) {
      int offset = t * 10;
      FutureTask<byte[]> read = new FutureTask<>(() -> {
        try (InputStream in = store.read("blobs/a", offset, 5000)) {
          byte[] head = in.readNBytes(100);
          finish.acquire(); // holds its request until the test lets it go
          byte[] all = Arrays.copyOf(head, 5000);
          assertEquals(4900, in.readNBytes(all, 100, 4900));
          assertEquals(-1, in.read());
          return all;
        }
      });
      reads.add(read);
      threads.add(new Thread(read, "bounded-read-" + t));
    }
    try {
      threads.forEach(Thread::start);
      // as many as the bound allow get in; every other one is held waiting for a slot, none got past it
      await("3 requests in flight and 9 waiting for a slot",
          () -> faulty.requestsInFlight.get() == 3 && countWaitingIn(threads, RequestLimitingBlobStore.class, "acquireSlot") == 9);
      assertEquals(3, faulty.reads.get(), "no request beyond the bound was sent");
      // one answered lets exactly one more in
      finish.release();
      await("a fourth request in flight and 8 waiting", () -> faulty.reads.get() == 4 && faulty.requestsInFlight.get() == 3
          && countWaitingIn(threads, RequestLimitingBlobStore.class, "acquireSlot") == 8);
      finish.release(readers);
      for (int t = 0; t < readers; t++) {
        FutureTask<byte[]> read = reads.get(t);
        assertArrayEquals(Arrays.copyOfRange(data, t * 10, t * 10 + 5000), assertTimeoutPreemptively(HANG_GUARD, () -> read.get()));
      }
    } finally {
      finish.release(readers);
      threads.forEach(Thread::interrupt);
    }
    assertEquals(readers, faulty.reads.get());
    assertEquals(3, faulty.maxRequestsInFlight.get(), "never more than 3 requests in flight");
    assertEquals(0, faulty.openStreams.get());
  }

  /** How many of {@code threads} are waiting (parked) inside {@code method} of {@code owner}. */
  private static long countWaitingIn(List<Thread> threads, Class<?> owner, String method) {
    return threads.stream().filter(t -> waitingIn(t, owner, method)).count();
  }

  @Test
  void theByteRateBooksTimeForEachRequestInTurn() {
    long[] now = {Long.MAX_VALUE - 700_000_000L}; // System.nanoTime() may be any value, even one about to wrap
    RequestLimitingBlobStore.ByteRate rate = new RequestLimitingBlobStore.ByteRate(1_000_000, () -> now[0]);
    // the first request goes at once; the booked stretch of each next one follows the previous one's
    assertEquals(0, rate.book(500_000), "the first request does not wait");
    assertEquals(500_000_000L, rate.book(500_000), "500 KB at 1 MB/s books 0.5 s");
    now[0] += 200_000_000L;
    assertEquals(800_000_000L, rate.book(500_000), "the time that passed counts towards the wait");
    now[0] += 10_000_000_000L;
    assertEquals(0, rate.book(500_000), "after an idle stretch a request goes at once");
    assertEquals(500_000_000L, rate.book(1), "idle time is not saved up for the next ones");
  }

  @Test
  void aReplayableWriteIsRetriedAndAStreamedOneIsNot() throws IOException {
    AtomicInteger writeFailures = new AtomicInteger(2);
    FilterBlobStore flaky = new FilterBlobStore(fs) {
      @Override
      public void write(String name, InputStream in, long length) throws IOException {
        if (writeFailures.getAndDecrement() > 0) {
          in.read(new byte[10]); // consumed part of the data before failing
          throw new BlobStoreException(describe(), name, "injected write failure", null, true);
        }
        super.write(name, in, length);
      }
    };
    BlobStore store = fast().maxRetries(3).build().apply(flaky);
    store.write("blobs/w", new ByteArrayInputStream(data), data.length);
    assertArrayEquals(data, readAll(fs.read("blobs/w")), "retried from the start of the data");

    writeFailures.set(1);
    InputStream notReplayable = new FilterInputStream(new ByteArrayInputStream(data)) {
      @Override
      public boolean markSupported() {
        return false;
      }
    };
    assertThrows(BlobStoreException.class, () -> store.write("blobs/w2", notReplayable, data.length));
    assertFalse(fs.exists("blobs/w2"));
  }

  @Test
  void thePolicyComesFromTheUriAndIsAppliedOnce() throws IOException {
    URI uri = URI.create("file://" + tmp.resolve("u") + "?fsync=false&max_retries=7&request_timeout=2s"
        + "&min_read_throughput=2mb&hedge_after=250ms&max_bytes_per_sec=100mb&max_concurrent_requests=5"
        + "&first_byte_latency=100ms&read_throughput=10mb");
    try (BlobStore store = BlobStores.open(uri)) {
      StorePolicy policy = StorePolicy.of(store);
      assertEquals(7, policy.maxRetries());
      assertEquals(Duration.ofSeconds(2), policy.requestTimeout());
      assertEquals(2 << 20, policy.minReadThroughput());
      assertEquals(Duration.ofMillis(250), policy.hedgeAfter());
      assertEquals(100L << 20, policy.maxBytesPerSec());
      assertEquals(5, policy.maxConcurrentRequests());
      assertEquals(Duration.ofMillis(100), policy.firstByteLatency());
      assertEquals(10 << 20, policy.readThroughput());
      assertEquals((10 << 20) / 10, policy.bridgedGapBytes(), "what the store sends in one first-byte latency");
      assertTrue(policy.toString().contains("first_byte_latency=100ms"), policy.toString());
      IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> policy.apply(store));
      assertTrue(twice.getMessage().contains("already has a store policy"), twice.getMessage());
      assertSame(store, SnapshotRepository.open(store).store(), "a governed store is used as it is");
    }
    assertInstanceOf(RetryingBlobStore.class, SnapshotRepository.open(fs).store(),
        "a bare store gets the default policy");
    for (String bad : new String[] {"max_retries=-1", "request_timeout=0s", "min_read_throughput=0", "retry_delay=soon",
        "hedge_after=-5s", "retry_delay=10s&retry_max_delay=1s", "first_byte_latency=-1ms", "read_throughput=0"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> BlobStores.open(URI.create("file://" + tmp.resolve("b") + "?" + bad)), bad);
      String setting = bad.substring(bad.lastIndexOf('&') + 1, bad.lastIndexOf('='));
      assertTrue(e.getMessage().contains(setting) || e.getMessage().contains(bad.substring(0, bad.indexOf('='))), e.getMessage());
    }
  }

}
