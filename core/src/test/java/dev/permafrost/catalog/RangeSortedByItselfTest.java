/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

/**
 * A range sorted by its own field, narrowed from the points: the same top hits as the range itself, checked on random
 * indices (several segments, deleted documents, documents without the field, runs of equal values, values in and
 * out of time order) and against brute force for the points walk.
 */
class RangeSortedByItselfTest {

  @Test
  void narrowedRangeFindsTheSameTopHits() throws Exception {
    int narrowedSomewhere = 0;
    for (int iteration = 0; iteration < 60; iteration++) {
      Random random = new Random(977L * iteration + 3);
      boolean sortedNumeric = random.nextBoolean();
      try (Directory dir = new ByteBuffersDirectory()) {
        index(dir, random, sortedNumeric, false);
        try (DirectoryReader reader = DirectoryReader.open(dir)) {
          IndexSearcher searcher = new IndexSearcher(reader);
          for (int q = 0; q < 20; q++) {
            long a = random.nextInt(12_000) - 1_000;
            long b = a + random.nextInt(12_000);
            boolean newestFirst = random.nextInt(4) != 0;
            int size = 1 + random.nextInt(random.nextBoolean() ? 10 : 600);
            Query range = random.nextBoolean() ? LongPoint.newRangeQuery("t", a, b)
                : new IndexOrDocValuesQuery(LongPoint.newRangeQuery("t", a, b),
                    sortedNumeric ? SortedNumericDocValuesField.newSlowRangeQuery("t", a, b)
                        : NumericDocValuesField.newSlowRangeQuery("t", a, b));
            Sort sort = new Sort(sortedNumeric ? new SortedNumericSortField("t", SortField.Type.LONG, newestFirst)
                : new SortField("t", SortField.Type.LONG, newestFirst));
            Query narrowed = RangeSortedByItself.narrow(reader, range, sort, size);
            narrowedSomewhere += narrowed != range ? 1 : 0;
            TopDocs expected = searcher.search(range, size, sort);
            TopDocs actual = searcher.search(narrowed, size, sort);
            String where = "iteration " + iteration + ", [" + a + ", " + b + "] top " + size
                + (newestFirst ? " newest first" : " oldest first") + ", narrowed to " + narrowed;
            assertArrayEquals(docs(expected), docs(actual), where);
            assertEquals(values(expected), values(actual), where);
          }
        }
      }
    }
    assertTrue(narrowedSomewhere > 200, "the narrowing was tried: " + narrowedSomewhere);
  }

