/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.codecs.StoredFieldsFormat;
import org.apache.lucene.codecs.StoredFieldsReader;
import org.apache.lucene.codecs.StoredFieldsWriter;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;

/**
 * The stored fields of Elasticsearch 9.6's codec: each segment records which implementation wrote them in its attribute
 * {@value #MODE}: {@code LUCENE} (Lucene's stored fields, which record their own compression level) or
 * {@code ZSTD_BEST_COMPRESSION} ({@link ZstdStoredFieldsFormat}). A segment that records none was written with
 * Lucene's, as the codec read by name wrote before the attribute existed; an unknown mode fails naming the segment and
 * the value. Read-only.
 */
final class SegmentModeStoredFieldsFormat extends StoredFieldsFormat {
  /** The segment attribute that names the implementation. */
  static final String MODE = "es.stored_fields.mode";

  private final StoredFieldsFormat lucene;

  SegmentModeStoredFieldsFormat(StoredFieldsFormat lucene) {
    this.lucene = lucene;
  }

  @Override
  public StoredFieldsReader fieldsReader(Directory directory, SegmentInfo si, FieldInfos fn, IOContext context)
      throws IOException {
    return formatOf(si).fieldsReader(directory, si, fn, context);
  }

  /** The implementation that wrote {@code si}'s stored fields. */
  StoredFieldsFormat formatOf(SegmentInfo si) throws CorruptIndexException {
    String mode = si.getAttribute(MODE);
    if (mode == null || mode.equals("LUCENE")) {
      return lucene;
    }
    if (mode.equals("ZSTD_BEST_COMPRESSION")) {
      return ZstdStoredFieldsFormat.INSTANCE;
    }
    throw new CorruptIndexException("segment " + si.name + " records stored fields mode " + MODE + "=" + mode
        + ", which this reader does not know (it reads LUCENE and ZSTD_BEST_COMPRESSION)", si.name);
  }

  @Override
  public StoredFieldsWriter fieldsWriter(Directory directory, SegmentInfo si, IOContext context) {
    throw new UnsupportedOperationException("Elasticsearch96's stored fields are read-only here: Permafrost never"
        + " writes an engine's segments");
  }

  @Override
  public String toString() {
    return "SegmentModeStoredFieldsFormat(" + MODE + ": LUCENE=" + lucene + ", ZSTD_BEST_COMPRESSION="
        + ZstdStoredFieldsFormat.INSTANCE + ")";
  }
}
