/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

/**
 * Told of every search a {@link Catalog} runs, to trace or meter it (the micrometer module's
 * {@code SearchObservations} makes each a Micrometer {@code Observation}, which tracing turns into a span). Called on
 * the thread that called {@code search}, before and after it; must not throw.
 */
public interface SearchObserver {
  /** A search starts; the returned handle is told how it ended. */
  Handle started(SearchRequest request);

  /** One search under way. */
  interface Handle {
    /** The search ended: with its cost, or with {@code failure} (then {@code cost} is null). */
    void ended(SearchCost cost, Throwable failure);
  }
}
