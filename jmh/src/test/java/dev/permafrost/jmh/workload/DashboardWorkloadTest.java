/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.permafrost.sample.AccessLogDocuments;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's aggregation against brute force over the documents that were indexed: random documents in
 * several segments, searched in several slices at once, with few distinct terms (many ties) or many (most counted
 * once), terms outside the Basic Multilingual Plane (whose UTF-8 order is not {@code String}'s), documents without a
 * value or with several, and timestamps on both sides of the range.
 */
class DashboardWorkloadTest {
  private static final long HOUR = 3_600_000;

  private record Doc(long timestamp, String status, List<String> urls, List<String> countries) {}

  @Test
  void matchesBruteForceOnRandomSegments() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(3);
    try {
      for (int iteration = 0; iteration < 40; iteration++) {
        Random random = new Random(31L * iteration + 7);
        check(random, executor);
      }
    } finally {
      executor.shutdown();
    }
  }

  private static void check(Random random, ExecutorService executor) throws Exception {
    long from = 1_700_000_000_000L + random.nextInt(1_000) * 1000L;
    long to = from + (1 + random.nextInt(48)) * HOUR + random.nextInt(1000);
    int distinct = random.nextBoolean() ? 1 + random.nextInt(12) : 200 + random.nextInt(2000);
    List<String> vocabulary = new ArrayList<>();
    for (int i = 0; i < distinct; i++) {
      vocabulary.add(term(random, i));
    }
    List<Doc> docs = new ArrayList<>();
    int n = random.nextInt(3000);
    for (int i = 0; i < n; i++) {
      long t = from - 2 * HOUR + (long) (random.nextDouble() * (to - from + 4 * HOUR));
      docs.add(new Doc(t, random.nextInt(3) == 0 ? "404" : "200", values(random, vocabulary),
          values(random, vocabulary)));
    }
    int topN = 1 + random.nextInt(15);
    DashboardWorkload workload = new DashboardWorkload(from, to, HOUR, topN);
    try (Directory dir = new ByteBuffersDirectory()) {
      IndexWriterConfig config = new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE);
      try (IndexWriter writer = new IndexWriter(dir, config)) {
        for (Doc d : docs) {
          writer.addDocument(document(d));
          if (random.nextInt(200) == 0) {
            writer.commit(); // another segment
          }
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        IndexSearcher searcher = new IndexSearcher(reader, executor);
        DashboardWorkload.Result actual = searcher.search(workload.query(), workload.collectorManager());
        assertEquals(bruteForce(docs, from, to, HOUR, topN), actual,
            () -> docs.size() + " documents in " + reader.leaves().size() + " segments, " + distinct + " terms");
      }
    }
  }

  private static DashboardWorkload.Result bruteForce(List<Doc> docs, long from, long to, long interval, int topN) {
    long hits = 0;
    TreeMap<Long, Long> histogram = new TreeMap<>();
    Map<String, Long> urls = new HashMap<>();
    Map<String, Long> countries = new HashMap<>();
    for (Doc d : docs) {
      if (d.status.equals("404") && d.timestamp >= from && d.timestamp < to) {
        hits++;
        histogram.merge(Math.floorDiv(d.timestamp, interval) * interval, 1L, Long::sum);
        d.urls.stream().distinct().forEach(u -> urls.merge(u, 1L, Long::sum));
        d.countries.stream().distinct().forEach(c -> countries.merge(c, 1L, Long::sum));
      }
    }
    return new DashboardWorkload.Result(hits, histogram, top(urls, topN), top(countries, topN));
  }

  /** Sorts every term: the straightforward way the aggregation must agree with. */
  private static List<DashboardWorkload.Bucket> top(Map<String, Long> counts, int n) {
    List<DashboardWorkload.Bucket> all = new ArrayList<>();
    counts.forEach((k, v) -> all.add(new DashboardWorkload.Bucket(k, v)));
    all.sort(Comparator.comparingLong(DashboardWorkload.Bucket::count).reversed()
        .thenComparing(DashboardWorkload.Bucket::key));
    return List.copyOf(all.subList(0, Math.min(n, all.size())));
  }

  private static Document document(Doc d) {
    Document doc = new Document();
    doc.add(new LongPoint(AccessLogDocuments.TIMESTAMP, d.timestamp));
    doc.add(new NumericDocValuesField(AccessLogDocuments.TIMESTAMP, d.timestamp));
    doc.add(new StringField(AccessLogDocuments.STATUS, d.status, Field.Store.NO));
    for (String u : d.urls) {
      doc.add(new SortedSetDocValuesField(AccessLogDocuments.URL_PATH, new BytesRef(u)));
    }
    for (String c : d.countries) {
      doc.add(new SortedSetDocValuesField(AccessLogDocuments.COUNTRY, new BytesRef(c)));
    }
    return doc;
  }

  /** None, one, or a few values (possibly repeated, which count once). */
  private static List<String> values(Random random, List<String> vocabulary) {
    int k = random.nextInt(10) == 0 ? 0 : random.nextInt(8) == 0 ? 2 + random.nextInt(3) : 1;
    List<String> values = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      // skewed, so that some terms are frequent and many are rare
      int index = (int) (vocabulary.size() * Math.pow(random.nextDouble(), 3));
      values.add(vocabulary.get(index));
    }
    return values;
  }

  /** Distinct by {@code i}; some with a character outside the BMP, some with one above the surrogates (UTF-16 and UTF-8 order them differently). */
  private static String term(Random random, int i) {
    String prefix = switch (random.nextInt(4)) {
      case 0 -> "\uD83D\uDE00";
      case 1 -> "\uFFFD";
      case 2 -> "/api/";
      default -> "";
    };
    return prefix + Integer.toString(i, 36);
  }
}
