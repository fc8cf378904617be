/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.sample.AccessLogDocuments;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's query over an engine's index: where {@code @timestamp} has no points (a logsdb index may keep it
 * in doc values with a skipper only), its range is read from the doc values and matches what brute force counts; where
 * every segment has points, the workload's own query is kept. The edges of the range are in the data: a document at
 * {@code from} matches, one at {@code to} does not.
 */
class LogsdbDashboardTest {
  private static final long HOUR = 3_600_000;
  private static final long FROM = 1_706_745_600_000L;
  private static final long TO = FROM + 20 * HOUR;

  @Test
  void aRangeWithoutPointsIsReadFromTheDocValuesAndCountsAsBruteForce() throws Exception {
    for (boolean points : new boolean[] {false, true}) {
      Random random = new Random(points ? 11 : 5);
      DashboardWorkload dashboard = new DashboardWorkload(FROM, TO, HOUR, 10);
      try (Directory dir = new ByteBuffersDirectory()) {
        long expected = 0;
        try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
          for (int i = 0; i < 3000; i++) {
            long t = switch (i) {
              case 0 -> FROM;
              case 1 -> TO;
              case 2 -> TO - 1;
              case 3 -> FROM - 1;
              default -> FROM - 2 * HOUR + (long) (random.nextDouble() * 24 * HOUR);
            };
            boolean notFound = i < 4 || random.nextInt(4) == 0;
            writer.addDocument(document(t, notFound ? "404" : "200", points));
            expected += notFound && t >= FROM && t < TO ? 1 : 0;
            if (i % 1000 == 999) {
              writer.flush(); // several segments
            }
          }
        }
        try (DirectoryReader reader = DirectoryReader.open(dir)) {
          assertEquals(points, LogsdbDashboard.hasTimestampPoints(reader));
          IndexSearcher searcher = new IndexSearcher(reader);
          assertEquals(expected, searcher.count(LogsdbDashboard.query(dashboard, reader)), "points: " + points);
          assertEquals(expected, searcher.search(LogsdbDashboard.query(dashboard, reader), dashboard.collectorManager())
              .hits());
          if (points) {
            assertEquals(dashboard.query(), LogsdbDashboard.query(dashboard, reader), "the workload's own query");
          } else {
            assertEquals(0, searcher.count(dashboard.query()), "without points the workload's own query finds nothing");
          }
        }
      }
    }
  }

  @Test
  void aSegmentWithoutTheFieldHasNoPoints() throws Exception {
    try (Directory dir = new ByteBuffersDirectory()) {
      try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
        writer.addDocument(document(FROM, "404", true));
        writer.flush();
        Document other = new Document();
        other.add(new StringField(AccessLogDocuments.STATUS, "404", Field.Store.NO));
        writer.addDocument(other);
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertEquals(2, reader.leaves().size());
        assertFalse(LogsdbDashboard.hasTimestampPoints(reader), "one segment lacks them: the doc values serve all");
        assertEquals(1, new IndexSearcher(reader).count(LogsdbDashboard.query(new DashboardWorkload(FROM, TO, HOUR, 10),
            reader)));
      }
    }
  }

  @Test
  void onlyTheDashboardsQueryIsRewritten() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LogsdbDashboard.withDocValuesRange(new BooleanQuery.Builder()
            .add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER).build()));
    assertTrue(e.getMessage().contains("@timestamp"), e.getMessage());
  }

  private static Document document(long timestamp, String status, boolean points) {
    Document doc = new Document();
    if (points) {
      doc.add(new LongPoint(AccessLogDocuments.TIMESTAMP, timestamp));
      doc.add(new SortedNumericDocValuesField(AccessLogDocuments.TIMESTAMP, timestamp));
    } else {
      doc.add(SortedNumericDocValuesField.indexedField(AccessLogDocuments.TIMESTAMP, timestamp)); // with a skipper
    }
    doc.add(new StringField(AccessLogDocuments.STATUS, status, Field.Store.NO));
    return doc;
  }
}
