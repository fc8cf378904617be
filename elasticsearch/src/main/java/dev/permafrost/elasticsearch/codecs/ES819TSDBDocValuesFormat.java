/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.codecs.DocValuesConsumer;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;

/**
 * Reads Elasticsearch's {@code ES819TSDB} doc values, the format of every doc-values field of its logsdb and
 * time_series indices from 8.19 and 9.1 to 9.3 (versions 0 to 2), read-only. A segment's two files:
 *
 * <ul>
 *   <li>{@code .dvm}, header {@code ES819TSDBDocValuesMetadata}; from version 2 a byte of block shift (7: blocks of
 *       128 values, 9: 512); then per field its number (an int), its type (a byte), its skipper's place and bounds if
 *       it has one, and its entry; -1 ends the list. A numeric entry: the value count (long), the documents with a
 *       value (int), the block addresses' monotonic list (an int block shift, then its metadata), the list's and the
 *       values' offset and length (an ordinal entry may instead have -1, a single ordinal, with no list and nothing
 *       written at those places; or -2, a primary-sort keyword's ordinal ranges: a VInt ordinal count, a byte block
 *       shift and the metadata of the monotonic list of each ordinal's first value and the end, written where the
 *       values would be), then the documents with a value as Lucene's {@code IndexedDISI} (offset, length,
 *       jump table entries, rank power; offset -1: every document, -2: none). Sorted numeric adds the values'
 *       addresses per document when some document has more than one; sorted is an ordinal entry and a terms
 *       dictionary ({@code TsdbTermsDictionary}); sorted set a byte (0: a sorted entry; 1: a sorted-numeric ordinal
 *       entry and a terms dictionary).
 *   <li>{@code .dvd}, header {@code ES819TSDBDocValuesData}: the blocks ({@code TsdbBlocks}), the addresses, the
 *       documents' sets, the dictionaries and the skippers ({@code TsdbSkipper}).
 * </ul>
 *
 * <p>Written from the description in the project's design notes, Lucene's own doc-values format (whose document
 * sets, monotonic lists, terms dictionary and skipper this format shares) and the bytes Elasticsearch 8.19, 9.1 and
 * 9.3 nodes write; no code of Elasticsearch's. Not read, each failing at open naming what it is: binary fields and
 * versions past 2 ({@code ES8193TSDB}, 9.4 on, writes version 3 and later).
 */
public final class ES819TSDBDocValuesFormat extends DocValuesFormat {
  /** The name segments record: {@code ES819TSDB}. Called by Lucene's SPI. */
  public ES819TSDBDocValuesFormat() {
    super("ES819TSDB");
  }

  @Override
  public DocValuesConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(getName() + " is read-only here: Permafrost never writes an engine's"
        + " segments");
  }

  @Override
  public DocValuesProducer fieldsProducer(SegmentReadState state) throws IOException {
    return new TsdbDocValuesProducer(state, getName());
  }
}
