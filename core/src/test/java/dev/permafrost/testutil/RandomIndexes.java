/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.testutil;

import java.io.IOException;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;

/** Random Lucene indices with every kind of data a search touches: postings, points, doc values, stored fields, vectors. */
public final class RandomIndexes {
  public static final String[] WORDS = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
    "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
    "xray", "yankee", "zulu", "error", "warning", "info", "debug"
  };
  public static final long BASE_TIME = 1_700_000_000_000L;

  private RandomIndexes() {}

  /** A random document; {@code id} is unique. */
  public static Document document(Random random, int id) {
    Document doc = new Document();
    doc.add(new StringField("id", Integer.toString(id), Field.Store.YES));
    StringBuilder body = new StringBuilder();
    int words = 5 + random.nextInt(30);
    for (int i = 0; i < words; i++) {
      // skewed: early words are far more frequent
      int w = (int) Math.min(WORDS.length - 1, Math.abs(random.nextGaussian()) * 8);
      body.append(WORDS[w]).append(' ');
    }
    doc.add(new TextField("body", body.toString(), Field.Store.YES));
    long timestamp = BASE_TIME + (long) id * 1000 + random.nextInt(1000);
    doc.add(new LongPoint("@timestamp", timestamp));
    doc.add(new NumericDocValuesField("@timestamp", timestamp));
    int status = random.nextInt(10) == 0 ? 404 : (random.nextInt(50) == 0 ? 500 : 200);
    doc.add(new IntPoint("status", status));
    doc.add(new StringField("status_s", Integer.toString(status), Field.Store.NO));
    doc.add(new SortedDocValuesField("status_s", new BytesRef(Integer.toString(status))));
    String country = WORDS[random.nextInt(8)];
    doc.add(new SortedSetDocValuesField("country", new BytesRef(country)));
    doc.add(new StringField("country", country, Field.Store.NO));
    doc.add(new StoredField("bytes", random.nextInt(100_000)));
    if (random.nextInt(4) == 0) {
      float[] vector = new float[8];
      for (int i = 0; i < vector.length; i++) {
        vector[i] = random.nextFloat();
      }
      doc.add(new KnnFloatVectorField("vector", vector));
    }
    return doc;
  }

  /**
   * Writes {@code docs} random documents in {@code commits} commits (so several segments), deleting a few, with
   * commit user data. Compound files are used at random.
   */
  public static void build(Directory dir, Random random, int docs, int commits) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig();
    config.setUseCompoundFile(random.nextBoolean());
    config.setMaxBufferedDocs(Math.max(10, docs / Math.max(1, commits * 2)));
    config.setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      append(writer, random, 0, docs, commits);
    }
  }

  /** Appends documents with ids from {@code firstId}, committing {@code commits} times. */
  public static void append(IndexWriter writer, Random random, int firstId, int docs, int commits) throws IOException {
    int perCommit = Math.max(1, docs / Math.max(1, commits));
    for (int i = 0; i < docs; i++) {
      writer.addDocument(document(random, firstId + i));
      if (i > 0 && i % 97 == 0) {
        writer.deleteDocuments(new Term("id", Integer.toString(firstId + random.nextInt(i))));
      }
      if ((i + 1) % perCommit == 0 || i == docs - 1) {
        writer.setLiveCommitData(Map.of("last_id", Integer.toString(firstId + i)).entrySet());
        writer.commit();
      }
    }
  }
}
