/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpHeaders;

/** What every answer of the Elasticsearch-compatible API carries: the product header and the media type asked for. */
final class MediaTypes {
  /** The header Elasticsearch's official clients check on every answer ({@code Elasticsearch}). */
  static final String PRODUCT_HEADER = "X-Elastic-Product";

  private MediaTypes() {}

  /** {@code application/vnd.elasticsearch+json;compatible-with=N} if the client asked for it, else JSON. */
  static String of(HttpServletRequest request) {
    String accept = request.getHeader(HttpHeaders.ACCEPT);
    if (accept != null && accept.contains("vnd.elasticsearch+json")) {
      int at = accept.indexOf("compatible-with=");
      String version = at < 0 ? "9" : accept.substring(at + "compatible-with=".length()).replaceAll("[^0-9].*", "");
      return "application/vnd.elasticsearch+json;compatible-with=" + (version.isEmpty() ? "9" : version);
    }
    return "application/json";
  }
}
