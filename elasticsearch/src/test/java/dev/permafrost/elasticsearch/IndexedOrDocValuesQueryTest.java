/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * A term or range runs from a segment's postings or points where it has them and from its doc values where it has
 * only those, as one index's segments may differ (Elasticsearch 9.3's time_series fields, 9.4's skippers): the counts
 * over segments of both kinds are those of a brute-force count; a prefix or wildcard reads the terms of the doc values; a query with no doc-values form (fuzzy) fails on a
 * doc-values-only segment naming the field.
 */
class IndexedOrDocValuesQueryTest {
  @Test
  void eachSegmentIsReadByWhatItHas() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(IndexMapping.of(new ObjectMapper().readTree(
        "{\"properties\": {\"n\": {\"type\": \"long\"}, \"k\": {\"type\": \"keyword\"}}}")));
    Random random = new Random(44);
    long[] values = new long[400];
    String[] keys = new String[values.length];
    try (ByteBuffersDirectory indexed = new ByteBuffersDirectory(); ByteBuffersDirectory docValuesOnly =
        new ByteBuffersDirectory()) {
      try (IndexWriter a = new IndexWriter(indexed, new IndexWriterConfig());
          IndexWriter b = new IndexWriter(docValuesOnly, new IndexWriterConfig())) {
        for (int i = 0; i < values.length; i++) {
          values[i] = random.nextInt(100) - 50;
          keys[i] = "k" + random.nextInt(7);
          Document doc = new Document();
          doc.add(new SortedNumericDocValuesField("n", values[i]));
          doc.add(new SortedSetDocValuesField("k", new BytesRef(keys[i])));
          if (i % 2 == 0) {
            doc.add(new LongPoint("n", values[i]));
            doc.add(new StringField("k", keys[i], Field.Store.NO));
            a.addDocument(doc);
          } else {
            b.addDocument(doc);
          }
        }
      }
      try (DirectoryReader r1 = DirectoryReader.open(indexed); DirectoryReader r2 = DirectoryReader.open(docValuesOnly);
          MultiReader both = new MultiReader(r1, r2)) {
        IndexSearcher searcher = new IndexSearcher(both);
        for (int q = 0; q < 30; q++) {
          long from = random.nextInt(100) - 50;
          long to = from + random.nextInt(40);
          String key = "k" + random.nextInt(8);
          int inRange = 0;
          int withKey = 0;
          for (int i = 0; i < values.length; i++) {
            inRange += values[i] >= from && values[i] <= to ? 1 : 0;
            withKey += keys[i].equals(key) ? 1 : 0;
          }
          assertEquals(inRange, searcher.count(parser.parse("n:[" + from + " TO " + to + "]")), from + ".." + to);
          assertEquals(withKey, searcher.count(parser.parse("k:" + key)), key);
        }
        int prefixed = 0;
        for (String k : keys) {
          prefixed += k.startsWith("k1") ? 1 : 0;
        }
        assertEquals(prefixed, searcher.count(parser.parse("k:k1*"))); // an automaton reads the doc values' terms
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> searcher.count(parser.parse("k:k1~")));
        assertTrue(e.getMessage().contains("'k'") && e.getMessage().contains("doc values"), e.getMessage());
      }
    }
  }
}
