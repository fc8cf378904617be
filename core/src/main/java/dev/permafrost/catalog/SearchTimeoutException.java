/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.io.IOException;
import java.util.List;

/**
 * A search passed its {@linkplain SearchRequest.Builder#timeout timeout} with indices still running, and partial
 * results were not allowed. The message names the timeout and those indices.
 */
public final class SearchTimeoutException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient List<String> indices;

  SearchTimeoutException(String message, List<String> indices) {
    super(message);
    this.indices = List.copyOf(indices);
  }

  /** The indices that had not finished at the deadline. */
  public List<String> indices() {
    return indices;
  }
}
