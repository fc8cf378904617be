/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A tiny HTTP server on 127.0.0.1 (JDK's {@code com.sun.net.httpserver}, a free port) that plays a misbehaving
 * GCS endpoint and counts the requests it gets. Handlers run on their own threads, so one may stall.
 */
final class LocalHttpServer implements AutoCloseable {
  /** Answers one request. */
  interface Handler {
    void handle(HttpExchange exchange) throws Exception;
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "local-http-server");
    t.setDaemon(true);
    return t;
  });
  private final List<String> requests = new ArrayList<>();

  private LocalHttpServer(Handler handler) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/", exchange -> {
      synchronized (requests) {
        requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
      }
      try (exchange) {
        handler.handle(exchange);
      } catch (IOException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException(e);
      }
    });
    server.start();
  }

  static LocalHttpServer start(Handler handler) throws IOException {
    return new LocalHttpServer(handler);
  }

  /** A server that answers every request with {@code status} and a GCS-style JSON error with {@code reason}. */
  static LocalHttpServer answering(int status, String reason) throws IOException {
    return start(exchange -> sendError(exchange, status, reason));
  }

  /** The endpoint setting that points at this server. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** How many requests arrived so far. */
  int requestCount() {
    synchronized (requests) {
      return requests.size();
    }
  }

  /** The requests so far, as "METHOD uri", for assertion messages. */
  List<String> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** Whether the request asks for an object's data ({@code alt=media}) rather than for metadata. */
  static boolean isMediaRequest(HttpExchange exchange) {
    String query = exchange.getRequestURI().getRawQuery();
    return query != null && query.contains("alt=media");
  }

  static void sendError(HttpExchange exchange, int status, String reason) throws IOException {
    String message = "error " + status + " from the local test server";
    sendJson(exchange, status, "{\"error\":{\"code\":" + status + ",\"message\":\"" + message + "\",\"errors\":[{"
        + "\"domain\":\"global\",\"reason\":\"" + reason + "\",\"message\":\"" + message + "\"}]}}");
  }

  static void sendJson(HttpExchange exchange, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
