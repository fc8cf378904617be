/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.lucene.codecs.FieldsConsumer;
import org.apache.lucene.codecs.FieldsProducer;
import org.apache.lucene.codecs.PostingsFormat;
import org.apache.lucene.codecs.perfield.PerFieldPostingsFormat;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;

/**
 * The postings of {@code _id} in a time_series index of Elasticsearch 9.4 and later ({@code index.mapping.synthetic_id}):
 * nothing is on disk, and the terms are synthesized from the segment's doc values {@code _tsid}, {@code @timestamp}
 * and {@code _ts_routing_hash} ({@link SyntheticId}, {@link SyntheticIdTermsEnum}), so that {@code TermQuery} and
 * {@code TermInSetQuery} on {@code _id} (the {@code ids} query, a {@code term} or {@code terms} query on {@code _id})
 * find the document as the node does. The doc values are opened through the segment's codec's doc-values format on
 * the first use of the terms, and closed with the producer; opening reads nothing. A segment of tombstones only (no
 * {@code _tsid}) has no {@code _id} terms. Read-only.
 */
public final class TSDBSyntheticIdPostingsFormat extends PostingsFormat {
  /** The name segments record. */
  static final String NAME = "TSDBSyntheticId";

  /** Called by Lucene's SPI. */
  public TSDBSyntheticIdPostingsFormat() {
    super(NAME);
  }

  @Override
  public FieldsConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(NAME + " is read-only here: Permafrost never writes an engine's segments");
  }

  @Override
  public FieldsProducer fieldsProducer(SegmentReadState state) throws IOException {
    String field = null;
    for (FieldInfo f : state.fieldInfos) {
      if (f.getIndexOptions() != IndexOptions.NONE
          && NAME.equals(f.getAttribute(PerFieldPostingsFormat.PER_FIELD_FORMAT_KEY))) {
        if (!f.name.equals(SyntheticIdFields.ID)) {
          throw new CorruptIndexException("segment " + state.segmentInfo.name + " indexes field '" + f.name + "' with "
              + NAME + ", which synthesizes _id only", state.segmentInfo.name);
        }
        field = f.name;
      }
    }
    return new SyntheticIdFields(field, new SyntheticIdSource(state.directory, state.segmentInfo, state.fieldInfos,
        state.segmentInfo.getCodec().docValuesFormat()));
  }

  /** The synthesized {@code _id} field of one segment. */
  static final class SyntheticIdFields extends FieldsProducer {
    static final String ID = "_id";

    private final String field;
    private final SyntheticIdSource source;
    private final Terms terms;

    SyntheticIdFields(String field, SyntheticIdSource source) {
      this.field = field;
      this.source = source;
      this.terms = field != null && source.has() ? new SyntheticIdTerms(source) : null;
    }

    @Override
    public Iterator<String> iterator() {
      return terms == null ? List.<String>of().iterator() : List.of(field).iterator();
    }

    @Override
    public Terms terms(String name) {
      return name.equals(field) ? terms : null;
    }

    @Override
    public int size() {
      return terms == null ? 0 : 1;
    }

    /** Nothing of its own on disk: the doc values it reads are checked as the segment's doc values. */
    @Override
    public void checkIntegrity() {}

    @Override
    public void close() throws IOException {
      source.close();
    }

    @Override
    public String toString() {
      return NAME + "(" + source.segmentName() + ")";
    }
  }

  /**
   * The terms' statistics: each document with an id has one, so the document count, the sum of document frequencies
   * and of term frequencies are the number of documents with a {@code _tsid}; the number of distinct ids is not known
   * without walking them ({@code -1}).
   */
  static final class SyntheticIdTerms extends Terms {
    private final SyntheticIdSource source;

    SyntheticIdTerms(SyntheticIdSource source) {
      this.source = source;
    }

    /** The doc values the terms are synthesized from. */
    SyntheticIdSource source() {
      return source;
    }

    @Override
    public TermsEnum iterator() {
      return new SyntheticIdTermsEnum(source);
    }

    @Override
    public long size() {
      return -1;
    }

    @Override
    public long getSumTotalTermFreq() throws IOException {
      return source.docsWithId();
    }

    @Override
    public long getSumDocFreq() throws IOException {
      return source.docsWithId();
    }

    @Override
    public int getDocCount() throws IOException {
      return source.docsWithId();
    }

    @Override
    public boolean hasFreqs() {
      return false;
    }

    @Override
    public boolean hasOffsets() {
      return false;
    }

    @Override
    public boolean hasPositions() {
      return false;
    }

    @Override
    public boolean hasPayloads() {
      return false;
    }
  }
}
