/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How the backend fails: which errors are {@linkplain BlobStoreException#isRetryable() retryable} (on the local
 * MinIO, and on a fake endpoint for the statuses MinIO will not produce on demand), that the SDK makes a single
 * attempt so that the store policy's retries are the only ones, and that a read stream closed from another thread
 * aborts its request and fails the blocked read.
 */
class S3FailureTest {
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private static void put(BlobStore store, String name, byte[] data) throws IOException {
    store.write(name, new ByteArrayInputStream(data), data.length);
  }

  private static URI uri(FakeS3Server server, String query) {
    return URI.create("s3://bucket/p?endpoint=" + server.endpoint() + "&access_key=a&secret_key=b&" + query);
  }

  // ------------------------------------------------------------------------------------ classification on MinIO

  @Test
  void aMissingBlobIsNotFoundAndNotRetryable() throws IOException {
    try (BlobStore store = S3TestStores.newStore()) {
      put(store, "present", new byte[10]); // the bucket exists: a 404 is about the blob
      for (Executable operation : List.<Executable>of(
          () -> store.read("missing").close(), () -> store.read("missing", 0, 5).close(),
          () -> store.read("missing", 3, 0).close(), () -> store.length("missing"))) {
        BlobNotFoundException e = assertThrows(BlobNotFoundException.class, operation);
        assertFalse(e.isRetryable(), e.getMessage());
        assertEquals("missing", e.blobName());
      }
      assertFalse(store.exists("missing"));
      store.delete("missing"); // deleting a missing blob is no error
    }
  }

