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
 * Reads Elasticsearch's {@code ES95TSDB} doc values, the format of the time_series indices created by 9.5 and later,
 * read-only: the container of {@link ES819TSDBDocValuesFormat} (versions to 8, the same version gates), with header
 * codecs {@code ES95TSDBDocValuesMetadata}, {@code ES95TSDBDocValuesData} and {@code ES95TSDBDocValuesSkip},
 * bit-packed binary offsets as {@link ES8193TSDBDocValuesFormat}'s, and three differences:
 *
 * <ul>
 *   <li>a numeric or sorted-numeric entry in blocks has, after its block index's shift, a field descriptor: a VInt
 *       version (1; another fails naming it), a VInt stage count (1 to 16), a byte block shift (this field's values
 *       per block, which sizes its block index: 512, or 128 for an index without large blocks), a byte data type
 *       (long, double, float) and the stages' ids, the payload last ({@code Es95FieldDescriptor}); an unknown id, a
 *       payload not last or a transform after it fails the segment's open naming the field, the file and the id;
 *   <li>each of its blocks is a bitmap of the stages applied, the payload (bits per value and the values packed as
 *       the other names pack them) and each applied transform's metadata from the last to the first: delta, offset,
 *       gcd, split delta (running sums restarting at up to 64 cuts) and ALP (decimal doubles as integers with an
 *       exponent and factor, and exceptions; decoded bit for bit to the sortable longs Lucene stores doubles as)
 *       ({@code Es95BlockDecoder}, {@code Es95Alp}); a clear payload bit fails naming the field, the file and the
 *       block;
 *   <li>files of versions 6 and 7 give each ordinal stream in blocks its own block shift, a byte after its block
 *       index's shift (gone again at 8, what 9.5.3 writes).
 * </ul>
 *
 * <p>Written from the description in the project's design notes and the bytes a 9.5.3 node writes; no code of
 * Elasticsearch's.
 */
public final class ES95TSDBDocValuesFormat extends DocValuesFormat {
  /** The name segments record: {@code ES95TSDB}. Called by Lucene's SPI. */
  public ES95TSDBDocValuesFormat() {
    super(TsdbFormat.ES95.name());
  }

  @Override
  public DocValuesConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(getName() + " is read-only here: Permafrost never writes an engine's"
        + " segments");
  }

  @Override
  public DocValuesProducer fieldsProducer(SegmentReadState state) throws IOException {
    return new TsdbDocValuesProducer(state, TsdbFormat.ES95);
  }
}
