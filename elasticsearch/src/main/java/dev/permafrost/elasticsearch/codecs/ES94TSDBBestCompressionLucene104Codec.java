/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code ES94TSDBBestCompressionLucene104Codec}: what 9.4 and 9.5 write for a
 * time_series index with synthetic ids and {@code index.codec: best_compression}. As
 * {@link ES93TSDBDefaultCompressionLucene103Codec}, with the stored fields compressed with zstd
 * ({@link ZstdStoredFieldsFormat}). Read-only.
 */
public final class ES94TSDBBestCompressionLucene104Codec extends FilterCodec {
  private final StoredFieldsFormat storedFields = new SyntheticIdStoredFieldsFormat(ZstdStoredFieldsFormat.INSTANCE);

  /** The name segments record. Called by Lucene's SPI. */
  public ES94TSDBBestCompressionLucene104Codec() {
    super("ES94TSDBBestCompressionLucene104Codec", LuceneDelegate.newest());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return storedFields;
  }
}
