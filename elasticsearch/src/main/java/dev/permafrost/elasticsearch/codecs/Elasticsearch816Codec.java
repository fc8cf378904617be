/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.backward_codecs.lucene912.Lucene912Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code Elasticsearch816} (Elasticsearch 8.16-8.19 (Lucene 9.12)): Lucene's
 * {@code Lucene912Codec} with the stored fields compressed with zstd ({@link ZstdStoredFieldsFormat}). Its per-field
 * postings, doc values and vectors are read by the names each field records. Read-only.
 */
public final class Elasticsearch816Codec extends FilterCodec {
  /** The name segments record: {@code Elasticsearch816}. Called by Lucene's SPI. */
  public Elasticsearch816Codec() {
    super("Elasticsearch816", new Lucene912Codec());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return ZstdStoredFieldsFormat.INSTANCE;
  }
}
