/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code Elasticsearch92Lucene103}: {@code best_compression} (and the default
 * of {@code logs-*-*} and {@code metrics-*-*}) from Elasticsearch 9.2 to 9.5. Elasticsearch 9.2-9.3 write it over
 * Lucene's {@code Lucene103Codec}, 9.4-9.5 over {@code Lucene104Codec} under the same name; both with the stored fields
 * compressed with zstd ({@link ZstdStoredFieldsFormat}). One reader serves both, over the newest of the two on the
 * class path ({@link LuceneDelegate}): the two Lucene codecs write their segment infos, field infos, norms, points,
 * term vectors, live docs and compound files with the same formats (Lucene's 9.0-9.9 ones, checked by a test), and
 * postings, doc values and vectors are read by the name each field records.
 * Read-only.
 */
public final class Elasticsearch92Lucene103Codec extends FilterCodec {
  /** The name segments record: {@code Elasticsearch92Lucene103}. Called by Lucene's SPI. */
  public Elasticsearch92Lucene103Codec() {
    super("Elasticsearch92Lucene103", LuceneDelegate.newest());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return ZstdStoredFieldsFormat.INSTANCE;
  }
}
