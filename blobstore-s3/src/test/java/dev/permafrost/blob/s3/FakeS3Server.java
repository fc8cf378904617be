/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny HTTP server on 127.0.0.1 (the JDK's {@link HttpServer}, on a free port) that plays a misbehaving S3
 * endpoint: it answers each request with its {@link Handler}, counts the requests and records the client port
 * each came from (the same port means the same, reused, connection). Handlers may {@link #stall()} until the
 * server is closed.
 */
final class FakeS3Server implements AutoCloseable {
  /** Answers one request; {@code number} counts from 1. */
  interface Handler {
    void handle(FakeS3Server server, HttpExchange exchange, int number) throws IOException;
  }

  /** The blob the fake serves: 1000 bytes, byte i being {@code (byte) i}. */
  static final int BLOB_LENGTH = 1000;

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fake-s3-server");
    t.setDaemon(true);
    return t;
  });
  private final AtomicInteger requests = new AtomicInteger();
  private final List<Integer> clientPorts = new CopyOnWriteArrayList<>();
  private final CountDownLatch closed = new CountDownLatch(1);

  private FakeS3Server(Handler handler) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.setExecutor(executor);
    server.createContext("/", exchange -> {
      int number = requests.incrementAndGet();
      clientPorts.add(exchange.getRemoteAddress().getPort());
      try (exchange) {
        exchange.getRequestBody().readAllBytes();
        handler.handle(this, exchange, number);
      } catch (IOException e) {
        // the client went away (aborted its request), or the handler cut the response short on purpose
      }
    });
    server.start();
  }

  static FakeS3Server start(Handler handler) throws IOException {
    return new FakeS3Server(handler);
  }

  /** {@code http://127.0.0.1:port}. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Requests received so far. */
  int requests() {
    return requests.get();
  }

  /** The client port of each request, in order. */
  List<Integer> clientPorts() {
    return List.copyOf(clientPorts);
  }

  /** A builder for a store on this server (bucket "bucket", prefix "p"), with short connect and long read timeouts. */
  S3BlobStore.Builder storeBuilder() {
    return S3BlobStore.builder().bucket("bucket").prefix("p").endpoint(endpoint()).credentials("a", "b")
        .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(30));
  }

  /** Blocks the calling handler until the server is closed. */
  void stall() {
    try {
      closed.await(2, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }

  // ------------------------------------------------------------------------------------------------ handlers

  /** A handler answering every request with {@code status} and, except to a HEAD, an S3 error body with {@code code}. */
  static Handler error(int status, String code) {
    return (server, exchange, number) -> {
      if (code == null || exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>fake " + code
          + "</Message><RequestId>fake-" + number + "</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/xml");
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
    };
  }

  /**
   * Serves the {@link #BLOB_LENGTH}-byte blob at every key, honouring a {@code Range: bytes=a-b} header except for
   * keys ending in {@code ignores-range}, which get the whole blob as some S3-compatible servers might send it.
   */
  static void serveBlob(FakeS3Server server, HttpExchange exchange, int number) throws IOException {
    respond(exchange, (first, last) -> {
      OutputStream out = exchange.getResponseBody();
      for (long i = first; i <= last; i++) {
        out.write((int) i);
      }
    });
  }

  /** Sends the headers of the requested range (or whole blob) and its first 100 bytes, then stalls. */
  static void partialThenStall(FakeS3Server server, HttpExchange exchange, int number) throws IOException {
    respond(exchange, (first, last) -> {
      OutputStream out = exchange.getResponseBody();
      out.write(new byte[100]);
      out.flush();
      server.stall();
    });
  }

  /** Sends the headers of the requested range (or whole blob) and its first 100 bytes, then drops the connection. */
  static void partialThenHangUp(FakeS3Server server, HttpExchange exchange, int number) throws IOException {
    respond(exchange, (first, last) -> {
      OutputStream out = exchange.getResponseBody();
      out.write(new byte[100]);
      out.flush();
      // closing a fixed-length response before its end makes the JDK server close the connection
    });
  }

  private interface Body {
    void write(long first, long last) throws IOException;
  }

  private static void respond(HttpExchange exchange, Body body) throws IOException {
    String range = exchange.getRequestURI().getPath().endsWith("ignores-range")
        ? null
        : exchange.getRequestHeaders().getFirst("Range");
    long first = 0;
    long last = BLOB_LENGTH - 1;
    int status = 200;
    if (range != null && range.startsWith("bytes=")) {
      String[] bounds = range.substring("bytes=".length()).split("-");
      first = Long.parseLong(bounds[0]);
      last = Math.min(Long.parseLong(bounds[1]), BLOB_LENGTH - 1);
      status = 206;
      exchange.getResponseHeaders().set("Content-Range", "bytes " + first + "-" + last + "/" + BLOB_LENGTH);
    }
    exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
    exchange.getResponseHeaders().set("ETag", "\"fake\"");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    if (head) {
      exchange.getResponseHeaders().set("Content-Length", Long.toString(last - first + 1));
    }
    exchange.sendResponseHeaders(status, head ? -1 : last - first + 1);
    if (!head) {
      body.write(first, last);
    }
  }
}
