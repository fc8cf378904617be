/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.backward_codecs.lucene100.Lucene100Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code Elasticsearch900} (Elasticsearch 9.0 (Lucene 10.0)): Lucene's
 * {@code Lucene100Codec} with the stored fields compressed with zstd ({@link ZstdStoredFieldsFormat}). Its per-field
 * postings, doc values and vectors are read by the names each field records. Read-only.
 */
public final class Elasticsearch900Codec extends FilterCodec {
  /** The name segments record: {@code Elasticsearch900}. Called by Lucene's SPI. */
  public Elasticsearch900Codec() {
    super("Elasticsearch900", new Lucene100Codec());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return ZstdStoredFieldsFormat.INSTANCE;
  }
}
