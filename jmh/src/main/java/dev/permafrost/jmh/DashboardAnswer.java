/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.jmh.workload.DashboardWorkload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The check the Elasticsearch API's benchmarks make before they time anything: an answer to the dashboard's search
 * request holds the count, histogram and top terms the workload's own collector found.
 */
final class DashboardAnswer {
  private DashboardAnswer() {}

  /** Throws, saying what differs, unless {@code answer} holds what {@code expected} found. */
  static void check(DashboardWorkload.Result expected, JsonNode answer) {
    long total = answer.path("hits").path("total").path("value").asLong();
    long expectedTotal = Math.min(expected.hits(), SearchApi.MAX_RESULT_WINDOW);
    if (total != expectedTotal) {
      throw new IllegalStateException("the API counted " + total + " hits, the catalog " + expectedTotal);
    }
    checkAggregations(expected, answer);
  }

  private static void checkAggregations(DashboardWorkload.Result expected, JsonNode answer) {
    Map<Long, Long> histogram = new LinkedHashMap<>();
    answer.path("aggregations").path("histogram").path("buckets")
        .forEach(b -> histogram.put(b.path("key").asLong(), b.path("doc_count").asLong()));
    if (!histogram.equals(expected.histogram())) {
      throw new IllegalStateException("the answer's histogram differs from the catalog's: " + histogram + " vs "
          + expected.histogram());
    }
    check("urls", expected.topUrls(), answer);
    check("countries", expected.topCountries(), answer);
  }

  /**
   * Throws, saying what differs, unless {@code answer}, an engine node's own answer to the dashboard's search request
   * with an exact total ({@code track_total_hits: true}), holds what {@code expected} found.
   */
  static void checkNode(DashboardWorkload.Result expected, JsonNode answer) {
    JsonNode total = answer.path("hits").path("total");
    if (!total.path("relation").asText().equals("eq") || total.path("value").asLong() != expected.hits()) {
      throw new IllegalStateException("the node counted " + total + " hits, Permafrost " + expected.hits());
    }
    checkAggregations(expected, answer);
  }

  private static void check(String name, List<DashboardWorkload.Bucket> expected, JsonNode answer) {
    List<DashboardWorkload.Bucket> actual = new ArrayList<>();
    answer.path("aggregations").path(name).path("buckets")
        .forEach(b -> actual.add(new DashboardWorkload.Bucket(b.path("key").asText(), b.path("doc_count").asLong())));
    if (!actual.equals(expected)) {
      throw new IllegalStateException("the answer's top " + name + " differ from the catalog's: " + actual + " vs "
          + expected);
    }
  }
}
