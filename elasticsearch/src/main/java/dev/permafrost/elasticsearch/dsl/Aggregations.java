/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.store.ColumnPrefetch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;

/**
 * A search request's aggregations, computed over doc values as Elasticsearch does: {@code date_histogram},
 * {@code histogram}, {@code terms}, {@code range}/{@code date_range}, {@code filter}, {@code filters} and the
 * metrics {@code min}, {@code max}, {@code avg}, {@code sum}, {@code value_count}, {@code stats}, with one level of
 * sub-aggregations under a bucket aggregation. Counts are exact: every segment's counts are merged, so
 * {@code doc_count_error_upper_bound} is always 0.
 */
public final class Aggregations {
  /** No aggregation: its result counts the matching documents only. */
  static final Aggregations NONE = new Aggregations(new AggSpec[0]);

  private final AggSpec[] specs;
  private final String[] fields;

  private Aggregations(AggSpec[] specs) {
    this.specs = specs;
    Set<String> read = new LinkedHashSet<>();
    for (AggSpec spec : specs) {
      spec.fields(read);
    }
    this.fields = read.toArray(new String[0]);
  }

  /**
   * Parses the request's "aggs"/"aggregations" object over the mapping; throws DslException (400) naming the
   * aggregation and what is wrong or unsupported.
   *
   * @param aggs the {@code aggs} object of the request (null or missing: no aggregations)
   * @param mapping the mapping of the searched index, for each field's type and date format
   * @param filterQueries turns a query DSL object (a {@code filter} body, each of {@code filters}) into a query
   */
  public static Aggregations parse(JsonNode aggs, IndexMapping mapping, Function<JsonNode, Query> filterQueries) {
    return new Aggregations(new AggParser(mapping, filterQueries).parseAll(aggs, null, 0));
  }

  /**
   * Whether the search must visit every shard it names, also one whose values show its query matches nothing there
   * ({@link dev.permafrost.catalog.SearchRequest.Builder#searchEveryIndex}): a terms aggregation's zero-count buckets
   * list every shard's terms. The node itself searches every shard of a search with aggregations (its pre-filter does
   * not run, {@link PreFilter}); a shard that matches nothing adds nothing to any other aggregation.
   */
  boolean visitsEveryShard() {
    for (AggSpec spec : specs) {
      if (spec.showsUnmatched()) {
        return true;
      }
    }
    return false;
  }

  /**
   * A collector manager computing every aggregation over the documents a search matches (one collector per slice;
   * reduce merges them). Its result also counts the matching documents.
   */
  public CollectorManager<?, Result> collectorManager() {
    return new CollectorManager<SliceCollector, Result>() {
      @Override
      public SliceCollector newCollector() {
        return new SliceCollector();
      }

      @Override
      public Result reduce(Collection<SliceCollector> collectors) throws IOException {
        long docCount = 0;
        AggPartial<?>[] partials = new AggPartial<?>[specs.length];
        for (SliceCollector c : collectors) {
          c.finishLeaf();
          docCount += c.docCount;
          for (int i = 0; i < specs.length; i++) {
            partials[i] = AggPartial.merge(partials[i], c.tops[i].build(1)[0]);
          }
        }
        return new Outcome(docCount, partials);
      }
    };
  }

  /** What a search's aggregations came to. */
  public interface Result {
    /** The documents matched (collected). */
    long docCount();

    /**
     * The "aggregations" object of Elasticsearch's response; with typedKeys, each name prefixed by its type as
     * Elasticsearch's typed_keys=true does: "date_histogram#", "histogram#", "sterms#" (terms on keyword),
     * "lterms#" (terms on integer/long/date), "dterms#" (terms on double/float), "range#", "date_range#" (a range
     * agg on a date field), "filter#", "filters#", "min#", "max#", "avg#", "sum#", "value_count#", "stats#".
     */
    ObjectNode toJson(boolean typedKeys);
  }

  /** The merged partials, rendered on demand. */
  private final class Outcome implements Result {
    private final long docCount;
    private final AggPartial<?>[] partials;

    Outcome(long docCount, AggPartial<?>[] partials) {
      this.docCount = docCount;
      this.partials = partials;
    }

    @Override
    public long docCount() {
      return docCount;
    }