  @Test
  void leavesAloneWhatItCannotNarrowExactly() throws Exception {
    Random random = new Random(5);
    try (Directory dir = new ByteBuffersDirectory()) {
      index(dir, random, true, true); // several values in some documents
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        Query range = LongPoint.newRangeQuery("t", 0, 10_000);
        Sort byT = new Sort(new SortedNumericSortField("t", SortField.Type.LONG, true));
        assertSame(range, RangeSortedByItself.narrow(reader, range, byT, 10), "several values a document");
      }
    }
    try (Directory dir = new ByteBuffersDirectory()) {
      index(dir, random, false, false);
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        Query range = LongPoint.newRangeQuery("t", 0, 10_000);
        Sort byT = new Sort(new SortField("t", SortField.Type.LONG, true));
        assertNotSame(range, RangeSortedByItself.narrow(reader, range, byT, 10), "the case it is for");
        assertSame(range, RangeSortedByItself.narrow(reader, range, new Sort(new SortField("u", SortField.Type.LONG,
            true)), 10), "sorted by another field");
        assertSame(range, RangeSortedByItself.narrow(reader, range, null, 10), "by score");
        Query other = new TermQuery(new Term("k", "x"));
        assertSame(other, RangeSortedByItself.narrow(reader, other, byT, 10), "not a range");
        assertSame(range, RangeSortedByItself.narrow(reader, range, byT, 1_000_000), "more wanted than in range");
      }
    }
  }

  @Test
  void pointsWalkFindsTheNthValueInRange() throws Exception {
    for (int iteration = 0; iteration < 40; iteration++) {
      Random random = new Random(iteration);
      try (Directory dir = new ByteBuffersDirectory()) {
        List<Long> all = new ArrayList<>();
        try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
          int n = 1 + random.nextInt(5000);
          for (int i = 0; i < n; i++) {
            long v = random.nextBoolean() ? random.nextInt(50) : random.nextLong() >> random.nextInt(64);
            all.add(v);
            Document d = new Document();
            d.add(new LongPoint("t", v));
            writer.addDocument(d);
          }
          writer.forceMerge(1);
        }
        try (DirectoryReader reader = DirectoryReader.open(dir)) {
          PointValues points = reader.leaves().get(0).reader().getPointValues("t");
          for (int q = 0; q < 30; q++) {
            long lo = random.nextBoolean() ? Long.MIN_VALUE : all.get(random.nextInt(all.size())) - random.nextInt(3);
            long hi = random.nextBoolean() ? Long.MAX_VALUE : all.get(random.nextInt(all.size())) + random.nextInt(3);
            List<Long> in = all.stream().filter(v -> v >= lo && v <= hi).sorted().toList();
            long k = 1 + random.nextInt(Math.max(1, in.size() + 3));
            Long largest = RangeSortedByItself.nth(points.getPointTree(), lo, hi, k, true);
            Long smallest = RangeSortedByItself.nth(points.getPointTree(), lo, hi, k, false);
            if (k > in.size()) {
              assertNull(largest);
              assertNull(smallest);
            } else {
              assertEquals(in.get((int) (in.size() - k)), largest, "largest #" + k + " in [" + lo + ", " + hi + "]");
              assertEquals(in.get((int) (k - 1)), smallest, "smallest #" + k + " in [" + lo + ", " + hi + "]");
            }
          }
        }
      }
    }
  }

  /** Random documents in several segments, some deleted, some without the field. */
  private static void index(Directory dir, Random random, boolean sortedNumeric, boolean multiValued)
      throws Exception {
    IndexWriterConfig config = new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      int n = random.nextInt(4000);
      boolean timeOrder = random.nextBoolean();
      for (int i = 0; i < n; i++) {
        Document d = new Document();
        d.add(new StringField("id", Integer.toString(i), Field.Store.NO));
        d.add(new StringField("k", random.nextBoolean() ? "x" : "y", Field.Store.NO));
        if (random.nextInt(20) != 0) {
          long v = timeOrder ? i * 3L + random.nextInt(5) : random.nextInt(10_000);
          if (random.nextInt(5) == 0) {
            v = v - v % 50; // runs of equal values
          }
          d.add(new LongPoint("t", v));
          if (sortedNumeric) {
            d.add(new SortedNumericDocValuesField("t", v));
          } else {
            d.add(new NumericDocValuesField("t", v));
          }
          if (multiValued && random.nextInt(10) == 0) {
            d.add(new LongPoint("t", v + 1));
            d.add(new SortedNumericDocValuesField("t", v + 1));
          }
        }
        writer.addDocument(d);
        if (random.nextInt(700) == 0) {
          writer.commit();
        }
      }
      for (int i = 0; i < n / 10; i++) {
        writer.deleteDocuments(new Term("id", Integer.toString(random.nextInt(Math.max(1, n)))));
      }
    }
  }

  private static int[] docs(TopDocs top) {
    int[] docs = new int[top.scoreDocs.length];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = top.scoreDocs[i].doc;
    }
    return docs;
  }

  private static List<Object> values(TopDocs top) {
    List<Object> values = new ArrayList<>();
    for (ScoreDoc d : top.scoreDocs) {
      values.add(((FieldDoc) d).fields[0]);
    }
    return values;
  }
}
