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
   * The media type of a JSON answer, as a node chooses it from the first type the request's {@code Accept} names:
   * {@code application/vnd.elasticsearch+json;compatible-with=N} where that is Elasticsearch's (the official clients'
   * {@code Accept}), and {@code application/json;compatible-with=N} if {@code format=json} asked for JSON too, else
   * {@code application/json} (so the Python client's {@code Accept: text/plain,application/vnd...} of its
   * {@code _cat} calls gets {@code application/json} from any other endpoint, as from a node). Both types are those
   * the official clients read (the Python client refuses any other, {@code application/problem+json} among them).
   */
  static String of(HttpServletRequest request) {
    String first = firstAccepted(request);
    if (first.contains("vnd.elasticsearch+json")) {
      int at = first.indexOf("compatible-with=");
      String version = at < 0 ? "" : first.substring(at + "compatible-with=".length()).replaceAll("[^0-9].*", "");
      version = version.isEmpty() ? "9" : version;
      return request.getParameter("format") != null ? "application/json;compatible-with=" + version
          : "application/vnd.elasticsearch+json;compatible-with=" + version;
    }
    return "application/json";
  }

  /**
   * Whether a {@code _cat} request that names no {@code format} asks for JSON: the first type its {@code Accept}
   * names is JSON (Elasticsearch's or plain), as a node reads it; else {@code _cat} answers text.
   */
  static boolean acceptsJsonFirst(HttpServletRequest request) {
    String first = firstAccepted(request);
    return first.startsWith("application/json") || first.contains("vnd.elasticsearch+json");
  }

  /** The first media type the request's {@code Accept} names, lower case with its parameters, or "". */
  private static String firstAccepted(HttpServletRequest request) {
    String accept = request.getHeader(HttpHeaders.ACCEPT);
    if (accept == null) {
      return "";
    }
    int comma = accept.indexOf(',');
    return (comma < 0 ? accept : accept.substring(0, comma)).trim().toLowerCase(java.util.Locale.ROOT);
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
