/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CollectedResponse;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.EngineDocuments;
import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.sample.AccessLogGenerator;
import dev.permafrost.sample.DatasetSpec;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;

/**
 * The three workloads of the benchmarks, as the same search on both engines: OpenSearch's query DSL over its restored
 * {@code remote_snapshot} indices, and Lucene queries through a Permafrost {@link Catalog} over the same snapshot's
 * shards. Each answer keeps what both must agree on: the total, the hits' {@code _id}s and sort values, and for the
 * dashboard its date histogram.
 *
 * <ul>
 *   <li><b>needle</b>: a term on {@code source.ip} (a high-cardinality keyword), the 20 newest hits.
 *   <li><b>dashboard</b>: status 404 in the span but its first tenth (both filters), an hourly date histogram and the
 *       top 10 URLs and countries (the terms are not compared: OpenSearch's terms aggregation over several indices
 *       is approximate, Permafrost's exact).
 *   <li><b>discover</b>: the same time range, the 500 newest with {@code _source}, and the exact total.
 * </ul>
 */
final class PeerWorkloads {
  static final List<String> NAMES = List.of("needle", "dashboard", "discover");
  private static final long HOUR = 3_600_000L;

  /** What both engines must agree on. */
  record Answer(long total, List<String> ids, List<Long> sortValues, SortedMap<Long, Long> histogram) {
    /** Null if {@code other} says the same, else what differs. */
    String differenceFrom(Answer other) {
      if (total != other.total) {
        return "totals " + total + " and " + other.total;
      }
      if (!sortValues.equals(other.sortValues)) {
        return "sort values " + sortValues + " and " + other.sortValues;
      }
      if (!histogram.equals(other.histogram)) {
        return "histograms " + histogram + " and " + other.histogram;
      }
      // hits of equal sort values may come in any order, and those with the last value may be cut at different ones:
      // compare the others as (sort value, id) pairs
      long last = sortValues.isEmpty() ? Long.MIN_VALUE : sortValues.get(sortValues.size() - 1);
      List<String> mine = new ArrayList<>();
      List<String> theirs = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        if (sortValues.get(i) != last) {
          mine.add(sortValues.get(i) + " " + ids.get(i));
          theirs.add(other.sortValues.get(i) + " " + other.ids.get(i));
        }
      }
      mine.sort(null);
      theirs.sort(null);
      return mine.equals(theirs) ? null : "hits " + ids + " and " + other.ids;
    }
  }

  private final long from;
  private final long to;

  PeerWorkloads(DatasetSpec spec) {
    this.from = spec.startMillis() + (spec.endMillis() - spec.startMillis()) / 10;
    this.to = spec.endMillis();
  }

  // ---- OpenSearch ----

  /** The workload's search request body, in OpenSearch's query DSL. */
  String openSearchBody(String workload) {
    String range = "{\"range\":{\"@timestamp\":{\"gte\":" + from + ",\"lt\":" + to + ",\"format\":\"epoch_millis\"}}}";
    String newest = "\"sort\":[{\"@timestamp\":{\"order\":\"desc\"}}]";
    return switch (workload) {
      case "needle" -> "{\"size\":20,\"track_total_hits\":true,\"_source\":false," + newest + ",\"query\":{\"term\":{\""
          + AccessLogDocuments.SOURCE_IP + "\":\"" + AccessLogGenerator.NEEDLE_IP + "\"}}}";
      case "dashboard" -> "{\"size\":0,\"track_total_hits\":true,\"query\":{\"bool\":{\"filter\":[{\"term\":{\""
          + AccessLogDocuments.STATUS + "\":\"404\"}}," + range + "]}},\"aggs\":{"
          + "\"histogram\":{\"date_histogram\":{\"field\":\"@timestamp\",\"fixed_interval\":\"1h\",\"min_doc_count\":1}},"
          + "\"urls\":{\"terms\":{\"field\":\"" + AccessLogDocuments.URL_PATH + "\",\"size\":10}},"
          + "\"countries\":{\"terms\":{\"field\":\"" + AccessLogDocuments.COUNTRY + "\",\"size\":10}}}}";
      case "discover" -> "{\"size\":500,\"track_total_hits\":true," + newest + ",\"query\":{\"bool\":{\"filter\":["
          + range + "]}}}";
      default -> throw new IllegalArgumentException("unknown workload " + workload);
    };
  }

  /**
   * Runs the workload on the peer's indices ({@code pattern}) and reads its answer; {@code requestCache}: whether
   * OpenSearch may answer a size-0 search (the dashboard) from its shard request cache, as it does by default.
   */
  Answer openSearch(Rest os, String pattern, String workload, boolean requestCache) throws IOException {
    JsonNode r = os.post("/" + pattern + "/_search" + (requestCache ? "" : "?request_cache=false"),
        openSearchBody(workload));
    if (r.path("_shards").path("failed").asInt() > 0 || r.path("timed_out").asBoolean()) {
      throw new IOException("OpenSearch's " + workload + " did not search every shard: " + r.path("_shards"));
    }
    List<String> ids = new ArrayList<>();
    List<Long> sorts = new ArrayList<>();
    for (JsonNode hit : r.path("hits").path("hits")) {
      ids.add(hit.path("_id").asText());
      sorts.add(hit.path("sort").get(0).asLong());
    }
    SortedMap<Long, Long> histogram = new TreeMap<>();
    for (JsonNode bucket : r.path("aggregations").path("histogram").path("buckets")) {
      histogram.put(bucket.path("key").asLong(), bucket.path("doc_count").asLong());
    }
    JsonNode total = r.path("hits").path("total");
    if (!"eq".equals(total.path("relation").asText())) {
      throw new IOException("OpenSearch's " + workload + " total is a bound: " + total);
    }
    return new Answer(total.path("value").asLong(), ids, sorts, histogram);
  }

  // ---- Permafrost ----

  private Query query(String workload) {
    Query range = LongPoint.newRangeQuery(AccessLogDocuments.TIMESTAMP, from, to - 1);
    return switch (workload) {
      case "needle" -> new TermQuery(new Term(AccessLogDocuments.SOURCE_IP, AccessLogGenerator.NEEDLE_IP));
      case "dashboard" -> dashboard().query();
      case "discover" -> range;
      default -> throw new IllegalArgumentException("unknown workload " + workload);
    };
  }

  DashboardWorkload dashboard() {
    return new DashboardWorkload(from, to, HOUR, 10);
  }

  /** Runs the workload on every index mounted in {@code catalog}, sorting as {@code newestFirst} says. */
  Answer permafrost(Catalog catalog, String workload, SortField newestFirst) throws IOException {
    if (workload.equals("dashboard")) {
      CollectedResponse<DashboardWorkload.Result> r = catalog.search(
          SearchRequest.builder(query(workload)).indices("*").build(), dashboard().collectorManager());
      return new Answer(r.result().hits(), List.of(), List.of(), new TreeMap<>(r.result().histogram()));
    }
    int size = workload.equals("needle") ? 20 : 500;
    SearchRequest.Builder request = SearchRequest.builder(query(workload)).indices("*").size(size)
        .sort(new Sort(newestFirst)).exactTotalHits(true).fields(EngineDocuments.ID);
    if (workload.equals("discover")) {
      request.fields(EngineDocuments.ID, EngineDocuments.SOURCE);
    }
    SearchResponse r = catalog.search(request.build());
    if (!r.failed().isEmpty() || r.timedOut()) {
      throw new IOException("Permafrost's " + workload + " did not search every index: " + r.failed());
    }
    List<String> ids = new ArrayList<>();
    List<Long> sorts = new ArrayList<>();
    for (SearchResponse.Hit hit : r.hits()) {
      ids.add(EngineDocuments.id(hit.document()));
      sorts.add(((Number) hit.sortValues()[0]).longValue());
    }
    return new Answer(r.totalHits().value(), ids, sorts, new TreeMap<>());
  }

  /** The time range the dashboard and discover cover, for the report. */
  String rangeDescription() {
    return Instant.ofEpochMilli(from) + " to " + Instant.ofEpochMilli(to);
  }
}
