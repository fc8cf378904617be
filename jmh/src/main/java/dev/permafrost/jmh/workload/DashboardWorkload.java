/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.store.ColumnPrefetch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.TermQuery;

/**
 * A dashboard panel over most of the data: the events with status 404 in a time range, bucketed by a date
 * histogram, with the top URLs and top countries. Aggregations read doc values, as Elasticsearch's do, so cold
 * it touches the postings of one term, the points of {@code @timestamp}, and three doc-values columns.
 */
public final class DashboardWorkload implements Workload {
  private final long from;
  private final long to;
  private final long interval;
  private final int topN;

  /**
   * @param from start of the time range, inclusive, in epoch milliseconds
   * @param to end of the time range, exclusive
   * @param interval date-histogram bucket width in milliseconds
   * @param topN how many URLs and countries to report
   */
  public DashboardWorkload(long from, long to, long interval, int topN) {
    this.from = from;
    this.to = to;
    this.interval = interval;
    this.topN = topN;
  }

  @Override
  public String name() {
    return "dashboard";
  }

  /** A term and its document count. */
  public record Bucket(String key, long count) {}

  /**
   * @param hits matching events
   * @param histogram bucket start (epoch ms) to count, non-empty buckets only
   * @param topUrls the most frequent URL paths, most frequent first (ties by key)
   * @param topCountries the most frequent countries
   */
  public record Result(long hits, SortedMap<Long, Long> histogram, List<Bucket> topUrls, List<Bucket> topCountries)
      implements Workload.Result {}

  /** The query: status 404 and the time range, both as filters. */
  public Query query() {
    return new BooleanQuery.Builder()
        .add(new TermQuery(new Term(AccessLogDocuments.STATUS, "404")), BooleanClause.Occur.FILTER)
        .add(LongPoint.newRangeQuery(AccessLogDocuments.TIMESTAMP, from, to - 1), BooleanClause.Occur.FILTER)
        .build();
  }

  @Override
  public Result run(Indices indices) throws IOException {
    return indices.collect(query(), collectorManager());
  }

  /**
   * The dashboard's aggregation as a collector manager, for any search of {@link #query()}: over Permafrost's own
   * snapshots or over an engine's (where {@code @timestamp} is a sorted-numeric column of one value a document).
   */
  public CollectorManager<?, Result> collectorManager() {
    return new CollectorManager<Aggregator, Result>() {
      @Override
      public Aggregator newCollector() {
        return new Aggregator();
      }

      @Override
      public Result reduce(Collection<Aggregator> aggregators) throws IOException {
        long hits = 0;
        Map<Long, Long> histogram = new HashMap<>();
        Map<String, Long> urls = new HashMap<>();
        Map<String, Long> countries = new HashMap<>();
        for (Aggregator a : aggregators) {
          hits += a.hits;
          a.histogram.forEach((k, v) -> histogram.merge(k, v, Long::sum));
          a.urls.forEach((k, v) -> urls.merge(k, v, Long::sum));
          a.countries.forEach((k, v) -> countries.merge(k, v, Long::sum));
        }
        return new Result(hits, new TreeMap<>(histogram), top(urls), top(countries));
      }
    };
  }

  private List<Bucket> top(Map<String, Long> counts) {
    List<Bucket> buckets = new ArrayList<>(counts.size());
    counts.forEach((k, v) -> buckets.add(new Bucket(k, v)));
    buckets.sort(Comparator.comparingLong(Bucket::count).reversed().thenComparing(Bucket::key));
    return List.copyOf(buckets.subList(0, Math.min(topN, buckets.size())));
  }

  /**
   * Counts per histogram bucket and per term. Terms are counted by ordinal within a segment and resolved to
   * strings when the segment is finished (while its reader is still open), as Elasticsearch's
   * global-ordinals-free terms aggregation does on one segment.
   */
  private final class Aggregator extends SimpleCollector {
    final Map<Long, Long> histogram = new HashMap<>();
    final Map<String, Long> urls = new HashMap<>();
    final Map<String, Long> countries = new HashMap<>();
    long hits;
    private NumericDocValues timestamps;
    private SortedSetDocValues urlValues;
    private SortedSetDocValues countryValues;
    private int[] urlCounts;
    private int[] countryCounts;

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      flush();
      // every column below is read for most of the segment: fetch them whole, together, before the query reads
      ColumnPrefetch.prefetch(context.reader(), AccessLogDocuments.TIMESTAMP, AccessLogDocuments.URL_PATH,
          AccessLogDocuments.COUNTRY);
      // one value a document, whichever column the field is: a Permafrost snapshot's numeric one, an engine's
      // sorted-numeric one
      timestamps = DocValues.unwrapSingleton(DocValues.getSortedNumeric(context.reader(), AccessLogDocuments.TIMESTAMP));
      urlValues = context.reader().getSortedSetDocValues(AccessLogDocuments.URL_PATH);
      countryValues = context.reader().getSortedSetDocValues(AccessLogDocuments.COUNTRY);
      urlCounts = urlValues == null ? null : new int[Math.toIntExact(urlValues.getValueCount())];
      countryCounts = countryValues == null ? null : new int[Math.toIntExact(countryValues.getValueCount())];
    }

    @Override
    public void collect(int doc) throws IOException {
      hits++;
      if (timestamps != null && timestamps.advanceExact(doc)) {
        long t = timestamps.longValue();
        histogram.merge(Math.floorDiv(t, interval) * interval, 1L, Long::sum);
      }
      count(urlValues, urlCounts, doc);
      count(countryValues, countryCounts, doc);
    }

    private static void count(SortedSetDocValues values, int[] counts, int doc) throws IOException {
      if (values != null && values.advanceExact(doc)) {
        for (int i = 0; i < values.docValueCount(); i++) {
          counts[(int) values.nextOrd()]++;
        }
      }
    }

    void flush() throws IOException {
      resolve(urlValues, urlCounts, urls);
      resolve(countryValues, countryCounts, countries);
      urlValues = null;
      countryValues = null;
    }

    private static void resolve(SortedSetDocValues values, int[] counts, Map<String, Long> out) throws IOException {
      if (values == null) {
        return;
      }
      for (int ord = 0; ord < counts.length; ord++) {
        if (counts[ord] > 0) {
          out.merge(values.lookupOrd(ord).utf8ToString(), (long) counts[ord], Long::sum);
        }
      }
    }

    @Override
    public void finish() throws IOException {
      flush();
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
