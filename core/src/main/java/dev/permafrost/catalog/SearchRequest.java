/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.similarities.Similarity;

/**
 * A search over many mounted indices ({@link Catalog#search}): a Lucene query, the indices (names or globs), the
 * top-N by score or by a sort, the stored fields of the hits to fetch, and whether a failing index fails the search.
 *
 * <p>Indices whose recorded point ranges cannot match a range the query requires (a {@code PointRangeQuery}, or one
 * required by a {@code BooleanQuery}, such as {@code LongPoint.newRangeQuery("@timestamp", from, to)} as a filter)
 * are skipped without being opened (unless {@link Builder#searchEveryIndex}). A top-N sorted on a point field (newest first, say) visits indices in the order of
 * their recorded ranges and stops opening those that cannot beat the hits it has.
 */
public final class SearchRequest {
  final Query query;
  final List<String> indices;
  final int size;
  final Sort sort;
  final List<String> fields;
  final boolean allowPartialResults;
  final boolean exactTotalHits;
  /** Null: the catalog's default. */
  final Duration timeout;
  final boolean profile;
  /** The sort values the hits come after, or null: the first page. */
  final Object[] searchAfter;
  /** Null: Lucene's default. */
  final Similarity similarity;
  /** Null: {@link #query} in every index. */
  final Function<String, Query> queryPerIndex;
  final boolean searchEveryIndex;

  private SearchRequest(Builder b) {
    this.query = b.query;
    this.indices = b.indices;
    this.size = b.size;
    this.sort = b.sort;
    this.fields = b.fields;
    this.allowPartialResults = b.allowPartialResults;
    this.exactTotalHits = b.exactTotalHits;
    this.timeout = b.timeout;
    this.profile = b.profile;
    this.searchAfter = b.searchAfter;
    this.similarity = b.similarity;
    this.queryPerIndex = b.queryPerIndex;
    this.searchEveryIndex = b.searchEveryIndex;
  }

  /** A search for {@code query} over every mounted index, top 10 by score. */
  public static Builder builder(Query query) {
    return new Builder(Objects.requireNonNull(query, "query"));
  }

  /** The query. */
  public Query query() {
    return query;
  }

  /**
   * The query searched in the index mounted as {@code index}: the one {@link Builder#queryPerIndex} gives for it,
   * else {@link #query()}.
   */
  public Query query(String index) {
    if (queryPerIndex == null) {
      return query;
    }
    Query q = queryPerIndex.apply(index);
    if (q == null) {
      throw new IllegalStateException("the request's queryPerIndex gave no query for index " + index);
    }
    return q;
  }

  /** The indices: names or globs. */
  public List<String> indices() {
    return indices;
  }

  @Override
  public String toString() {
    return "SearchRequest(" + query + " in " + indices + ", top " + size + (sort == null ? "" : " by " + sort)
        + (timeout == null ? "" : ", timeout " + timeout) + ")";
  }

  /** Settings of a {@link SearchRequest}. */
  public static final class Builder {
    private final Query query;
    private List<String> indices = List.of("*");
    private int size = 10;
    private Sort sort;
    private List<String> fields = List.of();
    private boolean allowPartialResults;
    private boolean exactTotalHits;
    private Duration timeout;
    private boolean profile;
    private Object[] searchAfter;
    private Similarity similarity;
    private Function<String, Query> queryPerIndex;
    private boolean searchEveryIndex;

    private Builder(Query query) {
      this.query = query;
    }

    /** The indices: names, or globs with {@code *} and {@code ?} (default {@code *}: every mounted index). */
    public Builder indices(String... namesOrGlobs) {
      if (namesOrGlobs.length == 0) {
        throw new IllegalArgumentException("name at least one index or glob");
      }
      this.indices = List.of(namesOrGlobs);
      return this;
    }

    /** How many hits to return, the best first (default 10). */
    public Builder size(int hits) {
      if (hits < 1) {
        throw new IllegalArgumentException("size must be at least 1, got " + hits);
      }
      this.size = hits;
      return this;
    }

    /** Sort the hits (default: by score). */
    public Builder sort(Sort sort) {
      this.sort = sort;
      return this;
    }

    /** Stored fields to fetch for each hit (default none). */
    public Builder fields(String... names) {
      this.fields = List.of(names);
      return this;
    }

