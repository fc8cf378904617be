/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;

/**
 * Reads segments of Elasticsearch's codec {@code Elasticsearch96}, which Elasticsearch 9.6 writes for every index
 * whatever its {@code index.codec}: Lucene's {@code Lucene104Codec} (read through {@link LuceneDelegate}) whose
 * stored fields are chosen per segment by the segment attribute {@code es.stored_fields.mode}
 * ({@link SegmentModeStoredFieldsFormat}: Lucene's own, or zstd as
 * {@code best_compression}). Its points are written by a format of Elasticsearch's own that keeps Lucene 9.0's layout,
 * read here by Lucene's reader; postings, doc values and vectors are read by the name each field records. No node of
 * 9.6 runs here: this reader is built from the published sources and tested on real segments of older nodes whose
 * formats it names. Read-only.
 */
public final class Elasticsearch96Codec extends FilterCodec {
  private final StoredFieldsFormat storedFields = new SegmentModeStoredFieldsFormat(delegate.storedFieldsFormat());

  /** The name segments record: {@code Elasticsearch96}. Called by Lucene's SPI. */
  public Elasticsearch96Codec() {
    super("Elasticsearch96", LuceneDelegate.newest());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return storedFields;
  }
}