    @Override
    public ObjectNode toJson(boolean typedKeys) {
      ObjectNode out = AggSpec.JSON.objectNode();
      for (int i = 0; i < specs.length; i++) {
        out.set(specs[i].key(typedKeys), specs[i].render(partials[i], typedKeys));
      }
      if (countBuckets(specs, out, typedKeys) > AggSpec.MAX_BUCKETS) {
        throw DslException.tooManyBuckets(AggSpec.MAX_BUCKETS);
      }
      return out;
    }
  }

  /** How many empty buckets a histogram adds between two counts of them toward {@code search.max_buckets}. */
  static final int EMPTY_BUCKETS_COUNTED_EVERY = 10_000;

  /**
   * The buckets rendered aggregations count toward {@code search.max_buckets} (65,536), as an Elasticsearch 9.3.3
   * node counts them in its final reduce: every bucket of a multi-bucket aggregation ({@code terms}, histograms,
   * ranges, {@code filters}) at every level, sub-aggregations' too, not a {@code filter}'s single bucket nor a metric;
   * and a histogram's empty buckets ({@code min_doc_count: 0}) once more in every whole {@value
   * #EMPTY_BUCKETS_COUNTED_EVERY} (the node counts them while it adds them, then counts the result): one histogram of 2
   * documents and 35,536 buckets is 30,000 + 35,536, at the limit; one more bucket is past it. The sub-aggregations of
   * the empty buckets a histogram adds count once for all of them (the node reduces one empty set of sub-aggregations
   * and gives it to each): an hourly histogram of 960 buckets, 40 of them with documents, each holding a histogram
   * of 71 buckets, counts 960 + 41 * 71, where 960 * 71 would pass the limit that the node does not reach.
   */
  static long countBuckets(AggSpec[] specs, ObjectNode rendered, boolean typedKeys) {
    long count = 0;
    for (AggSpec spec : specs) {
      JsonNode agg = rendered.get(spec.key(typedKeys));
      if (!(agg instanceof ObjectNode object)) {
        continue;
      }
      JsonNode buckets = object.get("buckets");
      if (buckets == null) { // a single bucket, or a metric
        count += countBuckets(spec.subs, object, typedKeys);
        continue;
      }
      long empty = 0;
      for (JsonNode bucket : buckets) { // an array, or keyed buckets' object
        boolean added = spec instanceof HistogramSpec && bucket.path("doc_count").asLong() == 0;
        // an empty bucket a histogram added holds the same empty sub-aggregations as its others: counted once
        boolean countSubs = !added || empty == 0;
        if (added) {
          empty++;
        }
        count += 1 + (countSubs && bucket instanceof ObjectNode b ? countBuckets(spec.subs, b, typedKeys) : 0);
      }
      count += empty / EMPTY_BUCKETS_COUNTED_EVERY * EMPTY_BUCKETS_COUNTED_EVERY;
    }
    return count;
  }

  /** One slice's aggregators; every doc-values column they read is prefetched when a segment starts. */
  private final class SliceCollector implements Collector {
    final Aggregator[] tops = new Aggregator[specs.length];
    private final List<Aggregator> all = new ArrayList<>();
    long docCount;
    private boolean inLeaf;

    SliceCollector() {
      for (int i = 0; i < specs.length; i++) {
        tops[i] = specs[i].create(true);
        addAll(tops[i]);
      }
    }

    private void addAll(Aggregator a) {
      all.add(a);
      for (Aggregator sub : a.subs) {
        addAll(sub);
      }
    }

    void finishLeaf() throws IOException {
      if (inLeaf) {
        inLeaf = false;
        for (Aggregator a : all) {
          a.finishLeaf();
        }
      }
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
      finishLeaf();
      if (fields.length > 0) {
        ColumnPrefetch.prefetch(context.reader(), fields);
      }
      for (Aggregator a : all) {
        a.setLeaf(context);
      }
      inLeaf = true;
      Aggregator[] aggregators = tops;
      return new LeafCollector() {
        @Override
        public void setScorer(Scorable scorer) {}

        @Override
        public void collect(int doc) throws IOException {
          docCount++;
          for (Aggregator a : aggregators) {
            a.collect(doc, 0);
          }
        }

        @Override
        public void finish() throws IOException {
          finishLeaf();
        }
      };
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
