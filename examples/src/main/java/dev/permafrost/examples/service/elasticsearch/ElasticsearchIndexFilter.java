/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.dsl.DslException;
import dev.permafrost.elasticsearch.dsl.IndicesApi;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UriUtils;

/**
 * {@code HEAD /{index}} and {@code GET /{index}} (an index expression: names, patterns, comma-separated lists), which
 * share the root's paths with the service's own page and API: a request from an Elasticsearch client
 * ({@link MediaTypes#fromClient}) is always answered as a node answers it (200 or 404 to {@code HEAD}, the indices'
 * aliases, mappings and settings to {@code GET}, or Elasticsearch's error); any other request is answered so only if
 * its expression names an index that is there, and otherwise goes on to the page and the service's own API (its
 * files such as {@code /app.js}, its {@code /indices}), which keep their answers.
 */
@Component
class ElasticsearchIndexFilter extends OncePerRequestFilter {
  private final IndicesApi api;

  ElasticsearchIndexFilter(Catalog catalog, ApiIndices indices) {
    this.api = ElasticsearchIndicesController.api(catalog, indices);
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String expression = expression(request);
    if (expression == null) {
      chain.doFilter(request, response);
      return;
    }
    boolean client = MediaTypes.fromClient(request);
    Map<String, String> parameters = ElasticsearchApiController.parameters(request);
    ResponseEntity<byte[]> answer;
    try {
      if (request.getMethod().equals("HEAD")) {
        boolean exists = api.exists(expression, parameters);
        if (!exists && !client) {
          chain.doFilter(request, response);
          return;
        }
        answer = ResponseEntity.status(exists ? 200 : 404).header(HttpHeaders.CONTENT_TYPE, MediaTypes.of(request))
            .header(MediaTypes.PRODUCT_HEADER, "Elasticsearch").body(new byte[0]);
      } else {
        ObjectNode indices = api.get(expression, parameters);
        if (indices.isEmpty() && !client) {
          chain.doFilter(request, response);
          return;
        }
        answer = ApiAnswers.json(200, indices, request);
      }
    } catch (DslException e) {
      if (!client && e.status() == 404) {
        chain.doFilter(request, response);
        return;
      }
      answer = ApiAnswers.error(e.status(), SearchApi.error(e), request);
    }
    ApiAnswers.send(answer, request, response);
  }

  /** The index expression of a {@code GET} or {@code HEAD} of one path segment that is not an API's, else null. */
  private static String expression(HttpServletRequest request) {
    if (!request.getMethod().equals("GET") && !request.getMethod().equals("HEAD")) {
      return null;
    }
    String path = request.getRequestURI().substring(request.getContextPath().length());
    if (path.length() < 2 || path.indexOf('/', 1) >= 0 || (path.charAt(1) == '_' && !path.equals("/_all"))) {
      return null;
    }
    return UriUtils.decode(path.substring(1), StandardCharsets.UTF_8);
  }
}
