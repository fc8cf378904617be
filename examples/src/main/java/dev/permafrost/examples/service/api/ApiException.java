/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import java.util.function.Supplier;
import org.springframework.http.HttpStatus;

/** A request the API refuses, with the status and problem title to answer with; the message is the detail. */
final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  final HttpStatus status;
  final String title;

  ApiException(HttpStatus status, String title, String detail) {
    super(detail);
    this.status = status;
    this.title = title;
  }

  static ApiException unknownIndex(String name) {
    return new ApiException(HttpStatus.NOT_FOUND, "Unknown index", "no index named '" + name + "' is mounted");
  }

  static ApiException badParameter(String detail) {
    return new ApiException(HttpStatus.BAD_REQUEST, "Bad parameter", detail);
  }

  /** What {@code parse} gives; its {@link IllegalArgumentException} (a parameter it cannot read) as a 400. */
  static <T> T parameter(Supplier<T> parse) {
    try {
      return parse.get();
    } catch (IllegalArgumentException e) {
      throw badParameter(e.getMessage());
    }
  }

  /**
   * The queries {@code translate} gives; its {@link IllegalArgumentException} ({@code q} does not parse, or names a
   * field an index's mapping cannot query) as a 400 "Bad query".
   */
  static <T> T query(Supplier<T> translate) {
    try {
      return translate.get();
    } catch (IllegalArgumentException e) {
      throw new ApiException(HttpStatus.BAD_REQUEST, "Bad query", e.getMessage());
    }
  }
}
