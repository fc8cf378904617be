/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.dsl.DslException;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;
import org.springframework.web.util.UriUtils;

/**
 * A request for Elasticsearch's API ({@link MediaTypes#forElasticsearch}: from a client, or with a path segment that
 * starts with {@code _}) that names no endpoint the service has gets a node's answer, as JSON an Elasticsearch client
 * reads (never {@code application/problem+json}): {@code 400 {"error": "no handler found for uri [/x/_y?z] and method
 * [GET]"}}, or, for a path the service answers with other methods (an index's, {@code /{index}}, among them), {@code 405
 * {"error": "Incorrect HTTP method for uri [...] and method [DELETE], allowed: [GET, POST]", "status": 405}} with an
 * {@code Allow} header; {@code GET /_x} is an index name no index may have ({@code invalid_index_name_exception}). Every other request
 * (the service's own API and page) keeps the service's own answers. Runs before Spring MVC's own resolvers.
 */
@Component
class ElasticsearchErrors implements HandlerExceptionResolver, Ordered {
  /** The order the methods are listed in, as a node lists them. */
  private static final List<String> METHODS = List.of("GET", "POST", "PUT", "DELETE", "HEAD");

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE + 1; // after Spring Boot's error attributes, which only record the error
  }

  @Override
  public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
      Exception e) {
    boolean unknown = e instanceof NoResourceFoundException || e instanceof NoHandlerFoundException;
    boolean wrongMethod = e instanceof HttpRequestMethodNotSupportedException;
    if ((!unknown && !wrongMethod) || !MediaTypes.forElasticsearch(request)) {
      return null;
    }
    String uri = request.getRequestURI() + (request.getQueryString() == null ? "" : "?" + request.getQueryString());
    String path = request.getRequestURI().substring(request.getContextPath().length());
    boolean indexPath = path.length() > 1 && path.indexOf('/', 1) < 0 && path.charAt(1) != '_'; // /{index}'s
    boolean read = request.getMethod().equals("GET") || request.getMethod().equals("HEAD");
    List<String> allowed = new ArrayList<>();
    if (indexPath && !read) {
      allowed.addAll(List.of("GET", "HEAD")); // the service answers an index's GET and HEAD, nothing else
    } else if (wrongMethod && !(handler instanceof ResourceHttpRequestHandler)) {
      Set<HttpMethod> supported = ((HttpRequestMethodNotSupportedException) e).getSupportedHttpMethods();
      for (String m : METHODS) {
        if (supported != null && supported.contains(HttpMethod.valueOf(m)) && !m.equals("HEAD")) {
          allowed.add(m);
        }
      }
    }
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    ResponseEntity<byte[]> answer;
    if (!allowed.isEmpty()) {
      body.put("error", "Incorrect HTTP method for uri [" + uri + "] and method [" + request.getMethod()
          + "], allowed: " + allowed);
      body.put("status", 405);
      ResponseEntity<byte[]> error = ApiAnswers.error(405, body, request);
      answer = ResponseEntity.status(405).headers(error.getHeaders()).header("Allow", String.join(",", allowed))
          .body(error.getBody());
    } else if (read && path.length() > 1 && path.indexOf('/', 1) < 0) { // GET /_x: index _x, a name none may have
      String name = UriUtils.decode(path.substring(1), StandardCharsets.UTF_8);
      answer = ApiAnswers.error(400, SearchApi.error(DslException.invalidIndexName(name, "must not start with '_'")),
          request);
    } else {
      body.put("error", "no handler found for uri [" + uri + "] and method [" + request.getMethod() + "]");
      answer = ApiAnswers.error(400, body, request);
    }
    try {
      ApiAnswers.send(answer, request, response);
    } catch (IOException ioe) {
      // the client is gone: nothing more to say
    }
    return new ModelAndView();
  }
}