  @Test
  void aRangePastTheEndIsNotRetryable() throws IOException {
    try (BlobStore store = S3TestStores.newStore()) {
      put(store, "blob", new byte[1000]);
      for (long[] range : new long[][] {{990, 20}, {1000, 1}, {5000, 10}, {1001, 0}}) {
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.read("blob", range[0], range[1]).close());
        assertFalse(e.isRetryable(), e.getMessage());
        assertTrue(e.getMessage().contains("past the end"), e.getMessage());
      }
    }
  }

  @Test
  void wrongCredentialsAreNotRetryable() throws IOException {
    S3TestStores.newStore().close(); // makes sure the test bucket exists
    try (S3BlobStore wrongSecret = S3TestStores.baseBuilder().bucket(S3TestStores.BUCKET).prefix("p")
            .credentials(S3TestStores.accessKey(), "wrong-" + UUID.randomUUID()).build();
        S3BlobStore unknownKey = S3TestStores.baseBuilder().bucket(S3TestStores.BUCKET).prefix("p")
            .credentials("no-such-access-key", "some-secret").build()) {
      for (S3BlobStore store : List.of(wrongSecret, unknownKey)) {
        for (Executable operation : List.<Executable>of(
            () -> put(store, "a", new byte[10]), () -> store.read("a").close(), () -> store.read("a", 1, 2).close(),
            () -> store.length("a"), () -> store.list(""), () -> store.deleteAll(List.of("a")))) {
          BlobStoreException e = assertThrows(BlobStoreException.class, operation);
          assertFalse(e instanceof BlobNotFoundException, e.getMessage());
          assertFalse(e.isRetryable(), e.getMessage());
        }
      }
    }
  }

  @Test
  void aMissingBucketIsNotRetryable() throws IOException {
    try (S3BlobStore store = S3TestStores.baseBuilder().bucket("permafrost-missing-" + UUID.randomUUID()).build()) {
      for (Executable operation : List.<Executable>of(
          () -> put(store, "a", new byte[10]), () -> store.read("a", 0, 5).close(), () -> store.length("a"),
          () -> store.list(""))) {
        BlobStoreException e = assertThrows(BlobStoreException.class, operation);
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        assertFalse(e.isRetryable(), e.getMessage());
      }
    }
  }

  @Test
  void anEndpointWhereNothingListensIsRetryable() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    try (S3BlobStore store = S3BlobStore.builder().bucket("bucket").prefix("p").endpoint("http://127.0.0.1:" + port)
        .credentials("a", "b").connectTimeout(Duration.ofSeconds(1)).build()) {
      for (Executable operation : List.<Executable>of(
          () -> put(store, "a", new byte[10]), () -> store.read("a").close(), () -> store.read("a", 0, 3).close(),
          () -> store.length("a"), () -> store.list(""), () -> store.delete("a"))) {
        BlobStoreException e = assertThrows(BlobStoreException.class, operation);
        assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
        assertTrue(e.isRetryable(), e.getMessage());
      }
    }
  }

  // ------------------------------------------------------------------------ classification on a fake endpoint

  @ParameterizedTest(name = "{0} {1} -> retryable {2}")
  @CsvSource({
      "500, InternalError, true",
      "503, SlowDown, true",
      "503, ServiceUnavailable, true",
      "429, TooManyRequests, true",
      "400, RequestTimeout, true",
      "400, InvalidArgument, false",
      "403, AccessDenied, false",
      "403, SignatureDoesNotMatch, false",
      "401, Unauthorized, false",
      "412, PreconditionFailed, false",
      "416, InvalidRange, false",
  })
  void errorResponsesAreClassifiedAndSentOnce(int status, String code, boolean retryable) throws IOException {
    try (FakeS3Server server = FakeS3Server.start(FakeS3Server.error(status, code));
        S3BlobStore store = server.storeBuilder().build()) {
      BlobStoreException get = assertThrows(BlobStoreException.class, () -> store.read("blob", 0, 10).close());
      assertEquals(retryable, get.isRetryable(), get.getMessage());
      assertFalse(get instanceof BlobNotFoundException, get.getMessage());
      // A 416 asks for the blob's length (a HEAD) to name it in the message; anything else is one GET.
      int expected = status == 416 ? 2 : 1;
      assertEquals(expected, server.requests(), "requests for one GET that failed with " + status + " " + code);
      if (status != 416) {
        assertTrue(get.getMessage().contains("S3 status " + status), get.getMessage());
      }

      // A HEAD's error response has no body, hence no code: the status alone decides.
      BlobStoreException head = assertThrows(BlobStoreException.class, () -> store.length("blob"));
      boolean headRetryable = status >= 500 || status == 429;
      assertEquals(headRetryable, head.isRetryable(), head.getMessage());
      assertEquals(expected + 1, server.requests());
    }
  }

  @Test
  void aResponseCutShortIsRetryable() throws IOException {
    try (FakeS3Server server = FakeS3Server.start(FakeS3Server::partialThenHangUp);
        S3BlobStore store = server.storeBuilder().build()) {
      for (boolean ranged : new boolean[] {true, false}) {
        try (InputStream in = ranged ? store.read("blob", 0, 1000) : store.read("blob")) {
          BlobStoreException e = assertThrows(BlobStoreException.class, in::readAllBytes);
          assertTrue(e.isRetryable(), e.getMessage());
          assertTrue(e.getMessage().contains("offset 100"), e.getMessage());
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------- no stacked retries

  @Test
  void theSdkMakesOneAttemptAndThePolicyRetries() throws IOException {
    try (FakeS3Server server = FakeS3Server.start(FakeS3Server.error(503, null))) {
      try (S3BlobStore raw = server.storeBuilder().build()) {
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> raw.length("blob"));
        assertTrue(e.isRetryable(), e.getMessage());
        assertEquals(1, server.requests(), "requests for one length() of a raw store");
        e = assertThrows(BlobStoreException.class, () -> raw.read("blob", 0, 10).close());
        assertTrue(e.isRetryable(), e.getMessage());
        assertEquals(2, server.requests(), "requests for one ranged read of a raw store");
      }

      try (BlobStore withPolicy = BlobStores.open(uri(server, "max_retries=2&retry_delay=10ms&retry_max_delay=20ms"))) {
        assertEquals(2, StorePolicy.of(withPolicy).maxRetries());
        int before = server.requests();
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> withPolicy.length("blob"));
        assertEquals(3, server.requests() - before, "requests for one length() with max_retries=2");
        assertTrue(e.isRetryable(), e.getMessage());
        assertTrue(e.getMessage().contains("gave up after 3 attempts"), e.getMessage());

        before = server.requests();
        e = assertThrows(BlobStoreException.class, () -> withPolicy.read("blob", 0, 10).close());
        assertEquals(3, server.requests() - before, "requests for one ranged read with max_retries=2");
        assertTrue(e.isRetryable(), e.getMessage());
        assertTrue(e.getMessage().contains("gave up after 3 attempts"), e.getMessage());
      }
    }
  }

  @Test
  void blobStoresOpenPutsThePolicyAroundTheBackend() throws IOException {
    try (BlobStore store = BlobStores.open(URI.create("s3://bucket/p?endpoint=http://127.0.0.1:1&max_retries=5"))) {
      StorePolicy policy = StorePolicy.of(store);
      assertNotNull(policy, "BlobStores.open must apply a store policy");
      assertEquals(5, policy.maxRetries());
      assertInstanceOf(S3BlobStore.class, FilterBlobStore.unwrap(store));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> S3BlobStore.builder().bucket("b").endpoint("http://127.0.0.1:1").setting("max_retries", "2").build());
    assertTrue(e.getMessage().contains("max_retries"), "the backend has no max_retries setting of its own: " + e.getMessage());
  }

  // ---------------------------------------------------------------------------- closing from another thread

  @Test
  void closingAStreamFromAnotherThreadFailsTheBlockedRead() throws Exception {
    try (FakeS3Server server = FakeS3Server.start(FakeS3Server::partialThenStall);
        S3BlobStore store = server.storeBuilder().readTimeout(Duration.ofSeconds(60)).build()) {
      for (boolean ranged : new boolean[] {true, false}) {
        InputStream in = ranged ? store.read("blob", 0, 1000) : store.read("blob");
        assertEquals(100, in.readNBytes(100).length);
        FutureTask<IOException> reader = new FutureTask<>(() -> {
          try {
            in.read(new byte[100]);
            return null;
          } catch (IOException e) {
            return e;
          }
        });
        Thread readerThread = new Thread(reader, "blocked-reader");
        readerThread.setDaemon(true);
        readerThread.start();
        awaitBlockedInRead(readerThread);
        assertFalse(reader.isDone(), "the read should be blocked on the stalled response");

        // read_timeout is 60 s and the server never sends the rest: anything well under that is the abort's doing,
        // so 20 s holds on a slow, busy 2-core machine and still tells an abort from a drain or a read timeout
        long start = System.nanoTime();
        in.close(); // from this thread, while the reader blocks
        long closeMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(closeMillis < 20_000, "close() must abort, not drain the stalled response; took " + closeMillis + " ms");

        IOException failure = reader.get(20, TimeUnit.SECONDS);
        assertNotNull(failure, "the blocked read must fail, not return");
        BlobStoreException e = assertInstanceOf(BlobStoreException.class, failure);
        assertFalse(e.isRetryable(), e.getMessage());
        assertTrue(e.getMessage().contains("the stream was closed while it was being read"), e.getMessage());
        assertThrows(IOException.class, in::read);
        in.close(); // again: nothing happens
      }
    }
  }

  @Test
  void theDeadlineOfThePolicyAbortsAStalledRead() throws Exception {
    try (FakeS3Server server = FakeS3Server.start(FakeS3Server::partialThenStall);
        BlobStore store = BlobStores.open(uri(server, "request_timeout=1s&max_retries=0&read_timeout=60s"))) {
      long start = System.nanoTime();
      try (InputStream in = store.read("blob", 0, 1000)) {
        Future<byte[]> reader = threads.submit(in::readAllBytes);
        ExecutionException failure = assertThrows(ExecutionException.class, () -> reader.get(30, TimeUnit.SECONDS));
        assertInstanceOf(BlobStoreTimeoutException.class, failure.getCause());
      }
      // only the deadline (1 s) or read_timeout (60 s) can end the read: 30 s tells them apart even on a slow, busy
      // 2-core machine
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(millis < 30_000, "the deadline (about 1s) must end the read long before read_timeout; took " + millis + " ms");
      assertEquals(1, server.requests());
    }
  }

  @Test
  void aStreamReadToItsEndKeepsItsConnectionAndOneClosedEarlyDropsIt() throws IOException {
    try (FakeS3Server server = FakeS3Server.start(FakeS3Server::serveBlob);
        S3BlobStore store = server.storeBuilder().build()) {
      byte[] expected = new byte[FakeS3Server.BLOB_LENGTH];
      for (int i = 0; i < expected.length; i++) {
        expected[i] = (byte) i;
      }
      try (InputStream in = store.read("blob", 0, 1000)) {
        assertArrayEquals(expected, in.readAllBytes());
      }
      try (InputStream in = store.read("blob", 0, 1000)) {
        assertArrayEquals(expected, in.readNBytes(1000)); // every byte, but never sees the end of stream
      }
      try (InputStream in = store.read("blob", 10, 5)) {
        assertArrayEquals(Arrays.copyOfRange(expected, 10, 15), in.readAllBytes());
      }
      try (InputStream in = store.read("blob", 0, 1000)) {
        assertEquals(10, in.readNBytes(10).length); // closed early: aborted
      }
      try (InputStream in = store.read("blob")) {
        assertArrayEquals(expected, in.readAllBytes());
      }
      // The server ignores the range and sends all 1000 bytes: the 5 asked for are not the end of the response.
      try (InputStream in = store.read("ignores-range", 10, 5)) {
        assertArrayEquals(Arrays.copyOfRange(expected, 10, 15), in.readAllBytes());
      }
      try (InputStream in = store.read("blob")) {
        assertArrayEquals(expected, in.readAllBytes());
      }
      List<Integer> ports = server.clientPorts();
      assertEquals(7, ports.size());
      assertEquals(ports.get(0), ports.get(1), "a stream read to its end must give its connection back: " + ports);
      assertEquals(ports.get(0), ports.get(2), "a stream read to its end must give its connection back: " + ports);
      assertEquals(ports.get(0), ports.get(3), "a stream read to its end must give its connection back: " + ports);
      assertNotEquals(ports.get(3), ports.get(4), "a stream closed early must drop its connection: " + ports);
      assertEquals(ports.get(4), ports.get(5), "a stream read to its end must give its connection back: " + ports);
      assertNotEquals(ports.get(5), ports.get(6),
          "a stream whose response goes on past the range must drop its connection, not drain it: " + ports);
    }
  }

  /**
   * Waits until {@code reader} is inside the store's stream, in a socket read, and still there on five samples in a
   * row (so it is blocked there, not passing through). The 60 s bound only turns a hang into a failure.
   */
  private static void awaitBlockedInRead(Thread reader) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int seen = 0;
    while (System.nanoTime() < deadline) {
      if (!reader.isAlive()) {
        fail("the reader ended instead of blocking");
      }
      seen = isBlockedInRead(reader) ? seen + 1 : 0;
      if (seen >= 5) {
        return;
      }
      Thread.sleep(20);
    }
    fail("the reader never blocked in a read: " + reader.getState() + " " + List.of(reader.getStackTrace()));
  }

  private static boolean isBlockedInRead(Thread reader) {
    boolean inStream = false;
    boolean inSocketRead = false;
    for (StackTraceElement frame : reader.getStackTrace()) {
      inStream |= frame.getClassName().endsWith("S3BlobStore$ObjectStream") && frame.getMethodName().equals("read");
      inSocketRead |= frame.getClassName().contains("Socket") && frame.getMethodName().contains("read");
    }
    return inStream && inSocketRead;
  }
}
