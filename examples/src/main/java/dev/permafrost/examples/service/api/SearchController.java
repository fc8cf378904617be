/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CollectedResponse;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.DocumentId;
import dev.permafrost.elasticsearch.EngineDocuments;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MissingSources;
import dev.permafrost.elasticsearch.QueryFront;
import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.examples.service.engine.IndexMappings;
import dev.permafrost.examples.service.search.DateHistogram;
import dev.permafrost.examples.service.search.Intervals;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TotalHits;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Searches and histograms over one index or a pattern: {@code GET /indices/{pattern}/search} and
 * {@code GET /indices/{pattern}/histogram}. A time range is a filter on the timestamp, so indices whose recorded
 * range cannot match are skipped without being opened. Over a pattern, an index that fails is reported in
 * {@code indices.failed} and the others answer; over one named index, its failure is the request's.
 */
@RestController
@RequestMapping("/indices/{pattern}")
class SearchController {
  private static final String SOURCE = "_source";
  private final Catalog catalog;
  private final SharedRegionCache cache;
  private final ServiceProperties.Search settings;
  private final QueryFront front;
  /** The sort when none is asked for: newest first, as a log viewer shows them. */
  private final QueryFront.SortKey newestFirst;
  private final JsonMapper json;
  private final IndexMappings mappings;

  SearchController(Catalog catalog, SharedRegionCache cache, ServiceProperties properties, JsonMapper json,
      IndexMappings mappings) {
    this.mappings = mappings;
    this.catalog = catalog;
    this.cache = cache;
    this.settings = properties.search();
    this.front = new QueryFront(settings.defaultField(), settings.timestampField());
    this.newestFirst = new QueryFront.SortKey(settings.timestampField(), true);
    this.json = json;
  }

  @GetMapping("/search")
  Views.SearchResult search(@PathVariable String pattern, @RequestParam(required = false) String q,
      @RequestParam(required = false) Integer size, @RequestParam(required = false) String sort,
      @RequestParam(required = false) String from, @RequestParam(required = false) String to,
      @RequestParam(required = false) List<String> fields, @RequestParam(required = false) String timeout,
      @RequestParam(required = false, defaultValue = "false") boolean profile,
      @RequestParam(required = false, defaultValue = "1") int page) throws IOException {
    String[] indices = IndexPatterns.parse(catalog, pattern);
    int hits = size == null ? settings.defaultSize() : size;
    if (hits < 1 || hits > settings.maxSize()) {
      throw ApiException.badParameter("'size' must be from 1 to " + settings.maxSize() + ", got " + hits);
    }
    // page N is hits [(N-1) x size, N x size) of the top N x size, which must stay within max-size
    if (page < 1 || (long) page * hits > settings.maxSize()) {
      throw ApiException.badParameter("'page' must be from 1 to " + Math.max(1, settings.maxSize() / hits) + " with size "
          + hits + " (at most permafrost.search.max-size=" + settings.maxSize() + " hits deep), got " + page);
    }
    List<String> names = IndexPatterns.names(catalog, indices);
    List<IndexMapping> searched = names.stream().map(mappings::of).toList();
    QueryFront.SortKey key = ApiException.parameter(() -> QueryFront.SortKey.parse(sort, newestFirst));
    if (key == newestFirst && QueryFront.sortedField(key, searched) == null) {
      key = null; // no index to search maps the timestamp: by relevance
    }
    QueryFront.SortKey sortKey = key;
    Sort order = ApiException.parameter(() -> front.sort(sortKey, searched));
    QueryFront.TimeRange range = ApiException.parameter(() -> QueryFront.TimeRange.parse(from, to));
    Function<String, Query> queries = ApiException.query(() -> front.queries(mappings::of, names, q, range));
    List<String> stored = new ArrayList<>(fields == null || fields.isEmpty() ? settings.fields() : fields);
    if (names.stream().anyMatch(mappings::isEngineShard) && !stored.contains(EngineDocuments.ID)) {
      stored.add(0, EngineDocuments.ID);
    }
    SearchRequest request = SearchRequest.builder(anyQuery(queries, names)).queryPerIndex(queries).indices(indices)
        .size(page * hits).sort(order)
        .fields(stored.toArray(String[]::new)).allowPartialResults(!IndexPatterns.single(indices))
        .timeout(ApiException.parameter(() -> Intervals.timeout(timeout))).profile(profile).build();
    CacheStats.Counts before = cache.stats().total();
    SearchResponse response = catalog.search(request);
    CacheStats.Counts after = cache.stats().total();
    List<SearchResponse.Hit> onPage = response.hits().subList(Math.min(response.hits().size(), (page - 1) * hits),
        response.hits().size());
    // no _source stored (Elasticsearch's synthetic source): rebuilt from the hits' doc values, saying so
    Map<SearchResponse.Hit, EngineDocuments.RebuiltSource> rebuilt = stored.contains(SOURCE)
        ? MissingSources.rebuild(catalog, onPage,
            name -> mappings.isEngineShard(name) ? mappings.of(name) : null) : Map.of();
    List<Views.Hit> hitViews = new ArrayList<>(onPage.size());
    for (SearchResponse.Hit hit : onPage) {
      Map<String, Object> hitFields = fields(hit.document());
      EngineDocuments.RebuiltSource source = rebuilt.get(hit);
      if (source != null && !hitFields.containsKey(SOURCE)) {
        hitFields = new LinkedHashMap<>(hitFields);
        hitFields.put(SOURCE, json.readTree(source.json()));
        hitFields.put("_source_rebuilt", Map.of("from", "doc_values", "left_out", source.leftOut()));
      }
      hitViews.add(new Views.Hit(hit.index(), Float.isNaN(hit.score()) ? null : hit.score(), hit.sortValues(),
          hitFields));
    }
    return new Views.SearchResult(response.totalHits().value(), response.totalHits().relation() ==
        TotalHits.Relation.EQUAL_TO ? "eq" : "gte", response.tookMillis(), response.timedOut(),
        hitViews, new Views.Indices(response.searched(), response.skipped(), response.failed(), response.timedOutIndices()),
        Views.CacheUse.between(before, after), response.cost());
  }

