/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import dev.permafrost.catalog.SearchCost;
import dev.permafrost.catalog.SearchObserver;
import dev.permafrost.catalog.SearchRequest;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;

/**
 * Makes every catalog search a Micrometer {@link Observation} named {@value #NAME}: Micrometer Tracing turns it into a
 * span (OpenTelemetry or Brave), a meter handler into a timer, with no code in the application beyond
 * {@code Catalog.builder(cache).searchObserver(new SearchObservations(registry))}. Low-cardinality key values: the
 * outcome ({@code outcome=success|error}); high-cardinality: the query and the indices asked for, and the search's
 * cost (store requests, waves, bytes fetched and from the cache, indices searched).
 *
 * <p>The observation is current on the calling thread while the search runs; the threads that search each index are
 * not tracing-aware, so store requests ({@link ObservedBlobStore}) show as spans of their own, not as children.
 */
public final class SearchObservations implements SearchObserver {
  /** The observations' name. */
  public static final String NAME = "permafrost.search";
  private final ObservationRegistry registry;

  public SearchObservations(ObservationRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public Handle started(SearchRequest request) {
    Observation observation = Observation.createNotStarted(NAME, registry)
        .contextualName("permafrost search")
        .highCardinalityKeyValue("query", String.valueOf(request.query()))
        .highCardinalityKeyValue("indices", String.join(",", request.indices()))
        .start();
    Observation.Scope scope = observation.openScope();
    return (cost, failure) -> {
      scope.close();
      if (failure != null) {
        observation.lowCardinalityKeyValue("outcome", "error");
        observation.error(failure);
      } else {
        observation.lowCardinalityKeyValue("outcome", "success");
        put(observation, cost);
      }
      observation.stop();
    };
  }

  private static void put(Observation observation, SearchCost cost) {
    observation.highCardinalityKeyValue("store.requests", Long.toString(cost.storeRequests()))
        .highCardinalityKeyValue("store.waves", Integer.toString(cost.waves()))
        .highCardinalityKeyValue("bytes.fetched", Long.toString(cost.bytesFetched()))
        .highCardinalityKeyValue("bytes.cached", Long.toString(cost.bytesFromCache()))
        .highCardinalityKeyValue("indices.searched", Integer.toString(cost.indicesSearched()));
  }
}
