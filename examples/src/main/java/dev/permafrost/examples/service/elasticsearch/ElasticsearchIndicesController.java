/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.dsl.DslException;
import dev.permafrost.elasticsearch.dsl.IndicesApi;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/**
 * Elasticsearch's index, alias, {@code _cat} and cluster APIs over the mounted snapshots ({@link IndicesApi} does the
 * work): {@code GET /_resolve/index/{pattern}}, {@code GET /_alias}, {@code /{index}/_alias},
 * {@code GET /_cat/indices}, {@code /_cat/count} and {@code GET /_cluster/health} (each also for named indices).
 * {@code HEAD} and {@code GET /{index}} are {@link ElasticsearchIndexFilter}'s, which shares {@link #api}. Answers are
 * written by {@link ApiAnswers}, as the search API's.
 */
@RestController
class ElasticsearchIndicesController {
  private static final Logger log = LoggerFactory.getLogger(ElasticsearchIndicesController.class);
  /** The cluster name the API gives, as {@code GET /} gives it. */
  static final String CLUSTER_NAME = "permafrost";
  private final IndicesApi api;

  ElasticsearchIndicesController(Catalog catalog, ApiIndices indices) {
    this.api = api(catalog, indices);
  }

  /** The API over the service's indices (one per user: it holds nothing between requests). */
  static IndicesApi api(Catalog catalog, ApiIndices indices) {
    return new IndicesApi(catalog, new SearchApi(catalog, indices), indices, indices::unreadable, CLUSTER_NAME);
  }

  @RequestMapping(path = "/_resolve/index/{expression}", method = {RequestMethod.GET, RequestMethod.POST})
  ResponseEntity<byte[]> resolve(@PathVariable String expression, HttpServletRequest request) {
    return ApiAnswers.json(200, api.resolveIndex(expression, ElasticsearchApiController.parameters(request)), request);
  }

  @RequestMapping(path = {"/_alias", "/{index}/_alias"}, method = RequestMethod.GET)
  ResponseEntity<byte[]> aliases(@PathVariable(required = false) String index, HttpServletRequest request) {
    return ApiAnswers.json(200, api.aliases(index, ElasticsearchApiController.parameters(request)), request);
  }

  @RequestMapping(path = {"/_cat/indices", "/_cat/indices/{index}"}, method = RequestMethod.GET)
  void catIndices(@PathVariable(required = false) String index, HttpServletRequest request,
      HttpServletResponse response) throws IOException {
    ApiAnswers.send(ApiAnswers.of(api.catIndices(index, catParameters(request)), request), request, response);
  }

  @RequestMapping(path = {"/_cat/count", "/_cat/count/{index}"}, method = {RequestMethod.GET, RequestMethod.POST})
  void catCount(@PathVariable(required = false) String index,
      @RequestBody(required = false) byte[] body, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    ApiAnswers.send(ApiAnswers.of(api.catCount(index, ElasticsearchApiController.json(body), catParameters(request)),
        request), request, response);
  }

  /**
   * A {@code _cat} request's parameters, with {@code format=json} where it names no format and its {@code Accept}
   * asks for JSON first (the official Java client's does), as a node reads it.
   */
  private static Map<String, String> catParameters(HttpServletRequest request) {
    Map<String, String> parameters = ElasticsearchApiController.parameters(request);
    if (!parameters.containsKey("format") && MediaTypes.acceptsJsonFirst(request)) {
      parameters.put("format", "json");
    }
    return parameters;
  }

  @RequestMapping(path = {"/_cluster/health", "/_cluster/health/{index}"}, method = RequestMethod.GET)
  ResponseEntity<byte[]> health(@PathVariable(required = false) String index, HttpServletRequest request) {
    return ApiAnswers.of(api.clusterHealth(index, ElasticsearchApiController.parameters(request)), request);
  }

  @ExceptionHandler(DslException.class)
  ResponseEntity<byte[]> refused(DslException e, HttpServletRequest request) {
    return ApiAnswers.error(e.status(), SearchApi.error(e), request);
  }

  @ExceptionHandler({IOException.class, RuntimeException.class})
  ResponseEntity<byte[]> failed(Exception e, HttpServletRequest request) {
    log.warn("{} {} failed", request.getMethod(), request.getRequestURI(), e);
    return ApiAnswers.error(500, SearchApi.error(500, "exception", String.valueOf(e.getMessage())), request);
  }
}
