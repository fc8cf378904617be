/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The real service on a random port over a fresh home: the sample (3 days of 2,000 events) generated, snapshotted
 * into the local repository and mounted at start-up, and one more local index, {@code private}, offered as a
 * snapshot source (its blobs are its own, so a test may damage them). Subclasses with nothing else configured share
 * one running service.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class SampleServiceTestBase {
  static final Path HOME;

  static {
    try {
      HOME = Files.createTempDirectory("permafrost-service-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @LocalServerPort int port;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) throws IOException {
    registry.add("permafrost.home", HOME::toString);
    registry.add("permafrost.cache.size", () -> "64mb");
    registry.add("permafrost.sample.days", () -> "3");
    registry.add("permafrost.sample.events-per-day", () -> "2000");
    Path privateIndex = HOME.resolve("private-index");
    if (!Files.exists(privateIndex)) {
      writePrivateIndex(privateIndex);
    }
    registry.add("permafrost.snapshots.sources.private", privateIndex::toString);
  }

  /** 3,000 documents on 2024-03-01 with random text, so no blob is shared with the sample. */
  private static void writePrivateIndex(Path path) throws IOException {
    Random random = new Random(1234);
    long start = Instant.parse("2024-03-01T00:00:00Z").toEpochMilli();
    try (FSDirectory dir = FSDirectory.open(path);
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
      for (int i = 0; i < 3000; i++) {
        long ts = start + i * 1000L;
        StringBuilder text = new StringBuilder();
        for (int w = 0; w < 30; w++) {
          text.append("w").append(random.nextInt(5000)).append(' ');
        }
        Document doc = new Document();
        doc.add(new LongPoint("@timestamp", ts));
        doc.add(new NumericDocValuesField("@timestamp", ts));
        doc.add(new TextField("message", text.toString(), Field.Store.NO));
        doc.add(new StoredField("_source", "{\"@timestamp\":\"" + Instant.ofEpochMilli(ts) + "\",\"message\":\""
            + text + "\"}"));
        writer.addDocument(doc);
      }
      writer.forceMerge(1);
    }
  }

  Http http() {
    return new Http(port);
  }
}