  @GetMapping("/histogram")
  Views.Histogram histogram(@PathVariable String pattern, @RequestParam(required = false) String q,
      @RequestParam(required = false) String from, @RequestParam(required = false) String to,
      @RequestParam(required = false) String interval, @RequestParam(required = false) String timeout)
      throws IOException {
    String[] indices = IndexPatterns.parse(catalog, pattern);
    QueryFront.TimeRange range = ApiException.parameter(() -> QueryFront.TimeRange.parse(from, to));
    List<String> names = IndexPatterns.names(catalog, indices);
    for (String name : names) {
      IndexMapping.Field timestamp = mappings.of(name).field(settings.timestampField());
      if (timestamp != null && timestamp.kind() == FieldKind.DATE_NANOS) {
        // its doc values are nanoseconds, the buckets milliseconds: refused rather than counted wrong
        throw ApiException.badParameter("index '" + name + "' maps " + settings.timestampField() + " as date_nanos,"
            + " which the histogram does not count yet: search it instead");
      }
    }
    Function<String, Query> queries = ApiException.query(() -> front.queries(mappings::of, names, q, range));
    long[] bounds = bounds(range, IndexPatterns.matching(catalog, indices));
    if (bounds == null) {
      return new Views.Histogram(ApiException.parameter(() -> Intervals.parse(interval, 0, settings.histogramBuckets())), null, null, 0, List.of(), 0,
          false, new Views.Indices(List.of(), List.of(), Map.of(), List.of()), Views.CacheUse.between(cache.stats().total(),
              cache.stats().total()), null);
    }
    long step = ApiException.parameter(() -> Intervals.parse(interval, bounds[1] - bounds[0], settings.histogramBuckets()));
    long origin = Math.floorDiv(bounds[0], step) * step;
    long count = (bounds[1] - origin + step - 1) / step;
    if (count > settings.maxBuckets()) {
      throw ApiException.badParameter("'interval' " + interval + " would make " + count + " buckets; at most "
          + settings.maxBuckets() + " are allowed (permafrost.search.max-buckets): give a longer interval or a shorter range");
    }
    SearchRequest request = SearchRequest.builder(anyQuery(queries, names)).queryPerIndex(queries).indices(indices)
        .allowPartialResults(!IndexPatterns.single(indices))
        .timeout(ApiException.parameter(() -> Intervals.timeout(timeout))).build();
    CacheStats.Counts before = cache.stats().total();
    CollectedResponse<long[]> response =
        catalog.search(request, new DateHistogram(settings.timestampField(), origin, step, (int) count));
    CacheStats.Counts after = cache.stats().total();
    List<Views.Bucket> buckets = new ArrayList<>((int) count);
    long total = 0;
    for (int i = 0; i < count; i++) {
      long key = origin + i * step;
      buckets.add(new Views.Bucket(key, Instant.ofEpochMilli(key), response.result()[i]));
      total += response.result()[i];
    }
    return new Views.Histogram(step, Instant.ofEpochMilli(bounds[0]), Instant.ofEpochMilli(bounds[1]), total, buckets,
        response.tookMillis(), response.timedOut(),
        new Views.Indices(response.searched(), response.skipped(), response.failed(), response.timedOutIndices()),
        Views.CacheUse.between(before, after), response.cost());
  }

