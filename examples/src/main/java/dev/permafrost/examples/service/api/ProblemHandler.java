/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.catalog.SearchTimeoutException;
import dev.permafrost.snapshot.SnapshotException;
import jakarta.servlet.http.HttpServletRequest;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import org.apache.lucene.index.CorruptIndexException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns every failure into an RFC 9457 problem document: the API's own refusals, bad query syntax (400, with the
 * parser's message), bad parameters (400, refused by the controllers as they read them), unknown snapshots (404), a store that cannot be reached (503), a search past its
 * {@code timeout} over one named index (504, naming the timeout; over a pattern the others' hits answer), corrupt
 * data (500, naming the snapshot and file) and anything else (500). Spring MVC's own errors (unknown paths, wrong
 * types, unreadable bodies) come from {@link ResponseEntityExceptionHandler}. Stack traces go to the log only.
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

  @ExceptionHandler(ApiException.class)
  ResponseEntity<ProblemDetail> refused(ApiException e, HttpServletRequest request) {
    return problem(e.status, e.title, e.getMessage(), request);
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<ProblemDetail> failure(Exception e, HttpServletRequest request) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CorruptIndexException || t instanceof SnapshotException.CorruptManifest) {
        log.error("{} {} read corrupt data", request.getMethod(), request.getRequestURI(), e);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Corrupt data", t.getMessage(), request);
      }
      if (t instanceof SnapshotException.NotFound) {
        return problem(HttpStatus.NOT_FOUND, "Unknown snapshot", t.getMessage(), request);
      }
      if (t instanceof SearchTimeoutException) {
        log.warn("{} {}: {}", request.getMethod(), request.getRequestURI(), t.getMessage());
        return problem(HttpStatus.GATEWAY_TIMEOUT, "Search timed out", t.getMessage(), request);
      }
      if (t instanceof BlobNotFoundException) {
        log.error("{} {} found a blob missing", request.getMethod(), request.getRequestURI(), e);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Missing blob", t.getMessage(), request);
      }
      if (t instanceof BlobStoreException || t instanceof ConnectException || t instanceof UnknownHostException
          || t instanceof SocketTimeoutException) {
        log.warn("{} {}: the repository did not answer: {}", request.getMethod(), request.getRequestURI(), t.toString());
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "Repository unavailable", t.getMessage(), request);
      }
      if (t instanceof IllegalStateException) {
        log.warn("{} {}: {}", request.getMethod(), request.getRequestURI(), t.toString());
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "Unavailable", t.getMessage(), request);
      }
    }
    log.error("{} {} failed", request.getMethod(), request.getRequestURI(), e);
    return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error",
        e.getClass().getSimpleName() + ": " + e.getMessage(), request);
  }

  private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, String detail,
      HttpServletRequest request) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setTitle(title);
    problem.setInstance(URI.create(request.getRequestURI()));
    return ResponseEntity.status(status).body(problem);
  }
}
