/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code ES93TSDBDefaultCompressionLucene103Codec}: what 9.4 and 9.5 write for
 * a time_series index with synthetic ids ({@code index.mapping.synthetic_id}, the default from 9.4) and the default
 * {@code index.codec}. Lucene's {@code Lucene104Codec} ({@link LuceneDelegate}) with its own stored fields (LZ4,
 * {@code Lucene90StoredFieldsFormat}, which record their mode), to which a computed {@code _id} is added
 * ({@link SyntheticIdStoredFieldsFormat}); the {@code _id} postings ({@link TSDBSyntheticIdPostingsFormat}) and its
 * bloom filter ({@link ES94BloomFilterDocValuesFormat}) are read by the names its field records. Read-only.
 */
public final class ES93TSDBDefaultCompressionLucene103Codec extends FilterCodec {
  private final StoredFieldsFormat storedFields = new SyntheticIdStoredFieldsFormat(delegate.storedFieldsFormat());

  /** The name segments record. Called by Lucene's SPI. */
  public ES93TSDBDefaultCompressionLucene103Codec() {
    super("ES93TSDBDefaultCompressionLucene103Codec", LuceneDelegate.newest());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return storedFields;
  }
}