  /**
   * The histogram's [from, to): the range's ends where given, else the widest of the indices' recorded timestamp
   * ranges; null if an end is unknown either way.
   */
  private long[] bounds(QueryFront.TimeRange range, List<MountInfo> indices) throws IOException {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (MountInfo index : indices) {
      long[] r = Views.longRange(index.pointRanges().get(settings.timestampField()));
      if (r == null && mappings.isEngineShard(index.name())) {
        r = engineTimeRange(index.name()); // an engine's shard: its manifest records no point ranges
      }
      if (r != null) {
        min = Math.min(min, r[0]);
        max = Math.max(max, r[1]);
      }
    }
    long from = range.from() != null ? range.fromMillis() : min;
    long to = range.to() != null ? range.toMillis() : max == Long.MIN_VALUE ? max : max + 1;
    if (from == Long.MAX_VALUE || to == Long.MIN_VALUE || from >= to) {
      return null;
    }
    return new long[] {from, to};
  }

  /**
   * The smallest and largest timestamp of an engine's shard, from its segments' points or, where a segment has none
   * (Elasticsearch's time_series dates from 9.3), its doc-values skipper; null if neither has the field.
   */
  private long[] engineTimeRange(String name) throws IOException {
    String field = settings.timestampField();
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    try (Lease lease = catalog.acquire(name)) {
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        PointValues points = leaf.reader().getPointValues(field);
        DocValuesSkipper skipper = points == null ? leaf.reader().getDocValuesSkipper(field) : null;
        if (points != null && points.getBytesPerDimension() == Long.BYTES) {
          min = Math.min(min, LongPoint.decodeDimension(points.getMinPackedValue(), 0));
          max = Math.max(max, LongPoint.decodeDimension(points.getMaxPackedValue(), 0));
        } else if (skipper != null && skipper.docCount() > 0) {
          min = Math.min(min, skipper.minValue());
          max = Math.max(max, skipper.maxValue());
        }
      }
    }
    return min <= max ? new long[] {min, max} : null;
  }

  /**
   * The query the request is named by (the first index's; each index is searched with its own, {@code queries}), or
   * every document's where the pattern names no mounted index.
   */
  private static Query anyQuery(Function<String, Query> queries, List<String> names) {
    return names.isEmpty() ? new MatchAllDocsQuery() : queries.apply(names.getFirst());
  }

  /** The stored fields of a hit, by name; {@code _source} as JSON when it is JSON. */
  private Map<String, Object> fields(Document document) {
    if (document == null) {
      return Map.of();
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    for (IndexableField field : document.getFields()) {
      Object value = value(field);
      fields.merge(field.name(), value, (a, b) -> {
        List<Object> values = a instanceof ValueList list ? list : new ValueList(a);
        values.add(b);
        return values;
      });
    }
    return fields;
  }

  private Object value(IndexableField field) {
    if (field.numericValue() != null) {
      return field.numericValue();
    }
    if (field.binaryValue() != null && EngineDocuments.ID.equals(field.name())) {
      return DocumentId.decode(field.binaryValue()); // an engine's _id
    }
    if (field.binaryValue() != null && SOURCE.equals(field.name())) {
      try {
        return json.readTree(EngineDocuments.source(field.binaryValue())); // an engine's _source, JSON or SMILE
      } catch (RuntimeException e) {
        // not JSON nor SMILE: shown as bytes below
      }
    }
    if (field.binaryValue() != null) {
      var bytes = field.binaryValue();
      return Base64.getEncoder().encodeToString(Arrays.copyOfRange(bytes.bytes, bytes.offset,
          bytes.offset + bytes.length));
    }
    String text = field.stringValue();
    if (SOURCE.equals(field.name()) && text != null && text.startsWith("{")) {
      try {
        return json.readTree(text);
      } catch (JacksonException e) {
        return text;
      }
    }
    return text;
  }

  /** The values of a field stored more than once. */
  private static final class ValueList extends ArrayList<Object> {
    private static final long serialVersionUID = 1L;

    ValueList(Object first) {
      add(first);
    }
  }
}
