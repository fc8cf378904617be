/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.util.List;
import java.util.Map;

/**
 * What a search over many indices with a collector manager gave ({@link Catalog#search(SearchRequest,
 * org.apache.lucene.search.CollectorManager)}).
 *
 * @param result what the manager reduced the collectors of every index searched to
 * @param searched indices searched, by name
 * @param skipped indices skipped without being opened: their recorded ranges could not match, or a glob selected
 *     them and they were unmounted before the search reached them
 * @param skipReasons why each skipped index was skipped, by name (the same order as {@code skipped})
 * @param failed indices that failed, by name, with the failure (only with partial results allowed)
 * @param timedOutIndices indices that had not finished at the search's timeout (only with partial results allowed):
 *     those that Lucene's own loop stopped gave the collectors they had, the others none
 * @param tookMillis how long the search took
 * @param cost what the search cost the store and the cache, counted for it alone
 * @param <T> the manager's result
 */
public record CollectedResponse<T>(T result, List<String> searched, List<String> skipped,
    Map<String, SkipReason> skipReasons, Map<String, String> failed, List<String> timedOutIndices, long tookMillis,
    SearchCost cost) {

  /** Whether the search passed its timeout before every index finished (see {@link #timedOutIndices()}). */
  public boolean timedOut() {
    return !timedOutIndices.isEmpty();
  }
}
