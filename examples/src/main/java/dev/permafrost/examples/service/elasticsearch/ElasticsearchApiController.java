/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.SearchTimeoutException;
import dev.permafrost.elasticsearch.dsl.DslException;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 * Elasticsearch's search API over the mounted snapshots, at Elasticsearch's own paths: {@code /{index}/_search},
 * {@code /_msearch}, {@code /{index}/_count}, {@code /{index}/_mapping}, {@code /{index}/_field_caps}, scroll
 * ({@code /_search/scroll}) and point in time ({@code /{index}/_pit}, {@code DELETE /_pit}) ({@code GET /}
 * is {@link ElasticsearchRootFilter}'s). Bodies are read whatever their content type (the official clients send
 * {@code application/vnd.elasticsearch+json}, {@code _msearch} NDJSON); every answer carries
 * {@code X-Elastic-Product: Elasticsearch}, which the official clients require, and errors are Elasticsearch's error
 * body with its status ({@link ApiAnswers}, which applies {@code filter_path} too). The index, {@code _cat} and
 * cluster APIs are {@link ElasticsearchIndicesController}'s.
 */
@RestController
class ElasticsearchApiController {
  private static final Logger log = LoggerFactory.getLogger(ElasticsearchApiController.class);
  private final SearchApi api;
  private static final ObjectMapper JSON = new ObjectMapper();

  ElasticsearchApiController(Catalog catalog, ApiIndices indices) {
    this.api = new SearchApi(catalog, indices);
  }

  @RequestMapping(path = {"/_search", "/{index}/_search"}, method = {RequestMethod.GET, RequestMethod.POST})
  ResponseEntity<byte[]> search(@PathVariable(required = false) String index,
      @RequestBody(required = false) byte[] body, HttpServletRequest request) throws IOException {
    return answer(api.search(index, parse(body), parameters(request)), request);
  }

  @RequestMapping(path = {"/_msearch", "/{index}/_msearch"}, method = {RequestMethod.GET, RequestMethod.POST})
  ResponseEntity<byte[]> msearch(@PathVariable(required = false) String index,
      @RequestBody(required = false) byte[] body, HttpServletRequest request) throws IOException {
    return answer(api.msearch(index, body == null ? new byte[0] : body, parameters(request)), request);
  }

  @RequestMapping(path = {"/_count", "/{index}/_count"}, method = {RequestMethod.GET, RequestMethod.POST})
  ResponseEntity<byte[]> count(@PathVariable(required = false) String index,
      @RequestBody(required = false) byte[] body, HttpServletRequest request) throws IOException {
    return answer(api.count(index, parse(body), parameters(request)), request);
  }

  @RequestMapping(path = {"/_mapping", "/{index}/_mapping"}, method = RequestMethod.GET)
  ResponseEntity<byte[]> mapping(@PathVariable(required = false) String index, HttpServletRequest request)
      throws IOException {
    return answer(api.mapping(index, parameters(request)), request);
  }

  @RequestMapping(path = {"/_field_caps", "/{index}/_field_caps"}, method = {RequestMethod.GET, RequestMethod.POST})
  ResponseEntity<byte[]> fieldCaps(@PathVariable(required = false) String index,
      @RequestBody(required = false) byte[] body, HttpServletRequest request) throws IOException {
    Map<String, String> parameters = parameters(request);
    String fields = parameters.remove("fields");
    JsonNode b = parse(body);
    if (fields == null && b != null && b.has("fields")) {
      // the body's patterns as given: a node reads a string there as one pattern (the Python client sends one)
      List<String> patterns = b.get("fields").isArray() ? toStrings(b.get("fields")) : List.of(b.get("fields").asText());
      return answer(api.fieldCaps(index, patterns, parameters), request);
    }
    return answer(api.fieldCaps(index, fields, parameters), request);
  }

  // ---- scroll and point in time (the library's SearchApi keeps them; these only read HTTP) ----

