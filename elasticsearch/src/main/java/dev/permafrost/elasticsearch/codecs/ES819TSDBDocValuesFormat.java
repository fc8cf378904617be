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
 * time_series indices from 8.19 and 9.1 to 9.3, and of the new segments 9.4 and later write for such indices created
 * before 9.4, read-only: versions 0 to 8 of the container it shares with {@code ES8193TSDB}
 * ({@link ES8193TSDBDocValuesFormat}; {@code TsdbFormat} has the version gates). A segment's files:
 *
 * <ul>
 *   <li>{@code .dvm}, header {@code ES819TSDBDocValuesMetadata}; from version 2 a byte of block shift (7: blocks of
 *       128 values, 9: 512); then per field its number (an int), its type (a byte), its skipper's place and bounds if
 *       it has one ({@code TsdbSkipper}; from version 7 with the most values a document has), and its entry; -1 ends
 *       the list. A numeric entry: the value count (long), the documents with a value (int), the block addresses'
 *       monotonic list (an int block shift, then its metadata), the list's and the values' offset and length (an
 *       ordinal entry may instead have -1, a single ordinal, with no list and nothing written at those places; or
 *       -2, a primary-sort keyword's ordinal ranges: a VInt ordinal count, a byte block shift and the metadata of the
 *       monotonic list of each ordinal's first value and the end, written where the values would be), then the
 *       documents with a value as Lucene's {@code IndexedDISI} (offset, length, jump table entries, rank power;
 *       offset -1: every document, -2: none). Sorted numeric adds the values' addresses per document when some
 *       document has more than one; sorted is an ordinal entry and a terms dictionary ({@code TsdbTermsDictionary}),
 *       from version 4 the dictionary first and, for the segment's primary sort field (the first of its index sort,
 *       if ascending), a flag byte of prefix partitions (1: their bits, offset and length follow); sorted set a byte
 *       (0: a sorted entry; 1: a sorted-numeric ordinal entry and a terms dictionary). Binary: {@code TsdbBinary}
 *       (Lucene 9.0's layout, or from version 1 zstd blocks whose value offsets are grouped VInts here).
 *   <li>{@code .dvd}, header {@code ES819TSDBDocValuesData}: the blocks ({@code TsdbBlocks}), the addresses, the
 *       documents' sets, the dictionaries, the binary values and, before version 5, the skippers.
 *   <li>{@code .dvs} (version 5 on), header {@code ES819TSDBDocValuesSkip}: the skippers' intervals.
 * </ul>
 *
 * <p>Written from the description in the project's design notes, Lucene's own doc-values format (whose document
 * sets, monotonic lists, terms dictionary and skipper this format shares) and the bytes Elasticsearch 8.19, 9.1, 9.3
 * and 9.5 nodes write; no code of Elasticsearch's. A version past 8 fails at open as Lucene's
 * {@code IndexFormatTooNewException}, naming the file.
 */
public final class ES819TSDBDocValuesFormat extends DocValuesFormat {
  /** The name segments record: {@code ES819TSDB}. Called by Lucene's SPI. */
  public ES819TSDBDocValuesFormat() {
    super(TsdbFormat.ES819.name());
  }

  @Override
  public DocValuesConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(getName() + " is read-only here: Permafrost never writes an engine's"
        + " segments");
  }

  @Override
  public DocValuesProducer fieldsProducer(SegmentReadState state) throws IOException {
    return new TsdbDocValuesProducer(state, TsdbFormat.ES819);
  }
}
