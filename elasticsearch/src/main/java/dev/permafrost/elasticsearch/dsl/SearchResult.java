/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.TotalHits;

/**
 * What a search came to, before it is written as Elasticsearch's JSON ({@link SearchRenderer}).
 *
 * @param searched whether any index was searched (none: the request named no index)
 * @param total the hits matched, as the searches counted them (before {@code track_total_hits} bounds it)
 * @param hits the hits shown, from the request's {@code from} on
 * @param maxScore the best score of every hit found, those before {@code from} too, as the node's (NaN: none scored)
 * @param aggregations the aggregations' merged partials (null: none asked, or nothing searched)
 * @param shards how many shards were searched, skipped, failed and timed out
 * @param timedOut whether a shard stopped at the timeout
 * @param skippedByPreFilter whether the node's pre-filter would have skipped every shard ({@link PreFilter}): then
 *     {@code max_score} is 0 and the total 0 even untracked, as the node answers
 */
record SearchResult(boolean searched, TotalHits total, List<Hit> hits, float maxScore, Aggregations.Result aggregations,
    Shards shards, boolean timedOut, boolean skippedByPreFilter) {
  /** The last hit's sort values, where a next page starts ({@link SearchBody#next}); null with no hit or no sort. */
  Object[] lastSortValues() {
    return hits.isEmpty() ? null : hits.getLast().sortValues();
  }

  /**
   * One hit.
   *
   * @param index the index it is in
   * @param shard the shard it is in, as the catalog mounts it
   * @param doc its document number in the shard
   * @param id its {@code _id} (for Permafrost's own snapshots, which keep none, its shard and document number)
   * @param score its score (NaN: not scored)
   * @param sortValues its values of the sort's fields (null: sorted by score)
   * @param source its {@code _source}'s JSON text (null: not shown)
   * @param fields its {@code fields} section by field (empty: none)
   * @param highlight its {@code highlight} section's fragments by field (empty: none)
   * @param leftOut the fields whose values its {@code _source}, rebuilt from doc values, could not give back (empty:
   *     none, or a stored source)
   */
  record Hit(String index, String shard, int doc, String id, float score, Object[] sortValues, String source,
      Map<String, List<JsonNode>> fields, Map<String, List<String>> highlight, List<String> leftOut) {}

  /**
   * The {@code _shards} section: how many shards a search had, skipped, and which failed (shard name to why). The
   * searches of one request (hits, then aggregations) each add theirs: the most skipped and timed out, every failure.
   */
  static final class Shards {
    final int total;
    int skipped;
    final Map<String, String> failed = new LinkedHashMap<>();
    int timedOut;

    Shards(int total) {
      this.total = total;
    }

    void add(int skipped, Map<String, String> failed, int timedOut) {
      this.skipped = Math.max(this.skipped, skipped);
      this.failed.putAll(failed);
      this.timedOut = Math.max(this.timedOut, timedOut);
    }
  }
}
