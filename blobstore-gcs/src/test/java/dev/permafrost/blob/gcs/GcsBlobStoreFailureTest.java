/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpExchange;
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
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the backend fails: whether each failure says it may pass ({@link BlobStoreException#isRetryable()}), that
 * the GCS client makes exactly one attempt per request (the store policy being the only retry layer), and that a
 * read stream closed from another thread aborts a read blocked on it. Against fake-gcs-server, and against local
 * HTTP servers that misbehave on purpose.
 */
class GcsBlobStoreFailureTest {
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

  /** A store on {@code endpoint} without a store policy, as the builder makes it. */
  private static GcsBlobStore rawStore(String endpoint, String... settings) throws IOException {
    GcsBlobStore.Builder b = GcsBlobStore.builder().bucket("bucket").prefix("p").endpoint(endpoint).noCredentials();
    for (int i = 0; i < settings.length; i += 2) {
      b.setting(settings[i], settings[i + 1]);
    }
    return b.build();
  }

  /** Every kind of call, each of which sends one request to a server that answers with an error. */
  private static Map<String, Executable> oneRequestCalls(BlobStore store) {
    Map<String, Executable> calls = new LinkedHashMap<>();
    calls.put("length", () -> store.length("blob"));
    calls.put("exists", () -> store.exists("blob"));
    calls.put("ranged read", () -> store.read("blob", 100, 1000).close());
    calls.put("whole read", () -> store.read("blob").close());
    calls.put("write", () -> store.write("blob", new ByteArrayInputStream(new byte[10]), 10));
    calls.put("resumable write", () -> store.write("big", new ByteArrayInputStream(new byte[6 << 20]), 6 << 20));
    calls.put("list", () -> store.list(""));
    calls.put("delete", () -> store.delete("blob"));
    return calls;
  }

  // ------------------------------------------------------------------------------------- classification

  @Test
  void aMissingBlobIsNotFoundAndNotRetryable() throws IOException {
    try (BlobStore store = GcsTestStores.newStore()) {
      for (Executable call : List.<Executable>of(
          () -> store.read("nope"), () -> store.read("nope", 10, 5), () -> store.length("nope"))) {
        BlobNotFoundException e = assertThrows(BlobNotFoundException.class, call);
        assertFalse(e.isRetryable(), e.getMessage());
      }
    }
  }

  @Test
  void aRangePastTheEndIsNotRetryable() throws IOException {
    try (BlobStore store = GcsTestStores.newStore()) {
      store.write("r", new ByteArrayInputStream(new byte[1000]), 1000);
      for (long[] range : new long[][] {{990, 20}, {1000, 1}, {5000, 10}, {1001, 0}}) {
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> {
          try (InputStream in = store.read("r", range[0], range[1])) {
            in.readAllBytes();
          }
        });
        assertFalse(e instanceof BlobNotFoundException, e.getMessage());
        assertTrue(e.getMessage().contains("past the end"), e.getMessage());
        assertFalse(e.isRetryable(), "a range past the end stays past the end: " + e.getMessage());
      }
    }
  }

  @Test
  void anEndpointWhereNothingListensIsRetryable() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } // closed: nothing listens there now
    try (GcsBlobStore store = rawStore("http://127.0.0.1:" + port, "connect_timeout", "2s")) {
      for (Map.Entry<String, Executable> call : oneRequestCalls(store).entrySet()) {
        BlobStoreException e = assertThrows(BlobStoreException.class, call.getValue(), call.getKey());
        assertTrue(e.isRetryable(), call.getKey() + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("connection refused"), call.getKey() + ": " + e.getMessage());
      }
    }
  }

  @Test
  void anUnknownHostIsNotRetryable() throws IOException {
    // .invalid never resolves (RFC 2606).
    try (GcsBlobStore store = rawStore("http://no-such-host.invalid:4443", "connect_timeout", "5s")) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.length("blob"));
      assertFalse(e.isRetryable(), e.getMessage());
      assertTrue(e.getMessage().contains("cannot be resolved"), e.getMessage());
    }
  }

  @Test
  void httpStatusesAreClassified() throws IOException {
    record Case(int status, String reason, boolean retryable, String says) {}
    for (Case c : List.of(
        new Case(500, "backendError", true, "server error"),
        new Case(503, "backendError", true, "server error"),
        new Case(502, "badGateway", true, "server error"),
        new Case(408, "requestTimeout", true, "server error"),
        new Case(429, "rateLimitExceeded", true, "throttling"),
        new Case(403, "rateLimitExceeded", true, "throttling"),
        new Case(403, "userRateLimitExceeded", true, "throttling"),
        new Case(403, "forbidden", false, "permission denied"),
        new Case(401, "required", false, "rejected the credentials"),
        new Case(400, "invalid", false, "HTTP 400"),
        new Case(412, "conditionNotMet", false, "HTTP 412"))) {
      try (LocalHttpServer server = LocalHttpServer.answering(c.status(), c.reason());
          GcsBlobStore store = rawStore(server.endpoint())) {
        for (Map.Entry<String, Executable> call : Map.of(
            "length", (Executable) () -> store.length("blob"),
            "ranged read", () -> store.read("blob", 0, 100).close()).entrySet()) {
          String what = c.status() + " " + c.reason() + ", " + call.getKey();
          int before = server.requestCount();
          BlobStoreException e = assertThrows(BlobStoreException.class, call.getValue(), what);
          assertEquals(c.retryable(), e.isRetryable(), what + ": " + e.getMessage());
          assertTrue(e.getMessage().contains(c.says()), what + ": " + e.getMessage());
          assertEquals(1, server.requestCount() - before, what + ": " + server.requests());
        }
      }
    }
  }

  @Test
  void aConnectionClosedWithoutAResponseIsRetryable() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      AtomicInteger accepted = new AtomicInteger();
      Thread acceptor = new Thread(() -> {
        while (!listener.isClosed()) {
          try (Socket s = listener.accept()) {
            accepted.incrementAndGet(); // and hang up at once
          } catch (IOException e) {
            return;
          }
        }
      }, "hang-up-server");
      acceptor.setDaemon(true);
      acceptor.start();
      try (GcsBlobStore store = rawStore("http://127.0.0.1:" + listener.getLocalPort())) {
        for (Map.Entry<String, Executable> call : Map.of(
            "length", (Executable) () -> store.length("blob"),
            "ranged read", () -> store.read("blob", 0, 100).close()).entrySet()) {
          int before = accepted.get();
          BlobStoreException e = assertThrows(BlobStoreException.class, call.getValue(), call.getKey());
          assertTrue(e.isRetryable(), call.getKey() + ": " + e.getMessage());
          assertTrue(e.getMessage().contains("connection"), call.getKey() + ": " + e.getMessage());
          // No SDK retry; but the JDK's HTTP client sends a GET once more when its connection is closed before
          // any byte of the response (its guard against stale pooled connections): the server never answered.
          int connections = accepted.get() - before;
          assertTrue(connections >= 1 && connections <= 2, call.getKey() + ": " + connections + " connections");
        }
      }
    }
  }

  @Test
  void aResponseCutShortIsRetryable() throws IOException {
    // The server promises the whole range, sends 20 KiB of it and closes the connection.
    try (LocalHttpServer server = LocalHttpServer.start(exchange -> {
          long length = servePartialRange(exchange, 20 << 10);
          if (length < 0) {
            LocalHttpServer.sendError(exchange, 404, "notFound");
          }
        });
        GcsBlobStore store = rawStore(server.endpoint())) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> {
        try (InputStream in = store.read("blob", 0, 100_000)) {
          in.readAllBytes();
        }
      });
      assertTrue(e.isRetryable(), e.getMessage());
      assertTrue(e.getMessage().contains("blob") && e.getMessage().contains(server.endpoint()), e.getMessage());
      assertEquals(1, server.requestCount(), "the SDK must not resume the read by itself: " + server.requests());
    }
  }

  // ------------------------------------------------------------------------------------- one retry layer

  @Test
  void theGcsClientMakesOneAttemptPerRequest() throws IOException {
    try (LocalHttpServer server = LocalHttpServer.answering(503, "backendError");
        GcsBlobStore store = rawStore(server.endpoint(), "single_upload_threshold", "1mb")) {
      for (Map.Entry<String, Executable> call : oneRequestCalls(store).entrySet()) {
        int before = server.requestCount();
        BlobStoreException e = assertThrows(BlobStoreException.class, call.getValue(), call.getKey());
        assertTrue(e.isRetryable(), call.getKey() + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("503"), call.getKey() + ": " + e.getMessage());
        assertEquals(1, server.requestCount() - before, call.getKey() + ": " + server.requests());
      }
    }
  }

  /**
   * On a 401 the credentials refresh their token and the request goes out once more with it (how an expired or
   * revoked token is replaced), and no more: left alone, google-http-client would repeat this up to 10 times.
   */
  @Test
  void anUnauthorizedRequestIsSentAgainOnceWithAFreshToken(@TempDir Path dir) throws Exception {
    AtomicInteger tokens = new AtomicInteger();
    try (LocalHttpServer server = LocalHttpServer.start(exchange -> {
      if (exchange.getRequestURI().getPath().equals("/token")) {
        exchange.getRequestBody().readAllBytes();
        LocalHttpServer.sendJson(exchange, 200, "{\"access_token\":\"token-" + tokens.incrementAndGet()
            + "\",\"expires_in\":3600,\"token_type\":\"Bearer\"}");
      } else {
        LocalHttpServer.sendError(exchange, 401, "required");
      }
    })) {
      Path key = serviceAccountKey(dir, server.endpoint() + "/token");
      try (GcsBlobStore store = GcsBlobStore.builder().bucket("bucket").prefix("p").endpoint(server.endpoint())
          .credentialsFile(key).build()) {
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.length("blob"));
        assertFalse(e.isRetryable(), e.getMessage());
        assertTrue(e.getMessage().contains("rejected the credentials"), e.getMessage());
        long gcsRequests = server.requests().stream().filter(r -> !r.contains("/token")).count();
        assertEquals(2, gcsRequests, "the request, and once more with a refreshed token: " + server.requests());
        // The first token, the refreshed one, and one more refreshed after the last 401 for the next request.
        assertTrue(tokens.get() <= 3, "token requests: " + server.requests());
      }
    }
  }

  @Test
  void theStorePolicyIsTheOnlyRetryLayer() throws IOException {
    try (LocalHttpServer server = LocalHttpServer.answering(503, "backendError");
        BlobStore store = BlobStores.open(URI.create("gs://bucket/p?endpoint=" + server.endpoint()
            + "&credentials=none&max_retries=2&retry_delay=10ms&retry_max_delay=20ms"))) {
      assertEquals(2, StorePolicy.of(store).maxRetries());
      assertInstanceOf(GcsBlobStore.class, FilterBlobStore.unwrap(store));
      for (Map.Entry<String, Executable> call : Map.of(
          "length", (Executable) () -> store.length("blob"),
          "ranged read", () -> store.read("blob", 0, 100).close()).entrySet()) {
        int before = server.requestCount();
        BlobStoreException e = assertThrows(BlobStoreException.class, call.getValue(), call.getKey());
        assertEquals(3, server.requestCount() - before, call.getKey() + ": " + server.requests());
        assertTrue(e.isRetryable(), call.getKey() + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("gave up after 3 attempts"), call.getKey() + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("503"), call.getKey() + ": " + e.getMessage());
      }
    }
  }

  // ------------------------------------------------------------------------------------- aborting reads

  @Test
  void closingAStreamFromAnotherThreadAbortsABlockedRead() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Boolean> restFailed = new CompletableFuture<>();
    try (LocalHttpServer server = LocalHttpServer.start(exchange -> stall(exchange, 64 << 10, release, restFailed));
        GcsBlobStore store = rawStore(server.endpoint(), "read_timeout", "60s")) {
      InputStream in = store.read("blob", 0, 1 << 20);
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      Thread reader = new Thread(() -> {
        try {
          in.readNBytes(1 << 20);
          outcome.complete(null);
        } catch (Throwable t) {
          outcome.complete(t);
        }
      }, "blocked-reader");
      reader.setDaemon(true);
      reader.start();
      awaitBlockedInRead(reader);

      // read_timeout is 60s and the server sends nothing more until released: only the abort can end the read well
      // before that, so bounds of 20s hold on a slow, busy 2-core machine and still tell an abort from a wait
      long start = System.nanoTime();
      in.close();
      long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      Throwable failure = outcome.get(20, TimeUnit.SECONDS);
      long failMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertTrue(closeMillis < 20_000, "close() must not wait for the blocked read, took " + closeMillis + "ms");
      BlobStoreException e = assertInstanceOf(BlobStoreException.class, failure);
      assertTrue(e.getMessage().contains("closed") && e.getMessage().contains("aborted")
          && e.getMessage().contains("blob"), e.getMessage());
      assertFalse(e.isRetryable(), e.getMessage());
      assertTrue(failMillis < 20_000, "the blocked read must fail promptly, took " + failMillis + "ms");
      assertThrows(IOException.class, in::read, "reads after close fail");
      in.close(); // twice is fine

      release.countDown(); // the server now tries to send the rest of the body
      assertTrue(restFailed.get(60, TimeUnit.SECONDS), // the bound only turns a hang into a failure
          "the server could send the rest of the body: the connection was kept (or drained), not closed");
    } finally {
      release.countDown();
    }
  }

  @Test
  void theStorePolicyDeadlineAbortsAStalledRead() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (LocalHttpServer server = LocalHttpServer.start(exchange -> stall(exchange, 64 << 10, release, null));
        BlobStore store = BlobStores.open(URI.create("gs://bucket/p?endpoint=" + server.endpoint()
            + "&credentials=none&read_timeout=60s&request_timeout=1s&min_read_throughput=1gb&max_retries=0"))) {
      long start = System.nanoTime();
      try (InputStream in = store.read("blob", 0, 1 << 20)) {
        BlobStoreTimeoutException e = assertThrows(BlobStoreTimeoutException.class, () -> in.readNBytes(1 << 20));
        assertTrue(e.getMessage().contains("timed out") && e.getMessage().contains("blob"), e.getMessage());
      }
      // only the deadline (1s) or read_timeout (60s) can end the read: 30s tells them apart even on a slow, busy machine
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(millis < 30_000, "the deadline (1s) must end the read long before read_timeout; took " + millis + "ms");
    } finally {
      release.countDown();
    }
  }

  @Test
  void aStreamReadToItsEndClosesNormally() throws IOException {
    try (BlobStore store = GcsTestStores.newStore()) {
      byte[] data = new byte[50_000];
      new Random(7).nextBytes(data);
      store.write("b", new ByteArrayInputStream(data), data.length);
      for (int i = 0; i < 20; i++) { // complete reads, partial reads and early closes, one after the other
        try (InputStream in = store.read("b", 1000, 40_000)) {
          if (i % 3 == 0) {
            assertEquals(40_000, in.readAllBytes().length);
          } else if (i % 3 == 1) {
            assertEquals(data[1000] & 0xFF, in.read());
          }
        }
        try (InputStream in = store.read("b")) {
          assertEquals(i % 2 == 0 ? data.length : 1, i % 2 == 0 ? in.readAllBytes().length : in.readNBytes(1).length);
        }
      }
      assertEquals(data.length, store.length("b"));
    }
  }

  // ------------------------------------------------------------------------------------- helpers

  /**
   * Answers a media request with the status and headers of its whole range but only {@code send} bytes of it,
   * then ends the exchange (closing the connection, as the body is short). Returns the range's length, or -1 if
   * the request was none of this (metadata requests get a JSON object).
   */
  private static long servePartialRange(HttpExchange exchange, int send) throws IOException {
    if (!LocalHttpServer.isMediaRequest(exchange)) {
      LocalHttpServer.sendJson(exchange, 200, "{\"bucket\":\"bucket\",\"name\":\"p/blob\",\"size\":\"10000000\"}");
      return 0;
    }
    String range = exchange.getRequestHeaders().getFirst("Range");
    Matcher m = range == null ? null : RANGE.matcher(range);
    if (m == null || !m.find()) {
      return -1;
    }
    long first = Long.parseLong(m.group(1));
    long last = Long.parseLong(m.group(2));
    long length = last - first + 1;
    exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
    exchange.getResponseHeaders().set("Content-Range", "bytes " + first + "-" + last + "/10000000");
    exchange.sendResponseHeaders(206, length);
    OutputStream out = exchange.getResponseBody();
    out.write(new byte[(int) Math.min(send, length)]);
    out.flush();
    return length;
  }

  /**
   * Sends headers and the first {@code send} bytes of the range, then stalls until {@code release}; then, if
   * {@code restFailed} is given, tries to send the rest and completes it with whether that failed.
   */
  private static void stall(HttpExchange exchange, int send, CountDownLatch release,
      CompletableFuture<Boolean> restFailed) throws Exception {
    long length = servePartialRange(exchange, send);
    if (length < 0) {
      LocalHttpServer.sendError(exchange, 400, "invalid");
      return;
    }
    release.await(60, TimeUnit.SECONDS);
    if (restFailed != null && length > 0) {
      try {
        OutputStream out = exchange.getResponseBody();
        byte[] chunk = new byte[8192];
        // loopback send buffers can take most of the rest before the client's reset arrives: the last 64 bytes go
        // one at a time, 20 ms apart, so that a closed connection fails one of them; one kept open (or drained) takes
        // them all
        long tail = Math.min(64, length - send);
        for (long left = length - send - tail; left > 0; left -= chunk.length) {
          out.write(chunk, 0, (int) Math.min(chunk.length, left));
        }
        out.flush();
        for (long i = 0; i < tail; i++) {
          Thread.sleep(20);
          out.write(0);
          out.flush();
        }
        restFailed.complete(false);
      } catch (IOException e) {
        restFailed.complete(true);
      }
    }
  }

  /** A service-account key file with a fresh RSA key, whose tokens come from {@code tokenUri}. */
  private static Path serviceAccountKey(Path dir, String tokenUri) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair pair = generator.generateKeyPair();
    String pem = "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(pair.getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
    Path file = dir.resolve("sa.json");
    Files.writeString(file, "{\n"
        + "  \"type\": \"service_account\",\n"
        + "  \"project_id\": \"permafrost-test\",\n"
        + "  \"private_key_id\": \"0123456789abcdef\",\n"
        + "  \"private_key\": \"" + pem.replace("\n", "\\n") + "\",\n"
        + "  \"client_email\": \"tester@permafrost-test.iam.gserviceaccount.com\",\n"
        + "  \"client_id\": \"1234567890\",\n"
        + "  \"token_uri\": \"" + tokenUri + "\"\n"
        + "}\n");
    return file;
  }

  /**
   * Waits until {@code reader} is blocked inside the store's stream waiting for data: parked (the HTTP client
   * hands the body over through a queue) or in a socket read, and still there a moment later.
   */
  private static void awaitBlockedInRead(Thread reader) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // only turns a hang into a failure
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
    Thread.State state = reader.getState();
    StackTraceElement[] stack = reader.getStackTrace();
    boolean inStream = false;
    boolean inSocketRead = false;
    for (StackTraceElement frame : stack) {
      inStream |= frame.getClassName().endsWith("GcsBlobStore$GcsInputStream");
      inSocketRead |= frame.getClassName().contains("Socket") && frame.getMethodName().contains("read");
    }
    return inStream && (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || inSocketRead);
  }
}
