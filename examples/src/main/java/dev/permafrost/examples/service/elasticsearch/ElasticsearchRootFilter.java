/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.apache.lucene.util.Version;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code GET /} (and {@code HEAD /}) for Elasticsearch's clients: the root serves the search page to a browser (whose
 * {@code Accept} names {@code text/html}) and Elasticsearch's node information to anything else, as a node would.
 *
 * <p>The version claimed is {@value #CLAIMED_VERSION}: the Elasticsearch release whose answers the differential test
 * compares this API with, request for request, and whose official Java client it runs. Clients read the number to
 * choose the API they speak (the official clients of 8 and 9, and Grafana, which needs 7.10 or later, accept it);
 * {@code version.build_type} says {@code permafrost}, so that nothing mistakes the service for a cluster.
 */
@Component
class ElasticsearchRootFilter extends OncePerRequestFilter {
  /** The Elasticsearch version the API claims. */
  static final String CLAIMED_VERSION = "9.3.3";
  private final ObjectMapper json = new ObjectMapper();

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String accept = request.getHeader(HttpHeaders.ACCEPT);
    boolean root = request.getRequestURI().equals("/") && (request.getMethod().equals("GET")
        || request.getMethod().equals("HEAD"));
    if (!root || (accept != null && accept.contains("text/html"))) {
      chain.doFilter(request, response);
      return;
    }
    response.setStatus(200);
    response.setHeader(MediaTypes.PRODUCT_HEADER, "Elasticsearch");
    response.setContentType(MediaTypes.of(request));
    if (request.getMethod().equals("GET")) {
      json.writerWithDefaultPrettyPrinter().writeValue(response.getOutputStream(),
          SearchApi.info("permafrost", "permafrost", CLAIMED_VERSION, Version.LATEST.toString()));
    }
  }
}
