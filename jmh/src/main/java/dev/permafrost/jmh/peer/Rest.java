/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small JSON client of an HTTP API (OpenSearch's, Toxiproxy's): a request that answers other than 2xx fails with its body. */
final class Rest {
  static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  Rest(String base) {
    this.base = base;
  }

  JsonNode get(String path) throws IOException {
    return send("GET", path, null, "application/json");
  }

  JsonNode put(String path, String body) throws IOException {
    return send("PUT", path, body, "application/json");
  }

  JsonNode post(String path, String body) throws IOException {
    return send("POST", path, body, "application/json");
  }

  JsonNode postNdjson(String path, String body) throws IOException {
    return send("POST", path, body, "application/x-ndjson");
  }

  JsonNode delete(String path) throws IOException {
    return send("DELETE", path, null, "application/json");
  }

  /** The status of a GET of {@code path}, or -1 if nothing answers. */
  int status(String path) {
    try {
      return client.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(5)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private JsonNode send(String method, String path, String body, String type) throws IOException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofMinutes(30))
        .header("Content-Type", type)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + method + " " + base + path, e);
    }
    if (response.statusCode() / 100 != 2) {
      String text = response.body();
      throw new IOException(method + " " + base + path + " answered " + response.statusCode() + ": "
          + (text.length() > 2000 ? text.substring(0, 2000) + "..." : text));
    }
    String text = response.body();
    return text.isEmpty() ? JSON.nullNode() : JSON.readTree(text);
  }
}
