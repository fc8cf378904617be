/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.codecs.StoredFieldsFormat;
import org.apache.lucene.codecs.StoredFieldsReader;
import org.apache.lucene.codecs.StoredFieldsWriter;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.util.BytesRef;

/**
 * The stored fields of a time_series segment with synthetic ids: those of the format that wrote them ({@code in}),
 * plus {@code _id}, which is not stored but computed from the document's doc values ({@link SyntheticId}) and given to
 * a visitor that asks for it first, as the binary field a stored {@code _id} is: its indexed bytes, which
 * {@code DocumentId} decodes. A document without a {@code _tsid} (a tombstone) has no {@code _id}. Read-only.
 */
final class SyntheticIdStoredFieldsFormat extends StoredFieldsFormat {
  private final StoredFieldsFormat in;

  SyntheticIdStoredFieldsFormat(StoredFieldsFormat in) {
    this.in = in;
  }

  /** The format of the stored fields themselves. */
  StoredFieldsFormat in() {
    return in;
  }

  @Override
  public StoredFieldsReader fieldsReader(Directory directory, SegmentInfo si, FieldInfos fn, IOContext context)
      throws IOException {
    SyntheticIdSource source = new SyntheticIdSource(directory, si, fn, si.getCodec().docValuesFormat());
    return new Reader(in.fieldsReader(directory, si, fn, context), source, fn.fieldInfo(
        TSDBSyntheticIdPostingsFormat.SyntheticIdFields.ID), true);
  }

  @Override
  public StoredFieldsWriter fieldsWriter(Directory directory, SegmentInfo si, IOContext context) {
    throw new UnsupportedOperationException("the stored fields of a time_series index with synthetic ids are read-only"
        + " here: Permafrost never writes an engine's segments");
  }

  @Override
  public String toString() {
    return "SyntheticIdStoredFieldsFormat(" + in + ")";
  }

  /** Stored fields and the computed {@code _id}; clones share the doc values, which the original closes. */
  private static final class Reader extends StoredFieldsReader {
    private final StoredFieldsReader in;
    private final SyntheticIdSource source;
    private final FieldInfo id;
    private final boolean original;
    private SeriesCursor cursor;

    Reader(StoredFieldsReader in, SyntheticIdSource source, FieldInfo id, boolean original) {
      this.in = in;
      this.source = source;
      this.id = id;
      this.original = original;
    }

    @Override
    public void document(int docID, StoredFieldVisitor visitor) throws IOException {
      if (id != null && source.has()) {
        switch (visitor.needsField(id)) {
          case YES -> {
            if (cursor == null) {
              cursor = new SeriesCursor(source);
            }
            if (cursor.seekExact(docID)) {
              BytesRef b = cursor.id();
              assert b.offset == 0 && b.length == b.bytes.length;
              visitor.binaryField(id, b.bytes);
            }
          }
          case STOP -> {
            return;
          }
          case NO -> {
          }
        }
      }
      in.document(docID, visitor);
    }

    @Override
    public void prefetch(int docID) throws IOException {
      in.prefetch(docID);
    }

    @Override
    public StoredFieldsReader clone() {
      return new Reader(in.clone(), source, id, false);
    }

    @Override
    public void checkIntegrity() throws IOException {
      in.checkIntegrity();
    }

    @Override
    public void close() throws IOException {
      try {
        in.close();
      } finally {
        if (original) {
          source.close();
        }
      }
    }

    @Override
    public String toString() {
      return "SyntheticIdStoredFieldsReader(" + in + ")";
    }
  }
}
