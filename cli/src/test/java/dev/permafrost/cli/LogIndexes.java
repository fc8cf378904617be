/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.store.FSDirectory;

/**
 * Small log-like indices for the tests: a {@code message} of words (analyzed, stored), a {@code host.name} keyword
 * (stored) and a {@code @timestamp} point of one day. Large enough (a few hundred KiB, no compound file) that some
 * files are blobs with chunk tables, some blobs of one chunk, and some kept whole in the manifest.
 */
final class LogIndexes {
  static final String[] WORDS = {"error", "warning", "info", "debug", "alpha", "bravo", "charlie", "delta", "echo"};
  static final long DAY = 86_400_000L;
  static final long FIRST_DAY = 1_707_955_200_000L; // 2024-02-15T00:00:00Z

  private LogIndexes() {}

  /** Writes an index of {@code docs} documents of day {@code day} (0 is 2024-02-15) into {@code dir}. */
  static void write(Path dir, int day, int docs, long seed) throws IOException {
    Random random = new Random(seed);
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setUseCompoundFile(false);
    try (FSDirectory directory = FSDirectory.open(dir); IndexWriter writer = new IndexWriter(directory, config)) {
      for (int i = 0; i < docs; i++) {
        Document doc = new Document();
        StringBuilder message = new StringBuilder();
        for (int w = 0, n = 4 + random.nextInt(12); w < n; w++) {
          message.append(WORDS[random.nextInt(WORDS.length)]).append(' ').append(Long.toString(random.nextLong(), 36))
              .append(' ');
        }
        doc.add(new TextField("message", message.toString(), Field.Store.YES));
        doc.add(new StringField("host.name", "web-0" + random.nextInt(4), Field.Store.YES));
        long timestamp = FIRST_DAY + day * DAY + random.nextLong(DAY);
        doc.add(new LongPoint("@timestamp", timestamp));
        doc.add(new StoredField("@timestamp", timestamp));
        writer.addDocument(doc);
      }
      writer.commit();
    }
  }

  /** How many documents of the index in {@code dir} match {@code query}, counted locally. */
  static int count(Path dir, Query query) throws IOException {
    try (FSDirectory directory = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(directory)) {
      return new IndexSearcher(reader).count(query);
    }
  }
}
