/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CollectedResponse;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.EngineDocuments;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TotalHits;

/**
 * Runs a parsed request ({@link SearchBody}) over the catalog's shards of its indices: one search for the hits
 * (sorted, after {@code search_after}'s values, counted up to what {@code track_total_hits} needs) and one for the
 * aggregations (or, with no hits shown, for the count), each index's shards with that index's query; the hits'
 * {@code _source} fetched (rebuilt from doc values where none is stored), and their {@code fields} and highlights
 * ({@link HitShaping}) read. {@code _search}, {@code _msearch} and
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
          new SearchResult.Shards(0), false);
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
    return new SearchResult(true, total, hits, maxScore, body.aggs() != null ? aggregated : null, shardCounts,
        timedOut);
  }

  /**
   * The hits from {@code from} on, with their ids and, if shown, their sources, {@code fields} and highlights (both
   * read from the source, stored or rebuilt).
   */
  private List<SearchResult.Hit> hits(List<SearchResponse.Hit> found, SearchBody body,
      Map<String, IndexShards> byShard) throws IOException {
    List<SearchResult.Hit> out = new ArrayList<>(Math.max(0, found.size() - body.from()));
    HitShaping shaping = body.shaping();
    Map<IndexMapping, Map<JsonNode, Query>> highlightQueries = new IdentityHashMap<>();
    for (int i = body.from(); i < found.size(); i++) {
      SearchResponse.Hit hit = found.get(i);
      IndexShards index = byShard.get(hit.index());
      Document document = hit.document();
      String stored = document == null ? null : EngineDocuments.id(document);
      String id = stored != null ? stored : hit.index() + "#" + hit.doc(); // Permafrost's own snapshots keep no _id
      String source = body.source().fetches() || shaping.readsSource() ? source(hit, document, index) : null;
      Map<String, List<JsonNode>> fields = Map.of();
      Map<String, List<String>> highlight = Map.of();
      if (shaping != HitShaping.NONE) {
        ObjectNode parsed = source == null ? null : sourceObject(source, hit);
        if (!shaping.fields().isEmpty()) {
          fields = fields(shaping.fields(), hit, index, id, parsed);
        }
        if (shaping.highlight() != null) {
          Map<JsonNode, Query> byJson = highlightQueries.computeIfAbsent(index.mapping(), m -> new HashMap<>());
          highlight = HitHighlighter.of(shaping.highlight(), index.mapping(), parsed,
              body.queries().query(hit.index()),
              json -> byJson.computeIfAbsent(json, j -> new QueryDsl(index.mapping()).toQuery(j)));
        }
      }
      out.add(new SearchResult.Hit(index.name(), hit.index(), hit.doc(), id, hit.score(), hit.sortValues(),
          body.source().fetches() ? source : null, fields, highlight));
    }
    return out;
  }

  /** A hit's {@code fields}: doc values read in its segment while the index is held. */
  private Map<String, List<JsonNode>> fields(FieldsSpec spec, SearchResponse.Hit hit, IndexShards index, String id,
      ObjectNode source) throws IOException {
    if (spec.docValueFields().isEmpty()) {
      return HitFields.of(spec, new HitFields.Hit(index.name(), id, index.mapping(), source, null, -1));
    }
    try (Lease lease = catalog.acquire(hit.index())) {
      List<LeafReaderContext> leaves = lease.reader().leaves();
      LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(hit.doc(), leaves));
      return HitFields.of(spec, new HitFields.Hit(index.name(), id, index.mapping(), source, leaf.reader(),
          hit.doc() - leaf.docBase));
    }
  }

  private static ObjectNode sourceObject(String source, SearchResponse.Hit hit) {
    JsonNode parsed = SearchRenderer.parseJson(source, "the _source of " + hit.index() + " document " + hit.doc());
    return parsed instanceof ObjectNode o ? o : null;
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
