/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.Map;
import org.apache.lucene.codecs.FieldsConsumer;
import org.apache.lucene.codecs.FieldsProducer;
import org.apache.lucene.codecs.PostingsFormat;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;

/**
 * Reads Elasticsearch's {@code ES812Postings} (its postings of every indexed field from 8.12 until standard indices
 * went back to Lucene's own in 9.x): Lucene 9.0's postings layout ({@code .doc .pos .pay}, PFOR blocks of 128, multi-level
 * skip data; the {@code .tim .tip .tmd} terms dictionary under Lucene's own names) with its four codec headers named
 * {@code ES812PostingsWriter*} instead of {@code Lucene90PostingsWriter*}, version 0 both. Read by Lucene's
 * {@code Lucene90} postings reader (lucene-backward-codecs) through a directory that reads the four names as
 * Lucene's; read-only. A term's postings are asked for as soon as a query finds the term ({@link PostingsPrefetch}).
 */
public final class ES812PostingsFormat extends PostingsFormat {
  /** Elasticsearch's header names and Lucene 9.0's, for the same layout. */
  static final Map<String, String> LUCENE90_NAMES = Map.of(
      "ES812PostingsWriterTerms", "Lucene90PostingsWriterTerms",
      "ES812PostingsWriterDoc", "Lucene90PostingsWriterDoc",
      "ES812PostingsWriterPos", "Lucene90PostingsWriterPos",
      "ES812PostingsWriterPay", "Lucene90PostingsWriterPay");

  /** The name segments record: {@code ES812Postings}. Called by Lucene's SPI. */
  public ES812PostingsFormat() {
    super("ES812Postings");
  }

  @Override
  public FieldsConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(getName() + " is read-only here: Permafrost never writes an engine's segments");
  }

  @Override
  public FieldsProducer fieldsProducer(SegmentReadState state) throws IOException {
    SegmentReadState renamed = new SegmentReadState(new RenamedHeadersDirectory(state.directory, LUCENE90_NAMES),
        state.segmentInfo, state.fieldInfos, state.context, state.segmentSuffix);
    return PostingsPrefetch.wrap(PostingsFormat.forName("Lucene90").fieldsProducer(renamed), state);
  }
}