    /**
     * Whether an index that fails leaves the others' hits as the result (reported in
     * {@link SearchResponse#failed()}) rather than failing the search (default false).
     */
    public Builder allowPartialResults(boolean allow) {
      this.allowPartialResults = allow;
      return this;
    }

    /**
     * Whether {@link SearchResponse#totalHits()} is exact (default false: Lucene's default, exact up to 1,000 hits
     * per index, then a lower bound). Exact totals count every index that can match with
     * {@code IndexSearcher.count}, which is cheap for terms and point ranges, and so open every such index: a top-N
     * sorted on a point field still searches only the indices that can beat its hits, and counts the others (from
     * their index statistics where Lucene can, which reads nothing; never reading a sort value).
     */
    public Builder exactTotalHits(boolean exact) {
      this.exactTotalHits = exact;
      return this;
    }

    /**
     * How long the search may run (default: the catalog's {@code searchTimeout}, none unless set), as in
     * Elasticsearch: the deadline counts from the call and covers all of it, opening readers, waiting for the store
     * and Lucene's own loops included. At the deadline, indices not finished are reported in
     * {@link SearchResponse#timedOutIndices()} with the hits found so far if partial results are allowed (the total
     * is then a lower bound); otherwise the search fails with a {@link SearchTimeoutException} naming the timeout and
     * those indices. Every wait for the store gives up at the deadline and calls its fetch off if no other reader
     * waits for it.
     */
    public Builder timeout(Duration timeout) {
      if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
        throw new IllegalArgumentException("timeout must be positive, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * Whether the response's {@link SearchResponse#cost() cost} breaks down per index (default false: totals only,
     * which every search counts anyway).
     */
    public Builder profile(boolean profile) {
      this.profile = profile;
      return this;
    }

    /**
     * Returns the hits that come strictly after {@code sortValues} in the sort's order (Elasticsearch's
     * {@code search_after}): one value per sort field, as a hit's {@link SearchResponse.Hit#sortValues()} gives them
     * ({@code BytesRef} for a string field, {@code Long}, {@code Double}, ... for numbers, {@code Float} for the score).
     * Documents whose sort values equal them are left out too, so the sort should end with a field unique to each
     * document. Needs a {@link #sort}; a page after the first is never narrowed by an exact total's shortcut.
     */
    public Builder searchAfter(Object... sortValues) {
      this.searchAfter = sortValues == null ? null : sortValues.clone();
      return this;
    }

    /**
     * The similarity that scores the hits in every index (default: Lucene's, {@code BM25Similarity}); a search by an
     * application that indexed with another, or that must score as another engine does, gives it here.
     */
    public Builder similarity(Similarity similarity) {
      this.similarity = similarity;
      return this;
    }

    /**
     * The query to search in each index, by the name it is mounted under, where indices need queries of their own
     * (each read by its own mapping, say): called once or more per index, from any thread, before or while the index
     * is searched, and must give a query for every index the request may search. The builder's query still names the
     * search (logs, {@link #toString()}). What an index's query requires is what can-match checks in that index.
     * Default: the builder's query everywhere.
     */
    public Builder queryPerIndex(Function<String, Query> queryPerIndex) {
      this.queryPerIndex = queryPerIndex;
      return this;
    }

    /**
     * Whether every index the request selects is searched, also one whose recorded point ranges show the query matches
     * nothing there (default false: such an index is skipped unopened, {@link SkipReason#CANNOT_MATCH}). A collector
     * that reports what no document matched needs each index searched: a terms aggregation's zero-count buckets
     * enumerate an index's terms whatever its matches, and Elasticsearch's node searches every shard of a search with
     * aggregations. The sorted early stop still skips indices that cannot beat the hits found.
     */
    public Builder searchEveryIndex(boolean every) {
      this.searchEveryIndex = every;
      return this;
    }

    public SearchRequest build() {
      if (searchAfter != null && (sort == null || sort.getSort().length != searchAfter.length)) {
        throw new IllegalArgumentException("searchAfter needs one value per sort field: " + searchAfter.length
            + " values for " + (sort == null ? "no sort" : sort.getSort().length + " sort fields (" + sort + ")"));
      }
      return new SearchRequest(this);
    }
  }
}
