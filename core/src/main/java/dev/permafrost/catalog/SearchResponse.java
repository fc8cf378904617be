/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.search.TotalHits;

/**
 * The merged result of a {@link Catalog#search}: the top hits over all the indices searched (merged as Lucene's
 * {@code TopDocs.merge} does), their total, and which indices were searched, skipped without opening, or failed.
 *
 * @param totalHits hits over all the indices searched (and, with an exact total, those a sorted top-N counted)
 * @param hits the best hits, best first
 * @param searched indices searched, by name
 * @param skipped indices not searched: their recorded ranges could not match, or could not beat the hits found (for
 *     a top-N sorted on a point field; with an exact total these are counted, which may open them), or a glob selected
 *     them and they were unmounted before the search reached them
 * @param skipReasons why each skipped index was skipped, by name (the same order as {@code skipped})
 * @param failed indices that failed, by name, with the failure (only with partial results allowed)
 * @param timedOutIndices indices that had not finished at the search's timeout (only with partial results allowed):
 *     their hits so far are included, and the total is a lower bound
 * @param tookMillis how long the search took
 * @param cost what the search cost the store and the cache, counted for it alone
 */
public record SearchResponse(
    TotalHits totalHits,
    List<Hit> hits,
    List<String> searched,
    List<String> skipped,
    Map<String, SkipReason> skipReasons,
    Map<String, String> failed,
    List<String> timedOutIndices,
    long tookMillis,
    SearchCost cost) {

  /** Whether the search passed its timeout before every index finished (see {@link #timedOutIndices()}). */
  public boolean timedOut() {
    return !timedOutIndices.isEmpty();
  }

  /**
   * One hit.
   *
   * @param index the index it comes from
   * @param doc its document number in that index
   * @param score its score (NaN when sorted by something else)
   * @param sortValues its sort values, or null when sorted by score
   * @param document its requested stored fields, or null when none were asked for
   */
  public record Hit(String index, int doc, float score, Object[] sortValues, Document document) {}
}
