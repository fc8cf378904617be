/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the store was asked for, as the store itself counts it (MinIO's API metrics, version 3, which are current at
 * every read, unlike version 2's; {@code scripts/servers/minio.sh} makes them readable without a token): the same
 * counter for both engines. It counts the whole server, so nothing else may use it while a measure runs.
 */
final class StoreCounter {
  private static final Pattern REQUESTS = Pattern.compile(
      "^minio_api_requests_total\\{name=\"([A-Za-z0-9]+)\"[^}]*\\} ([0-9.e+]+)$", Pattern.MULTILINE);
  private static final Pattern SENT = Pattern.compile(
      "^minio_api_requests_traffic_sent_bytes\\{[^}]*\\} ([0-9.e+]+)$", Pattern.MULTILINE);

  /** Read requests (GET, HEAD, LIST) and the bytes sent, so far. */
  record Counts(long requests, long bytes) {
    Counts minus(Counts before) {
      return new Counts(requests - before.requests, bytes - before.bytes);
    }
  }

  private final HttpClient client = HttpClient.newHttpClient();
  private final URI metrics;

  StoreCounter(String endpoint) {
    this.metrics = URI.create(endpoint + "/minio/metrics/v3/api/requests");
  }

  Counts now() throws IOException {
    String text;
    try {
      text = client.send(HttpRequest.newBuilder(metrics).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading " + metrics, e);
    }
    long requests = 0;
    Matcher m = REQUESTS.matcher(text);
    while (m.find()) {
      String api = m.group(1);
      if (api.startsWith("Get") || api.startsWith("Head") || api.startsWith("List")) {
        requests += (long) Double.parseDouble(m.group(2));
      }
    }
    long bytes = 0;
    Matcher s = SENT.matcher(text);
    while (s.find()) {
      bytes += (long) Double.parseDouble(s.group(1));
    }
    return new Counts(requests, bytes);
  }
}
