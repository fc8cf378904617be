/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpHeaders;

/**
 * What every answer of the Elasticsearch-compatible API carries (the product header and the media type asked for),
 * and which requests come from an Elasticsearch client.
 */
final class MediaTypes {
  /** The header Elasticsearch's official clients check on every answer ({@code Elasticsearch}). */
  static final String PRODUCT_HEADER = "X-Elastic-Product";
  /** The header the official clients send with every request (their name and version). */
  static final String CLIENT_META_HEADER = "X-Elastic-Client-Meta";
  /** The media type of {@code _cat}'s text tables, as a node gives it. */
  static final String TEXT = "text/plain; charset=UTF-8";

  private MediaTypes() {}

  /**
   * {@code application/vnd.elasticsearch+json;compatible-with=N} if the client asked for it, else JSON: both types
   * the official clients read (the Python client refuses any other, {@code application/problem+json} among them).
   */
  static String of(HttpServletRequest request) {
    String accept = request.getHeader(HttpHeaders.ACCEPT);
    if (accept != null && accept.contains("vnd.elasticsearch+json")) {
      int at = accept.indexOf("compatible-with=");
      String version = at < 0 ? "9" : accept.substring(at + "compatible-with=".length()).replaceAll("[^0-9].*", "");
      return "application/vnd.elasticsearch+json;compatible-with=" + (version.isEmpty() ? "9" : version);
    }
    return "application/json";
  }

  /**
   * Whether the request comes from an Elasticsearch client: its {@code Accept} or {@code Content-Type} names
   * Elasticsearch's media type (the official clients send {@code application/vnd.elasticsearch+json;
   * compatible-with=9}), or it carries {@value #CLIENT_META_HEADER}.
   */
  static boolean fromClient(HttpServletRequest request) {
    String accept = request.getHeader(HttpHeaders.ACCEPT);
    String type = request.getContentType();
    return (accept != null && accept.contains("vnd.elasticsearch+")) || (type != null && type.contains("vnd.elasticsearch+"))
        || request.getHeader(CLIENT_META_HEADER) != null;
  }

  /**
   * Whether a request the service has no endpoint for is one for Elasticsearch's API: it comes from a client
   * ({@link #fromClient}) or a segment of its path starts with {@code _} ({@code /_cat/shards},
   * {@code /logs/_doc/1}), which no path of the service's own API or page does.
   */
  static boolean forElasticsearch(HttpServletRequest request) {
    if (fromClient(request)) {
      return true;
    }
    for (String segment : request.getRequestURI().split("/")) {
      if (segment.startsWith("_")) {
        return true;
      }
    }
    return false;
  }
}
