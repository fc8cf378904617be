/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/** Elasticsearch's BM25, worked by hand as its {@code explain} spells it: boost (k1 + 1) x idf x tf. */
class ClassicBm25SimilarityTest {
  @Test
  void scoresAreBm25TimesKOnePlusOne() throws Exception {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new WhitespaceAnalyzer()))) {
        for (String text : new String[] {"a b", "a", "b c d"}) {
          Document doc = new Document();
          doc.add(new TextField("f", text, Field.Store.NO));
          w.addDocument(doc);
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(ClassicBm25Similarity.INSTANCE);
        TopDocs top = searcher.search(new TermQuery(new Term("f", "a")), 10);
        // 3 documents, 2 with "a"; lengths 2, 1, 3: average 2
        double idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
        double k1 = 1.2;
        double b = 0.75;
        double shortDoc = 2.2 * idf / (1 + k1 * (1 - b + b * 1 / 2.0));
        double longerDoc = 2.2 * idf / (1 + k1 * (1 - b + b * 2 / 2.0));
        assertEquals(2, top.scoreDocs.length);
        assertEquals(1, top.scoreDocs[0].doc);
        assertEquals(shortDoc, top.scoreDocs[0].score, 1e-6 * shortDoc);
        assertEquals(longerDoc, top.scoreDocs[1].score, 1e-6 * longerDoc);
      }
    }
  }
}
