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
import java.util.PriorityQueue;
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
import org.apache.lucene.util.BytesRef;

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

  /**
   * The same dashboard as Elasticsearch's search request (as Grafana or Kibana would send it): size 0, the two filters,
   * a {@code date_histogram} of the interval and two {@code terms} aggregations of {@code topN}.
   */
  public String searchBody() {
    return "{\"size\":0,\"query\":{\"bool\":{\"filter\":[{\"term\":{\"" + AccessLogDocuments.STATUS + "\":\"404\"}},"
        + "{\"range\":{\"" + AccessLogDocuments.TIMESTAMP + "\":{\"gte\":" + from + ",\"lt\":" + to
        + ",\"format\":\"epoch_millis\"}}}]}},\"aggs\":{"
        + "\"histogram\":{\"date_histogram\":{\"field\":\"" + AccessLogDocuments.TIMESTAMP + "\",\"fixed_interval\":\""
        + interval + "ms\",\"min_doc_count\":1}},"
        + "\"urls\":{\"terms\":{\"field\":\"" + AccessLogDocuments.URL_PATH + "\",\"size\":" + topN + "}},"
        + "\"countries\":{\"terms\":{\"field\":\"" + AccessLogDocuments.COUNTRY + "\",\"size\":" + topN + "}}}}";
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
      public Result reduce(Collection<Aggregator> aggregators) {
        long hits = 0;
        Map<Long, Long> histogram = new HashMap<>();
        List<TermCounts> urls = new ArrayList<>();
        List<TermCounts> countries = new ArrayList<>();
        for (Aggregator a : aggregators) {
          hits += a.hits;
          a.histogram.forEach((k, v) -> histogram.merge(k, v, Long::sum));
          urls.addAll(a.urls);
          countries.addAll(a.countries);
        }
        return new Result(hits, new TreeMap<>(histogram), top(urls, topN), top(countries, topN));
      }
    };
  }

  /** Most frequent first, ties by key: the order of the result's buckets. */
  private static final Comparator<Bucket> RANK =
      Comparator.comparingLong(Bucket::count).reversed().thenComparing(Bucket::key);

  /**
   * The {@code n} most frequent terms over every segment's counts, exactly: the segments' terms, each list in term
   * order, are merged so that a term's counts meet without hashing, and only a term that can enter the top is made a
   * string.
   */
  static List<Bucket> top(List<TermCounts> segments, int n) {
    PriorityQueue<Cursor> merge = new PriorityQueue<>(Comparator.comparing((Cursor c) -> c.term()));
    for (TermCounts segment : segments) {
      if (segment.terms.length > 0) {
        merge.add(new Cursor(segment));
      }
    }
    PriorityQueue<Bucket> best = new PriorityQueue<>(RANK.reversed()); // the weakest of the best first
    while (!merge.isEmpty()) {
      Cursor c = merge.poll();
      BytesRef term = c.term();
      long count = c.count();
      if (c.advance()) {
        merge.add(c);
      }
      while (!merge.isEmpty() && merge.peek().term().bytesEquals(term)) {
        Cursor same = merge.poll();
        count += same.count();
        if (same.advance()) {
          merge.add(same);
        }
      }
      if (best.size() < n) {
        best.add(new Bucket(term.utf8ToString(), count));
      } else if (n > 0 && count >= best.peek().count()) {
        Bucket candidate = new Bucket(term.utf8ToString(), count);
        if (RANK.compare(candidate, best.peek()) < 0) {
          best.poll();
          best.add(candidate);
        }
      }
    }
    List<Bucket> buckets = new ArrayList<>(best);
    buckets.sort(RANK);
    return List.copyOf(buckets);
  }

  /** One segment's terms that matching documents hold, in term order, with how many hold each. */
  static final class TermCounts {
    final BytesRef[] terms;
    final int[] counts;

    TermCounts(BytesRef[] terms, int[] counts) {
      assert terms.length == counts.length;
      this.terms = terms;
      this.counts = counts;
    }
  }

  /** A place in one segment's {@link TermCounts} while they are merged. */
  private static final class Cursor {
    final TermCounts segment;
    int index;

    Cursor(TermCounts segment) {
      this.segment = segment;
    }

    BytesRef term() {
      return segment.terms[index];
    }

    long count() {
      return segment.counts[index];
    }

    boolean advance() {
      return ++index < segment.terms.length;
    }
  }

  /**
   * Counts per histogram bucket and per term. Terms are counted by ordinal within a segment; when the segment is
   * finished (while its reader is still open) the ordinals that were counted are looked up in order, which walks the
   * terms dictionary forward once, and kept as that segment's {@link TermCounts} for the reduce to merge.
   */
  private final class Aggregator extends SimpleCollector {
    final Map<Long, Long> histogram = new HashMap<>();
    final List<TermCounts> urls = new ArrayList<>();
    final List<TermCounts> countries = new ArrayList<>();
    long hits;
    /** The first bucket of the query's range, and each bucket's count in this segment (most hits fall in it). */
    private final long firstBucket = Math.floorDiv(from, interval) * interval;
    private final long[] inRange = new long[Math.clamp(Math.floorDiv(to - 1 - firstBucket, interval) + 1, 0, 1 << 20)];
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
        long bucket = Math.floorDiv(t, interval) * interval;
        long slot = (bucket - firstBucket) / interval;
        if (slot >= 0 && slot < inRange.length) {
          inRange[(int) slot]++;
        } else {
          histogram.merge(bucket, 1L, Long::sum); // only if the query is not this workload's own
        }
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

    private static void resolve(SortedSetDocValues values, int[] counts, List<TermCounts> out) throws IOException {
      if (values == null) {
        return;
      }
      int size = 0;
      for (int count : counts) {
        size += count > 0 ? 1 : 0;
      }
      BytesRef[] terms = new BytesRef[size];
      int[] termCounts = new int[size];
      int i = 0;
      for (int ord = 0; ord < counts.length; ord++) { // ascending: the dictionary is walked forward once
        if (counts[ord] > 0) {
          terms[i] = BytesRef.deepCopyOf(values.lookupOrd(ord));
          termCounts[i++] = counts[ord];
        }
      }
      out.add(new TermCounts(terms, termCounts));
    }

    @Override
    public void finish() throws IOException {
      flush();
      for (int slot = 0; slot < inRange.length; slot++) {
        if (inRange[slot] > 0) {
          histogram.merge(firstBucket + slot * interval, inRange[slot], Long::sum);
          inRange[slot] = 0;
        }
      }
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
