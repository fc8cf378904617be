/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CollectedResponse;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.EngineDocuments;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MissingSources;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.FieldComparator;
import org.apache.lucene.search.Pruning;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
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
 * mounted, and the last hit's place ({@link CursorPosition}): {@link #page}; nothing here keeps state between runs.
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
            .searchEveryIndex(aggs.visitsEveryShard()).timeout(body.timeout()).build(), aggs.collectorManager());
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

  /**
   * One page of a scroll or a point in time: the request's hits in its sort, then by {@code _shard_doc} (shard
   * ordinal, document) ascending or, with {@code tieDescending}, descending, after {@code after} (null: the first
   * page). Each shard of {@code shardOrder} (a shard's ordinal is its place there) is searched alone, after the
   * position's values and, where they are equal, after its document in the last hit's shard, every document in the
   * shards after it and none in those before; the shards' top hits are merged in that order. Sorted by {@code _doc}
   * alone (as {@code helpers.scan} asks), the order is the shards' one after another, and a shard after enough hits
   * is only counted. The total is every shard's matches, as the node's each page.
   */
  Page page(SearchBody body, List<String> shardOrder, CursorPosition after, boolean tieDescending) throws IOException {
    assert body.fetchesHits() && !body.indices().isEmpty();
    Map<String, IndexShards> byShard = new HashMap<>();
    for (IndexShards index : body.indices()) {
      for (String shard : index.shards()) {
        byShard.put(shard, index);
      }
    }
    IndexQueries queries = body.queries();
    SortField[] asked = body.sort().lucene() == null ? new SortField[] {SortField.FIELD_SCORE}
        : body.sort().lucene().getSort();
    boolean docOrder = docOrder(body.sort(), tieDescending);
    SortField[] ordering = docOrder ? new SortField[0] : asked;
    SortField[] perShard = Arrays.copyOf(ordering, ordering.length + 1);
    perShard[ordering.length] = new SortField(null, SortField.Type.DOC, tieDescending);
    Sort sort = new Sort(perShard);
    int want = body.from() + body.size();
    boolean counts = body.trackTotalHits() != SearchBody.TOTAL_NOT_TRACKED;
    SearchResult.Shards shardCounts = new SearchResult.Shards(byShard.size());
    shardCounts.add(0, queries.failed(), 0);
    long total = 0;
    boolean exact = true;
    boolean timedOut = false;
    List<Candidate> candidates = new ArrayList<>();
    int skipped = 0;
    int timedOutShards = 0;
    Map<String, String> failed = new LinkedHashMap<>();
    for (int k = 0; k < shardOrder.size(); k++) {
      int ordinal = tieDescending ? shardOrder.size() - 1 - k : k;
      String shard = shardOrder.get(ordinal);
      if (queries.failed().containsKey(shard)) {
        continue;
      }
      // where this shard stands to the last hit's: before it (none of its equal values), it, or after (all of them)
      int relation = after == null ? 1 : tieDescending ? Integer.compare(after.shard(), ordinal)
          : Integer.compare(ordinal, after.shard());
      boolean countOnly = docOrder && (relation < 0 || candidates.size() >= want);
      if (countOnly && !counts) {
        continue;
      }
      SearchRequest.Builder b = SearchRequest.builder(queries.query(shard)).indices(shard)
          .size(countOnly ? 1 : want).sort(sort).allowPartialResults(true)
          .exactTotalHits(body.trackTotalHits() > 0 || body.trackTotalHits() == -1).timeout(body.timeout())
          .similarity(ClassicBm25Similarity.INSTANCE);
      if (after != null) {
        int excludeAll = tieDescending ? -1 : Integer.MAX_VALUE;
        int includeAll = tieDescending ? Integer.MAX_VALUE : -1;
        Object[] values = Arrays.copyOf(after.values(), ordering.length + 1);
        values[ordering.length] = relation < 0 ? excludeAll : relation == 0 ? after.doc() : includeAll;
        b.searchAfter(values);
      }
      SearchResponse found = catalog.search(b.build());
      total += found.totalHits().value();
      exact &= found.totalHits().relation() == TotalHits.Relation.EQUAL_TO;
      skipped += found.skipped().size();
      failed.putAll(found.failed());
      timedOutShards += found.timedOutIndices().size();
      timedOut |= found.timedOut();
      if (!countOnly) {
        for (SearchResponse.Hit hit : found.hits()) {
          candidates.add(new Candidate(hit, ordinal));
        }
      }
    }
    shardCounts.add(skipped, failed, timedOutShards);
    candidates.sort(order(ordering, tieDescending));
    List<Candidate> top = candidates.subList(0, Math.min(want, candidates.size()));
    float maxScore = Float.NaN;
    int scoreAt = body.sort().lucene() == null ? 0 : body.sort().scoreAt();
    List<SearchResponse.Hit> merged = new ArrayList<>(top.size());
    for (Candidate c : top) {
      Object[] values = c.hit.sortValues();
      float score = scoreAt >= 0 && !docOrder ? (Float) values[scoreAt] : Float.NaN;
      if (!Float.isNaN(score)) {
        maxScore = Float.isNaN(maxScore) ? score : Math.max(maxScore, score);
      }
      Object[] shown = body.sort().lucene() == null ? null : docOrder ? new Object[] {c.hit.doc()}
          : Arrays.copyOf(values, ordering.length);
      merged.add(new SearchResponse.Hit(c.hit.index(), c.hit.doc(), score, shown, null));
    }
    fetch(merged, body.from());
    Aggregations.Result aggregated = null;
    if (body.aggs() != null && !queries.shards().isEmpty()) {
      CollectedResponse<Aggregations.Result> collected = aggregate(body, body.aggs());
      aggregated = collected.result();
      timedOut |= collected.timedOut();
    }
    CursorPosition last = null;
    if (!top.isEmpty()) {
      Candidate c = top.getLast();
      last = new CursorPosition(Arrays.copyOf(c.hit.sortValues(), ordering.length), c.ordinal, c.hit.doc());
    }
    SearchResult result = new SearchResult(true, new TotalHits(total, exact ? TotalHits.Relation.EQUAL_TO
        : TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO), hits(merged, body, byShard), maxScore, aggregated,
        shardCounts, timedOut, false);
    return new Page(result, last, top.stream().mapToLong(c -> CursorPosition.shardDoc(c.ordinal, c.hit.doc()))
        .skip(body.from()).toArray());
  }

  /**
   * Whether a cursor's search over {@code sort} runs in the order of documents, shard after shard: sorted by
   * {@code _doc} alone, the same way as the tie-breaker. Its position then has no values.
   */
  static boolean docOrder(SortSpec sort, boolean tieDescending) {
    return sort.lucene() != null && sort.fields().size() == 1
        && sort.fields().get(0).getType() == SortField.Type.DOC && sort.fields().get(0).getReverse() == tieDescending;
  }

  /**
   * A page of a cursor: what it found, where the next starts (null: no hit, the cursor is at its end), and each shown
   * hit's {@code _shard_doc} value.
   */
  record Page(SearchResult result, CursorPosition last, long[] shardDocs) {}

  /** A shard's hit and the shard's ordinal. */
  private record Candidate(SearchResponse.Hit hit, int ordinal) {}

  /** The merged order: the ordering fields as Lucene's merge compares them, then (shard, document). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Comparator<Candidate> order(SortField[] ordering, boolean tieDescending) {
    FieldComparator[] comparators = new FieldComparator[ordering.length];
    for (int i = 0; i < ordering.length; i++) {
      comparators[i] = ordering[i].getComparator(1, Pruning.NONE);
    }
    int tie = tieDescending ? -1 : 1;
    return (a, b) -> {
      for (int i = 0; i < comparators.length; i++) {
        int c = comparators[i].compareValues(a.hit.sortValues()[i], b.hit.sortValues()[i]);
        if (c != 0) {
          return ordering[i].getReverse() ? -c : c;
        }
      }
      int c = Integer.compare(a.ordinal, b.ordinal);
      return tie * (c != 0 ? c : Integer.compare(a.hit.doc(), b.hit.doc()));
    };
  }

  /** Reads the stored {@code _id} and {@code _source} of the hits from {@code from} on: one lease per shard. */
  private void fetch(List<SearchResponse.Hit> hits, int from) throws IOException {
    Map<String, List<Integer>> byShard = new LinkedHashMap<>();
    for (int i = from; i < hits.size(); i++) {
      byShard.computeIfAbsent(hits.get(i).index(), k -> new ArrayList<>()).add(i);
    }
    Set<String> fields = Set.of(EngineDocuments.ID, EngineDocuments.SOURCE);
    for (Map.Entry<String, List<Integer>> e : byShard.entrySet()) {
      try (Lease lease = catalog.acquire(e.getKey())) {
        StoredFields stored = lease.reader().storedFields();
        for (int i : e.getValue()) {
          SearchResponse.Hit h = hits.get(i);
          hits.set(i, new SearchResponse.Hit(h.index(), h.doc(), h.score(), h.sortValues(),
              stored.document(h.doc(), fields)));
        }
      }
    }
  }

  private CollectedResponse<Aggregations.Result> aggregate(SearchBody body, Aggregations aggs) throws IOException {
    IndexQueries queries = body.queries();
    return catalog.search(SearchRequest.builder(queries.any()).queryPerIndex(queries::query)
        .indices(queries.shards().toArray(String[]::new)).allowPartialResults(true).timeout(body.timeout()).build(),
        aggs.collectorManager());
  }

  /**
   * The hits from {@code from} on, with their ids and, if shown, their sources, {@code fields} and highlights (both
   * read from the source, stored or rebuilt).
   */
  private List<SearchResult.Hit> hits(List<SearchResponse.Hit> found, SearchBody body,
      Map<String, IndexShards> byShard) throws IOException {
    List<SearchResponse.Hit> shown = found.subList(Math.min(body.from(), found.size()), found.size());
    HitShaping shaping = body.shaping();
    boolean readsSource = body.source().fetches() || shaping.readsSource();
    Map<SearchResponse.Hit, EngineDocuments.RebuiltSource> rebuilt = readsSource
        ? MissingSources.rebuild(catalog, shown, shard -> byShard.get(shard).mapping()) : Map.of();
    List<SearchResult.Hit> out = new ArrayList<>(shown.size());
    Map<IndexMapping, Function<QueryNode, Query>> highlightQueries = new IdentityHashMap<>();
    for (SearchResponse.Hit hit : shown) {
      IndexShards index = byShard.get(hit.index());
      Document document = hit.document();
      String stored = document == null ? null : EngineDocuments.id(document);
      String id = stored != null ? stored : hit.index() + "#" + hit.doc(); // Permafrost's own snapshots keep no _id
      String source = readsSource ? source(document, rebuilt.get(hit)) : null;
      if (source != null && body.source().vectors()) {
        source = withVectors(source, hit, index);
      }
      Map<String, List<JsonNode>> fields = Map.of();
      Map<String, List<String>> highlight = Map.of();
      if (shaping != HitShaping.NONE) {
        ObjectNode parsed = source == null ? null : sourceObject(source, hit);
        if (!shaping.fields().isEmpty()) {
          fields = fields(shaping.fields(), hit, index, id, parsed);
        }
        if (shaping.highlight() != null) {
          highlight = HitHighlighter.of(shaping.highlight(), index.mapping(), parsed,
              body.queries().query(hit.index()), highlightQueries.computeIfAbsent(index.mapping(), m -> {
                // each highlight_query built once per mapping by its own, as the search's query is (IndexQueries)
                QueryTranslator translator = new QueryTranslator(m, System::currentTimeMillis);
                Map<QueryNode, Query> built = new IdentityHashMap<>();
                return node -> built.computeIfAbsent(node, translator::translate);
              }));
        }
      }
      out.add(new SearchResult.Hit(index.name(), hit.index(), hit.doc(), id, hit.score(), hit.sortValues(),
          body.source().fetches() ? source : null, fields, highlight,
          body.source().fetches() && rebuilt.get(hit) != null ? rebuilt.get(hit).leftOut() : List.of()));
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

  /** The source with the vectors the node kept out of it put back ({@code "exclude_vectors": false}). */
  private String withVectors(String source, SearchResponse.Hit hit, IndexShards index) throws IOException {
    ObjectNode parsed = sourceObject(source, hit);
    if (parsed == null) {
      return source;
    }
    try (Lease lease = catalog.acquire(hit.index())) {
      return EngineDocuments.withVectors(parsed, lease.reader(), hit.doc(), index.mapping()).toString();
    }
  }

  private static ObjectNode sourceObject(String source, SearchResponse.Hit hit) {
    JsonNode parsed = SearchRenderer.parseJson(source, "the _source of " + hit.index() + " document " + hit.doc());
    return parsed instanceof ObjectNode o ? o : null;
  }

  /** The hit's stored source as JSON, else the one rebuilt from its doc values, else null. */
  private static String source(Document document, EngineDocuments.RebuiltSource rebuilt) {
    IndexableField stored = document == null ? null : document.getField(EngineDocuments.SOURCE);
    if (stored != null && stored.binaryValue() != null) {
      return EngineDocuments.source(stored.binaryValue());
    } else if (stored != null && stored.stringValue() != null) {
      return stored.stringValue();
    }
    return rebuilt == null ? null : rebuilt.json();
  }
}
