/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small client of the running service: real HTTP requests, JSON answers. */
final class Http {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** An answer: status, content type and body. */
  record Answer(int status, String contentType, String body) {
    /** The start of the body, for failure messages. */
    String shortBody() {
      return body.length() <= 600 ? body : body.substring(0, 600) + "...";
    }

    JsonNode json() {
      return JSON.readTree(body);
    }

    /** The body as a problem document, checked to be one (and to carry no stack trace). */
    JsonNode problem(int expectedStatus) {
      assertEquals(expectedStatus, status, this::shortBody);
      assertEquals("application/problem+json", contentType, this::shortBody);
      assertFalse(body.contains("\tat ") || body.contains("Exception:") && body.contains(".java:"),
          "no stack trace in a response: " + body);
      JsonNode problem = json();
      assertEquals(expectedStatus, problem.get("status").asInt(), this::shortBody);
      return problem;
    }

    JsonNode ok() {
      assertEquals(200, status, this::shortBody);
      return json();
    }
  }

  Answer get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  Answer put(String path, String json) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(json)));
  }

  Answer post(String path, String json) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .POST(json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json)));
  }

  Answer delete(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE());
  }

  /**
   * Waits until the cache has no fetch queued or running ({@code GET /cache/stats} says {@code fillsInFlight} 0) and
   * answers those stats. A search may return while a fill it started carries on into the next region or a prefetch
   * it queued is still on its way; those bytes land in whatever request runs next, and a request's {@code cache} is a
   * delta of the cache's global counters. The 60 s bound only turns a hang into a failure.
   */
  JsonNode awaitCacheIdle() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      JsonNode stats = get("/cache/stats").ok();
      if (stats.get("fillsInFlight").asLong() == 0) {
        return stats;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the cache still has fetches in flight after 60 s: " + stats);
      }
      Thread.sleep(20);
    }
  }

  private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
    HttpResponse<String> response = client.send(request.timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), response.body());
  }
}
