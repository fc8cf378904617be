/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.backward_codecs.lucene101.Lucene101Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code Elasticsearch900Lucene101} (Elasticsearch 9.0-9.1 (Lucene 10.1-10.2)): Lucene's
 * {@code Lucene101Codec} with the stored fields compressed with zstd ({@link ZstdStoredFieldsFormat}). Its per-field
 * postings, doc values and vectors are read by the names each field records. Read-only.
 */
public final class Elasticsearch900Lucene101Codec extends FilterCodec {
  /** The name segments record: {@code Elasticsearch900Lucene101}. Called by Lucene's SPI. */
  public Elasticsearch900Lucene101Codec() {
    super("Elasticsearch900Lucene101", new Lucene101Codec());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return ZstdStoredFieldsFormat.INSTANCE;
  }
}
