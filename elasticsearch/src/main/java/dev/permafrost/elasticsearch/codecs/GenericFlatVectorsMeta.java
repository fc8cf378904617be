/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.store.ChecksumIndexInput;

/**
 * The {@code .vfi} file of Elasticsearch's generic flat vectors format ({@code ES93GenericFlatVectorsFormat}, under
 * 9.4/9.5's {@code ES94*ScalarQuantizedVectorsFormat}): which layout holds each vector field's raw vectors. Header
 * codec {@code ES93GenericFlatVectorsFormatMeta}, version 0, with the segment's id and suffix; per field an
 * {@code int} field number, a string (the raw format's name) and a byte (whether the node read it with direct I/O,
 * 0 or 1); an {@code int} -1 ends the list; Lucene's footer. Read whole and checksummed when a segment opens.
 *
 * <p>Raw formats: {@code Lucene99FlatVectorsFormat} (Lucene's {@code .vec}/{@code .vemf}, read by Lucene) and
 * {@code ES93BitFlatVectorsFormat} (bit vectors in the same layout) are read; {@code ES93BFloat16FlatVectorsFormat}
 * (bfloat16 elements, a layout of Elasticsearch's own) and any other name are refused naming the field and the file.
 */
final class GenericFlatVectorsMeta {
  static final String EXTENSION = "vfi";
  static final String CODEC = "ES93GenericFlatVectorsFormatMeta";
  static final int VERSION_START = 0;
  static final int VERSION_CURRENT = 0;
  /** The field number that ends the list. */
  static final int END_OF_FIELDS = -1;

  /** The raw formats whose files are Lucene 9.9's flat vectors layout. */
  static final String LUCENE99_FLAT = "Lucene99FlatVectorsFormat";
  static final String BIT_FLAT = "ES93BitFlatVectorsFormat";
  static final String BFLOAT16_FLAT = "ES93BFloat16FlatVectorsFormat";

  private GenericFlatVectorsMeta() {}

  /**
   * The raw format name of each vector field the {@code .vfi} file of {@code state} lists, by field name; fails naming
   * the file if it is damaged, lists a field the segment has not (or one without vectors), or names a raw format
   * that is not Lucene's flat layout.
   */
  static Map<String, String> read(SegmentReadState state) throws IOException {
    String file = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, EXTENSION);
    Map<String, String> rawFormats = new LinkedHashMap<>();
    try (ChecksumIndexInput in = state.directory.openChecksumInput(file)) {
      Throwable failure = null;
      try {
        CodecUtil.checkIndexHeader(in, CODEC, VERSION_START, VERSION_CURRENT, state.segmentInfo.getId(),
            state.segmentSuffix);
        for (int number = in.readInt(); number != END_OF_FIELDS; number = in.readInt()) {
          FieldInfo field = state.fieldInfos.fieldInfo(number);
          if (field == null || !field.hasVectorValues()) {
            throw new CorruptIndexException("field number " + number + " is no vector field of segment "
                + state.segmentInfo.name, in);
          }
          String raw = in.readString();
          byte directIo = in.readByte();
          if (directIo != 0 && directIo != 1) {
            throw new CorruptIndexException("direct I/O flag " + directIo + " of field '" + field.name
                + "' is neither 0 nor 1", in);
          }
          if (!raw.equals(LUCENE99_FLAT) && !raw.equals(BIT_FLAT)) {
            throw new CorruptIndexException("the raw vectors of field '" + field.name + "' are in " + raw
                + (raw.equals(BFLOAT16_FLAT) ? ", Elasticsearch's bfloat16 layout (element_type bfloat16)" : "")
                + ", which this reader does not read (it reads " + LUCENE99_FLAT + " and " + BIT_FLAT + ")", in);
          }
          if (rawFormats.put(field.name, raw) != null) {
            throw new CorruptIndexException("field '" + field.name + "' is listed twice", in);
          }
        }
      } catch (Throwable t) {
        failure = t;
      } finally {
        CodecUtil.checkFooter(in, failure);
      }
    }
    return rawFormats;
  }
}
