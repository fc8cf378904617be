/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.sample.Dataset;
import dev.permafrost.sample.DatasetSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.FSDirectory;

/** The 30 daily access-log snapshots every Spark test reads (30 x 2,000 events), generated once per build. */
final class TestData {
  static final DatasetSpec SPEC = DatasetSpec.of(30, 2_000);
  static final String TS = AccessLogDocuments.TIMESTAMP;
  /** The columns most tests read: keywords, numbers and the timestamp, without the large {@code _source}. */
  static final String FIELDS = String.join(",", TS, "http.request.method", AccessLogDocuments.STATUS,
      "http.response.body.bytes", "source.port", "url.query", AccessLogDocuments.URL_PATH, "trace.id",
      AccessLogDocuments.COUNTRY);

  private static Dataset dataset;

  private TestData() {}

  static synchronized Dataset dataset() {
    if (dataset == null) {
      try {
        dataset = Dataset.getOrCreate(SPEC);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return dataset;
  }

  static String repository() {
    return dataset().repositoryPath().toUri().toString();
  }

  static String day(int i) {
    return SPEC.indexName(i);
  }

  /** Milliseconds at the start of day {@code i}. */
  static long dayStart(int i) {
    return SPEC.startMillis() + i * 86_400_000L;
  }

  static Instant instant(long millis) {
    return Instant.ofEpochMilli(millis);
  }

  /** "index/trace.id" of every hit of {@code query} over the local indices, the library's answer. */
  static List<String> localHits(Query query) throws IOException {
    return localHits(dataset(), query);
  }

  /** "index/trace.id" of every hit of {@code query} over the local indices of {@code data}. */
  static List<String> localHits(Dataset data, Query query) throws IOException {
    List<String> hits = new ArrayList<>();
    for (String name : data.indexNames()) {
      Path path = data.indexPath(name);
      try (FSDirectory dir = FSDirectory.open(path);
          DirectoryReader reader = DirectoryReader.open(dir)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        for (ScoreDoc d : searcher.search(query, Math.max(1, reader.maxDoc())).scoreDocs) {
          List<LeafReaderContext> leaves = reader.leaves();
          LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(d.doc, leaves));
          SortedSetDocValues ids = leaf.reader().getSortedSetDocValues("trace.id");
          ids.advanceExact(d.doc - leaf.docBase);
          hits.add(name + "/" + ids.lookupOrd(ids.nextOrd()).utf8ToString());
        }
      }
    }
    return hits;
  }
}
