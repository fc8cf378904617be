/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.backward_codecs.lucene99.Lucene99Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code Elasticsearch814} (Elasticsearch 8.14-8.15 (Lucene 9.10-9.11)): Lucene's
 * {@code Lucene99Codec} with the stored fields compressed with zstd ({@link ZstdStoredFieldsFormat}). Its per-field
 * postings, doc values and vectors are read by the names each field records. Read-only.
 */
public final class Elasticsearch814Codec extends FilterCodec {
  /** The name segments record: {@code Elasticsearch814}. Called by Lucene's SPI. */
  public Elasticsearch814Codec() {
    super("Elasticsearch814", new Lucene99Codec());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return ZstdStoredFieldsFormat.INSTANCE;
  }
}
