/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.permafrost.elasticsearch.dsl.Answer;
import dev.permafrost.elasticsearch.dsl.FilterPath;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;

/**
 * How every answer of the Elasticsearch-compatible API is written, whichever endpoint made it: the product header the
 * official clients check, the media type they read ({@link MediaTypes#of}), {@code pretty}, and {@code filter_path}
 * ({@link FilterPath}, applied to every answer and to no error, as a node applies it); {@code _cat}'s text tables as
 * {@code text/plain}, and warnings in {@code Warning} headers as a node sends them.
 */
final class ApiAnswers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ApiAnswers() {}

  /** An answer's JSON, filtered by the request's {@code filter_path}. */
  static ResponseEntity<byte[]> json(int status, JsonNode body, HttpServletRequest request) {
    JsonNode kept = FilterPath.parse(request.getParameter("filter_path")).apply(body);
    return entity(status, kept == null ? new byte[0] : bytes(kept, request), MediaTypes.of(request));
  }

  /** An error's JSON: never filtered. */
  static ResponseEntity<byte[]> error(int status, JsonNode body, HttpServletRequest request) {
    return entity(status, bytes(body, request), MediaTypes.of(request));
  }

  /** One of the index, {@code _cat} and cluster APIs' answers: JSON (filtered) or text, with its warnings. */
  static ResponseEntity<byte[]> of(Answer answer, HttpServletRequest request) {
    ResponseEntity<byte[]> entity = answer.isJson() ? json(answer.status(), answer.json(), request)
        : entity(answer.status(), answer.text().getBytes(StandardCharsets.UTF_8), MediaTypes.TEXT);
    if (answer.warnings().isEmpty()) {
      return entity;
    }
    HttpHeaders headers = new HttpHeaders();
    headers.putAll(entity.getHeaders());
    for (String warning : answer.warnings()) {
      headers.add("Warning", "299 Elasticsearch-" + ElasticsearchRootFilter.CLAIMED_VERSION + " \""
          + warning.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    }
    return ResponseEntity.status(entity.getStatusCode()).headers(headers).body(entity.getBody());
  }

  /** Writes {@code entity} to a servlet response (for the API's filters, which answer outside Spring MVC). */
  static void send(ResponseEntity<byte[]> entity, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    response.setStatus(entity.getStatusCode().value());
    entity.getHeaders().forEach((name, values) -> values.forEach(v -> response.addHeader(name, v)));
    if (!request.getMethod().equals("HEAD") && entity.getBody() != null) {
      response.getOutputStream().write(entity.getBody());
    }
  }

  private static ResponseEntity<byte[]> entity(int status, byte[] body, String type) {
    return ResponseEntity.status(status).header(HttpHeaders.CONTENT_TYPE, type)
        .header(MediaTypes.PRODUCT_HEADER, "Elasticsearch").body(body);
  }

  private static byte[] bytes(JsonNode body, HttpServletRequest request) {
    String pretty = request.getParameter("pretty");
    ObjectWriter writer = pretty != null && !pretty.equals("false") ? JSON.writerWithDefaultPrettyPrinter()
        : JSON.writer();
    try {
      return writer.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write an answer as JSON: " + e.getMessage(), e);
    }
  }
}
