/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.azure.core.util.Context;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import com.sun.net.httpserver.HttpServer;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Failures the emulator cannot produce, from small HTTP servers on 127.0.0.1: server errors (to check that the SDK
 * sends each request once and the store policy alone retries), time-outs, responses cut off or ending short, and
 * a response that stalls while a read waits for it (to check that closing the stream from another thread aborts
 * the request); and which connections closing a store closes (its own, not those of a client it was given).
 */
class AzureFaultTest {
  private static final String ACCOUNT = "devstoreaccount1";
  /** Any well-formed key: these servers check no signature. */
  private static final String KEY = Base64.getEncoder().encodeToString(new byte[64]);

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String endpoint(int port) {
    return "http://127.0.0.1:" + port + "/" + ACCOUNT;
  }

  private static AzureBlobStore.Builder rawStore(int port) {
    return AzureBlobStore.builder().container("faults").prefix("p").endpoint(endpoint(port)).account(ACCOUNT).accountKey(KEY);
  }

  // ------------------------------------------------------------------------------------------ one layer of retries

  /** Answers every request with 503 and counts them. */
  private static final class UnavailableServer implements AutoCloseable {
    final HttpServer server;
    final AtomicInteger requests = new AtomicInteger();

    UnavailableServer() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/", exchange -> {
        requests.incrementAndGet();
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(503, -1);
        exchange.close();
      });
      server.start();
    }

    int port() {
      return server.getAddress().getPort();
    }

    /** The requests counted since the last call. */
    int take() {
      return requests.getAndSet(0);
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  @Test
  void theSdkSendsEachRequestOnce() throws IOException {
    try (UnavailableServer server = new UnavailableServer(); AzureBlobStore store = rawStore(server.port()).build()) {
      List<Executable> operations = List.of(
          () -> store.length("x"),
          () -> store.read("x", 0, 10),
          () -> store.read("x"),
          () -> store.list(""),
          () -> store.write("x", new ByteArrayInputStream(new byte[10]), 10));
      for (Executable op : operations) {
        BlobStoreException e = assertThrows(BlobStoreException.class, op);
        assertEquals(1, server.take(), "one request, no SDK retry: " + e.getMessage());
        assertTrue(e.isRetryable(), "a 503 may pass next time: " + e.getMessage());
        assertTrue(e.getMessage().contains("HTTP 503"), e.getMessage());
        assertFalse(e.getMessage().contains("gave up"), e.getMessage());
      }
    }
  }

  @Test
  void theStorePolicyIsTheOnlyRetryLayer() throws IOException {
    try (UnavailableServer server = new UnavailableServer()) {
      URI uri = URI.create("azblob://faults/p?endpoint=" + endpoint(server.port()) + "&account=" + ACCOUNT
          + "&account_key=" + enc(KEY) + "&max_retries=2&retry_delay=10ms&retry_max_delay=20ms");
      try (BlobStore store = BlobStores.open(uri)) {
        assertEquals(2, StorePolicy.of(store).maxRetries());
        assertInstanceOf(AzureBlobStore.class, FilterBlobStore.unwrap(store));
        List<Executable> operations = List.of(
            () -> store.length("x"),
            () -> store.read("x", 0, 10),
            () -> store.write("x", new ByteArrayInputStream(new byte[10]), 10));
        for (Executable op : operations) {
          BlobStoreException e = assertThrows(BlobStoreException.class, op);
          assertEquals(3, server.take(), "1 attempt + max_retries=2, each sent once: " + e.getMessage());
          assertTrue(e.isRetryable(), e.getMessage());
          assertTrue(e.getMessage().contains("gave up after 3 attempts"), e.getMessage());
          assertTrue(e.getMessage().contains("HTTP 503"), e.getMessage());
        }
      }
    }
  }

  @Test
  void refusedConnectionsAreRetriedByThePolicy() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } // nothing listens there now
    URI uri = URI.create("azblob://faults/p?endpoint=" + endpoint(port) + "&account=" + ACCOUNT + "&account_key="
        + enc(KEY) + "&max_retries=1&retry_delay=10ms&retry_max_delay=20ms&connect_timeout=2s");
    try (BlobStore store = BlobStores.open(uri)) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.read("x", 0, 10));
      assertTrue(e.isRetryable(), e.getMessage());
      assertTrue(e.getMessage().contains("cannot connect to endpoint"), e.getMessage());
      assertTrue(e.getMessage().contains("gave up after 2 attempts"), e.getMessage());
    }
  }

  @Test
  void aResponseThatNeverComesTimesOutAsRetryable() throws IOException {
    // A listening socket that is never accepted: the connection is made (backlog), the request sent, no answer.
    try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        AzureBlobStore store = rawStore(silent.getLocalPort()).readTimeout(Duration.ofSeconds(1)).build()) {
      long start = System.nanoTime();
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> store.length("x"));
      assertTrue(e.isRetryable(), e.getMessage());
      assertTrue(e.getMessage().contains("timed out"), e.getMessage());
      assertTrue(System.nanoTime() - start < SECONDS.toNanos(20), "read_timeout bounds the wait");
    }
  }

  // ------------------------------------------------------------------------------------------ broken responses

  private enum Fault {
    /** Headers and half the body, then nothing until the client closes the connection. */
    STALL,
    /** Headers and half the body, then the connection closes. */
    CUT,
    /** A well-formed response with half the bytes asked for. */
    SHORT
  }

  /**
   * A blob endpoint serving ranged GETs of {@code data} (206, Content-Range, a fixed ETag) over keep-alive
   * connections; from the {@code faultyFrom}-th GET on, it answers with {@code fault}. Records whether the client
   * closed the connection of a stalled response.
   */
  private static final class FaultyBlobServer implements AutoCloseable {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    final ServerSocket server;
    final byte[] data;
    final Fault fault;
    final int faultyFrom;
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    /** Connections the client closed between two requests. */
    final AtomicInteger idleConnectionsClosed = new AtomicInteger();
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch clientClosedStalledConnection = new CountDownLatch(1);
    final ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "faulty-blob-server");
      t.setDaemon(true);
      return t;
    });

    FaultyBlobServer(byte[] data, Fault fault, int faultyFrom) throws IOException {
      this.data = data;
      this.fault = fault;
      this.faultyFrom = faultyFrom;
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      threads.execute(this::accept);
    }

    int port() {
      return server.getLocalPort();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          connections.incrementAndGet();
          threads.execute(() -> serve(socket));
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    private void serve(Socket socket) {
      try (socket) {
        InputStream in = new BufferedInputStream(socket.getInputStream());
        OutputStream out = socket.getOutputStream();
        for (String head; (head = readHead(in)) != null; ) {
          int n = requests.incrementAndGet();
          Matcher m = RANGE.matcher(head.toLowerCase(Locale.ROOT));
          if (!head.startsWith("GET ") || !m.find()) {
            out.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            continue;
          }
          int from = Integer.parseInt(m.group(1));
          int to = Math.min(Integer.parseInt(m.group(2)), data.length - 1);
          int length = to - from + 1;
          Fault f = n >= faultyFrom ? fault : null;
          int announced = f == Fault.SHORT ? length / 2 : length;
          out.write(("HTTP/1.1 206 Partial Content\r\n"
                  + "Content-Length: " + announced + "\r\n"
                  + "Content-Range: bytes " + from + "-" + (from + announced - 1) + "/" + data.length + "\r\n"
                  + "ETag: \"0x8DC0FFEE0000001\"\r\n"
                  + "x-ms-blob-type: BlockBlob\r\n"
                  + "Content-Type: application/octet-stream\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          if (f == null || f == Fault.SHORT) {
            out.write(data, from, announced);
            out.flush();
            continue;
          }
          out.write(data, from, length / 2);
          out.flush();
          if (f == Fault.CUT) {
            return; // closes the connection mid-body
          }
          stalled.countDown();
          socket.setSoTimeout(120_000);
          while (in.read() >= 0) {
            // nothing more is sent; wait for the client to give up on the connection
          }
          clientClosedStalledConnection.countDown();
          return;
        }
        idleConnectionsClosed.incrementAndGet(); // the end of the connection, between two requests
      } catch (SocketException e) {
        if (fault == Fault.STALL && stalled.getCount() == 0) {
          clientClosedStalledConnection.countDown(); // a reset
        }
      } catch (IOException e) {
        // the client went away
      }
    }

    /** The request line and headers, or null at the end of the connection. */
    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int last4 = 0;
      for (int b; (b = in.read()) >= 0; ) {
        head.write(b);
        last4 = (last4 << 8) | b;
        if (last4 == ('\r' << 24 | '\n' << 16 | '\r' << 8 | '\n')) {
          return head.toString(StandardCharsets.ISO_8859_1);
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      server.close();
      threads.shutdownNow();
    }
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  @Test
  void closingAStreamFromAnotherThreadAbortsTheBlockedRead() throws Exception {
    byte[] data = randomBytes(4000);
    Thread readerThread = null;
    try (FaultyBlobServer server = new FaultyBlobServer(data, Fault.STALL, 2);
        AzureBlobStore store = rawStore(server.port()).downloadChunkSize(1000).readTimeout(Duration.ofSeconds(60)).build()) {
      InputStream in = store.read("blob", 0, 4000);
      assertArrayEquals(Arrays.copyOf(data, 1000), in.readNBytes(1000), "the first chunk");
      FutureTask<Object> read = new FutureTask<>(() -> {
        try {
          return in.read(new byte[100]); // the second chunk's response stalls half way
        } catch (IOException e) {
          return e;
        }
      });
      readerThread = new Thread(read, "blocked-reader");
      readerThread.setDaemon(true);
      readerThread.start();
      // the bounds of these waits only turn a hang into a failure
      assertTrue(server.stalled.await(60, SECONDS), "the second chunk was requested");
      awaitWaitingForAChunk(readerThread);
      assertFalse(read.isDone(), "the read waits for the stalled response");

      // read_timeout is 60s and the server sends nothing more: only the abort can end the read well before that, so
      // bounds of 20s hold on a slow, busy 2-core machine and still tell an abort from a wait
      long start = System.nanoTime();
      in.close(); // from this thread, as a deadline timer would
      assertTrue(System.nanoTime() - start < SECONDS.toNanos(20), "close does not wait for the rest of the body");
      IOException e = assertInstanceOf(IOException.class, read.get(20, SECONDS), "the blocked read fails promptly");
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
      assertTrue(server.clientClosedStalledConnection.await(60, SECONDS), "the request was aborted, not drained");
      assertEquals(2, server.requests.get());

      assertThrows(IOException.class, in::read);
      in.close(); // again: harmless
    } finally {
      if (readerThread != null) {
        readerThread.interrupt();
      }
    }
  }

  /**
   * Waits until {@code reader} is parked inside the stream waiting for a chunk's download, and still there on five
   * samples in a row. The 60s bound only turns a hang into a failure.
   */
  private static void awaitWaitingForAChunk(Thread reader) throws InterruptedException {
    long deadline = System.nanoTime() + SECONDS.toNanos(60);
    int seen = 0;
    while (System.nanoTime() - deadline < 0) {
      if (!reader.isAlive()) {
        fail("the reader ended instead of waiting for the stalled chunk");
      }
      Thread.State state = reader.getState();
      boolean waiting = (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
          && Arrays.stream(reader.getStackTrace()).anyMatch(f -> f.getClassName().endsWith("AzureBlobInputStream$Download")
              && f.getMethodName().equals("await"));
      seen = waiting ? seen + 1 : 0;
      if (seen >= 5) {
        return;
      }
      Thread.sleep(20);
    }
    fail("the reader never waited for the chunk: " + reader.getState() + " " + List.of(reader.getStackTrace()));
  }

  @Test
  void theStorePolicysDeadlineAbortsAStalledRead() throws Exception {
    byte[] data = randomBytes(4000);
    try (FaultyBlobServer server = new FaultyBlobServer(data, Fault.STALL, 2)) {
      URI uri = URI.create("azblob://faults/p?endpoint=" + endpoint(server.port()) + "&account=" + ACCOUNT
          + "&account_key=" + enc(KEY) + "&download_chunk_size=1000&read_timeout=60s&request_timeout=1s&max_retries=0");
      try (BlobStore store = BlobStores.open(uri); InputStream in = store.read("blob", 0, 4000)) {
        assertArrayEquals(Arrays.copyOf(data, 1000), in.readNBytes(1000));
        long start = System.nanoTime();
        BlobStoreTimeoutException e = assertThrows(BlobStoreTimeoutException.class, () -> in.readNBytes(1000));
        // only the deadline (1s) or read_timeout (60s) can end the read: 30s tells them apart on a slow, busy machine
        assertTrue(System.nanoTime() - start < SECONDS.toNanos(30), "the deadline, not read_timeout, ended the read");
        assertTrue(e.isRetryable(), e.getMessage());
        // (the bound only turns a hang into a failure)
        assertTrue(server.clientClosedStalledConnection.await(60, SECONDS), "the request was aborted, not drained");
      }
    }
  }

  @Test
  void aResponseCutOffIsRetryableAndNotResumedByTheSdk() throws Exception {
    byte[] data = randomBytes(4000);
    try (FaultyBlobServer server = new FaultyBlobServer(data, Fault.CUT, 2);
        AzureBlobStore store = rawStore(server.port()).downloadChunkSize(1000).build()) {
      InputStream in = store.read("blob", 0, 4000);
      assertArrayEquals(Arrays.copyOf(data, 1000), in.readNBytes(1000));
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> in.readNBytes(1000));
      assertTrue(e.isRetryable(), e.getMessage());
      assertTrue(e.getMessage().contains(BlobStoreException.range(1000, 1000)), e.getMessage());
      assertEquals(2, server.requests.get(), "the SDK did not resume the download with another request");
      in.close();
    }
  }

  @Test
  void aResponseEndingShortIsRetryable() throws Exception {
    byte[] data = randomBytes(4000);
    try (FaultyBlobServer server = new FaultyBlobServer(data, Fault.SHORT, 2);
        AzureBlobStore store = rawStore(server.port()).downloadChunkSize(1000).build()) {
      try (InputStream in = store.read("blob", 0, 4000)) {
        assertArrayEquals(Arrays.copyOf(data, 1000), in.readNBytes(1000));
        BlobStoreException e = assertThrows(BlobStoreException.class, () -> in.readNBytes(1000));
        assertTrue(e.isRetryable(), e.getMessage());
        assertTrue(e.getMessage().contains("ended after 500 bytes"), e.getMessage());
      }
      // The first chunk of a read ending short too.
      BlobStoreException first = assertThrows(BlobStoreException.class, () -> store.read("blob", 0, 4000));
      assertTrue(first.isRetryable(), first.getMessage());
      assertTrue(first.getMessage().contains("ended after 500 bytes"), first.getMessage());
    }
  }

  // ------------------------------------------------------------------------------------------ closing the store

  /** Waits up to a minute for {@code condition}: the bound only turns a hang into a failure. */
  private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  @Test
  void closingTheStoreClosesTheConnectionsItOpened() throws Exception {
    byte[] data = randomBytes(4000);
    try (FaultyBlobServer server = new FaultyBlobServer(data, Fault.CUT, Integer.MAX_VALUE)) {
      AzureBlobStore store = rawStore(server.port()).downloadChunkSize(1000).build();
      try (InputStream in = store.read("blob", 0, 4000)) {
        assertArrayEquals(data, in.readAllBytes());
      }
      assertEquals(4, server.requests.get());
      Thread.sleep(300);
      assertEquals(0, server.idleConnectionsClosed.get(), "idle connections wait in the pool");
      assertFalse(store.connectionsReleased());

      store.close();
      assertTrue(store.connectionsReleased());
      assertTrue(eventually(() -> server.idleConnectionsClosed.get() == server.connections.get()),
          "closing the store closed its idle connections: " + server.idleConnectionsClosed + " of " + server.connections);
    }
  }

  @Test
  void closingAStoreOnAGivenClientLeavesTheClientsConnectionsOpen() throws Exception {
    byte[] data = randomBytes(4000);
    try (FaultyBlobServer server = new FaultyBlobServer(data, Fault.CUT, Integer.MAX_VALUE)) {
      BlobServiceClient client = new BlobServiceClientBuilder()
          .endpoint(endpoint(server.port()))
          .credential(new StorageSharedKeyCredential(ACCOUNT, KEY))
          .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Duration) null, null, null, null))
          .buildClient();
      AzureBlobStore store =
          AzureBlobStore.builder().serviceClient(client).container("faults").prefix("p").downloadChunkSize(1000).build();
      try (InputStream in = store.read("blob", 0, 4000)) {
        assertArrayEquals(data, in.readAllBytes());
      }
      store.close();
      assertFalse(store.connectionsReleased(), "nothing of the client's is released");
      Thread.sleep(300);
      assertEquals(0, server.idleConnectionsClosed.get(), "the client's connections are still open");

      // The client still works, on the connections it had (the store's reads went through its pipeline too).
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      client.getBlobContainerClient("faults").getBlobClient("p/blob")
          .downloadStreamWithResponse(out, new BlobRange(0, 1000L), null, null, false, null, Context.NONE);
      assertArrayEquals(Arrays.copyOf(data, 1000), out.toByteArray());
      assertEquals(5, server.requests.get());
      assertEquals(0, server.idleConnectionsClosed.get());
    }
  }
}
