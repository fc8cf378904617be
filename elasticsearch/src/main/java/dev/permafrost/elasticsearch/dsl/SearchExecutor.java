/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CollectedResponse;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.EngineDocuments;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TotalHits;

/**
 * Runs a parsed request ({@link SearchBody}) over the catalog's shards of its indices: one search for the hits
 * (sorted, after {@code search_after}'s values, counted up to what {@code track_total_hits} needs) and one for the
 * aggregations (or, with no hits shown, for the count), each index's shards with that index's query; the hits'
 * {@code _source} fetched (rebuilt from doc values where none is stored). {@code _search}, {@code _msearch} and
 * {@code _count} share it.
 *
 * <p>A later page (scroll, point in time) is the same request with a position: the indices' shards as they were
 * mounted, and the last hit's sort values as {@link SearchBody#searchAfter()}; nothing here keeps state between runs.
 */
final class SearchExecutor {
  private final Catalog catalog;

  SearchExecutor(Catalog catalog) {
    this.catalog = catalog;
  }

  SearchResult run(SearchBody body) throws IOException {
    if (body.indices().isEmpty()) {
      return new SearchResult(false, new TotalHits(0, TotalHits.Relation.EQUAL_TO), List.of(), Float.NaN, null,
          new SearchResult.Shards(0), false, false);
    }
    Map<String, IndexShards> byShard = new HashMap<>();
    int shardCount = 0;
    for (IndexShards index : body.indices()) {
      for (String shard : index.shards()) {
        byShard.put(shard, index);
        shardCount++;
      }
    }
    IndexQueries queries = body.queries();
    List<String> shards = queries.shards();
    TotalHits total = new TotalHits(0, TotalHits.Relation.EQUAL_TO);
    List<SearchResult.Hit> hits = List.of();
    float maxScore = Float.NaN;
    Aggregations.Result aggregated = null;
    SearchResult.Shards shardCounts = new SearchResult.Shards(shardCount);
    shardCounts.add(0, queries.failed(), 0);
    boolean timedOut = false;
    if (!shards.isEmpty()) {
      Query query = queries.any();
      String[] names = shards.toArray(String[]::new);
      if (body.fetchesHits()) {
        SearchRequest.Builder b = SearchRequest.builder(query).queryPerIndex(queries::query)
            .indices(names).size(body.from() + body.size())
            .fields(EngineDocuments.ID, EngineDocuments.SOURCE).allowPartialResults(true)
            .exactTotalHits(body.trackTotalHits() > 0 || body.trackTotalHits() == -1).timeout(body.timeout())
            .similarity(ClassicBm25Similarity.INSTANCE);
        if (body.sort().lucene() != null) {
          b.sort(body.sort().lucene());
        }
        if (body.searchAfter() != null) {
          b.searchAfter(body.searchAfter());
        }
        SearchResponse found = catalog.search(b.build());
        total = found.totalHits();
        hits = hits(found.hits(), body, byShard);
        for (SearchResponse.Hit hit : found.hits()) { // the best of all, those before from too, as the node's
          if (!Float.isNaN(hit.score())) {
            maxScore = Float.isNaN(maxScore) ? hit.score() : Math.max(maxScore, hit.score());
          }
        }
        shardCounts.add(found.skipped().size(), found.failed(), found.timedOutIndices().size());
        timedOut |= found.timedOut();
      }
      if (body.aggs() != null || !body.fetchesHits()) {
        Aggregations aggs = body.aggs() != null ? body.aggs() : Aggregations.NONE;
        CollectedResponse<Aggregations.Result> collected = catalog.search(SearchRequest.builder(query)
            .queryPerIndex(queries::query).indices(names).allowPartialResults(true)
            .timeout(body.timeout()).build(), aggs.collectorManager());
        aggregated = collected.result();
        if (!body.fetchesHits()) {
          total = new TotalHits(aggregated.docCount(), collected.timedOut() || !collected.failed().isEmpty()
              ? TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO : TotalHits.Relation.EQUAL_TO);
          shardCounts.add(collected.skipped().size(), collected.failed(), collected.timedOutIndices().size());
        }
        timedOut |= collected.timedOut();
      }
    }
    boolean skippedByPreFilter = hits.isEmpty() && total.value() == 0
        && body.preFilter().skipsEveryShard(body.indices(), catalog); // nothing found: would the node search at all?
    return new SearchResult(true, total, hits, maxScore, body.aggs() != null ? aggregated : null, shardCounts,
        timedOut, skippedByPreFilter);
  }

  /** The hits from {@code from} on, with their ids and, if shown, their sources. */
  private List<SearchResult.Hit> hits(List<SearchResponse.Hit> found, SearchBody body,
      Map<String, IndexShards> byShard) throws IOException {
    List<SearchResult.Hit> out = new ArrayList<>(Math.max(0, found.size() - body.from()));
    for (int i = body.from(); i < found.size(); i++) {
      SearchResponse.Hit hit = found.get(i);
      IndexShards index = byShard.get(hit.index());
      Document document = hit.document();
      String id = document == null ? null : EngineDocuments.id(document);
      String source = body.source().fetches() ? source(hit, document, index) : null;
      out.add(new SearchResult.Hit(index.name(), hit.index(), hit.doc(), id != null ? id : hit.index() + "#" + hit.doc(), hit.score(),
          hit.sortValues(), source)); // Permafrost's own snapshots keep no _id
    }
    return out;
  }

  private String source(SearchResponse.Hit hit, Document document, IndexShards index) throws IOException {
    IndexableField stored = document == null ? null : document.getField(EngineDocuments.SOURCE);
    String text = null;
    if (stored != null && stored.binaryValue() != null) {
      text = EngineDocuments.source(stored.binaryValue());
    } else if (stored != null) {
      text = stored.stringValue();
    }
    if (text == null) {
      // no _source stored (Elasticsearch's synthetic source): rebuilt from the document's doc values
      try (Lease lease = catalog.acquire(hit.index())) {
        text = EngineDocuments.sourceFromDocValues(lease.reader(), hit.doc(), index.mapping()).json();
      }
    }
    return text;
  }
}