  /**
   * {@code GET|POST /_search/scroll}: the id in the path, the {@code scroll_id} parameter or the body's
   * {@code scroll_id} (the Python client's way), the keep-alive in the {@code scroll} parameter or the body.
   */
  @RequestMapping(path = {"/_search/scroll", "/_search/scroll/{scrollId}"},
      method = {RequestMethod.GET, RequestMethod.POST})
  ResponseEntity<byte[]> scroll(@PathVariable(required = false) String scrollId,
      @RequestBody(required = false) byte[] body, HttpServletRequest request) throws IOException {
    JsonNode b = parse(body);
    String id = scrollId != null ? scrollId : request.getParameter("scroll_id");
    if (b != null && b.hasNonNull("scroll_id")) {
      id = b.get("scroll_id").asText();
    }
    String keepAlive = b != null && b.hasNonNull("scroll") ? b.get("scroll").asText() : request.getParameter("scroll");
    return answer(api.scroll(id, keepAlive), request);
  }

  /** {@code DELETE /_search/scroll}: ids in the path (comma-separated), the parameter or the body (one or a list). */
  @RequestMapping(path = {"/_search/scroll", "/_search/scroll/{scrollId}"}, method = RequestMethod.DELETE)
  ResponseEntity<byte[]> clearScroll(@PathVariable(required = false) String scrollId,
      @RequestBody(required = false) byte[] body, HttpServletRequest request) throws IOException {
    List<String> ids = new ArrayList<>();
    String listed = scrollId != null ? scrollId : request.getParameter("scroll_id");
    if (listed != null) {
      ids.addAll(List.of(listed.split(",")));
    }
    JsonNode b = parse(body);
    if (b != null && b.hasNonNull("scroll_id")) {
      ids.addAll(b.get("scroll_id").isArray() ? toStrings(b.get("scroll_id")) : List.of(b.get("scroll_id").asText()));
    }
    SearchApi.Closed closed = api.clearScroll(ids);
    return ApiAnswers.json(closed.status(), closed.body(), request);
  }

  @RequestMapping(path = "/{index}/_pit", method = RequestMethod.POST)
  ResponseEntity<byte[]> openPointInTime(@PathVariable String index, @RequestBody(required = false) byte[] body,
      HttpServletRequest request) throws IOException {
    return answer(api.openPointInTime(index, parse(body), parameters(request)), request);
  }

  @RequestMapping(path = "/_pit", method = RequestMethod.DELETE)
  ResponseEntity<byte[]> closePointInTime(@RequestBody(required = false) byte[] body, HttpServletRequest request)
      throws IOException {
    SearchApi.Closed closed = api.closePointInTime(parse(body));
    return ApiAnswers.json(closed.status(), closed.body(), request);
  }

  @ExceptionHandler(DslException.class)
  ResponseEntity<byte[]> refused(DslException e, HttpServletRequest request) {
    return ApiAnswers.error(e.status(), SearchApi.error(e), request);
  }

  @ExceptionHandler(SearchTimeoutException.class)
  ResponseEntity<byte[]> timedOut(SearchTimeoutException e, HttpServletRequest request) {
    return ApiAnswers.error(504, SearchApi.error(504, "search_phase_execution_exception", e.getMessage()), request);
  }

  @ExceptionHandler({IOException.class, RuntimeException.class})
  ResponseEntity<byte[]> failed(Exception e, HttpServletRequest request) {
    if (e instanceof IllegalArgumentException) {
      return ApiAnswers.error(400, SearchApi.error(400, "illegal_argument_exception", e.getMessage()), request);
    }
    log.warn("{} {} failed", request.getMethod(), request.getRequestURI(), e);
    return ApiAnswers.error(500, SearchApi.error(500, "exception", String.valueOf(e.getMessage())), request);
  }

  private JsonNode parse(byte[] body) {
    return json(body);
  }

  /** A request body as JSON, or null if there is none; a 400 in Elasticsearch's words if it is not JSON. */
  static JsonNode json(byte[] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw DslException.malformedJson("the request body", e);
    } catch (IOException e) {
      throw DslException.parsing("cannot read the request body: " + e.getMessage());
    }
  }

  /** The request's parameters for the library, but {@code filter_path}, which {@link ApiAnswers} applies. */
  static Map<String, String> parameters(HttpServletRequest request) {
    Map<String, String> parameters = new LinkedHashMap<>();
    request.getParameterMap().forEach((name, values) -> parameters.put(name, values.length == 0 ? "" : values[0]));
    parameters.remove("filter_path");
    if (parameters.get("pretty") != null && parameters.get("pretty").isEmpty()) {
      parameters.put("pretty", "true");
    }
    return parameters;
  }

  private static List<String> toStrings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private ResponseEntity<byte[]> answer(ObjectNode body, HttpServletRequest request) {
    return ApiAnswers.json(200, body, request);
  }
}
