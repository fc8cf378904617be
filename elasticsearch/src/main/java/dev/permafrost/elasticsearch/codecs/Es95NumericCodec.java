/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.IndexInput;

/**
 * {@code ES95TSDB}'s numeric fields: each entry describes its own pipeline and block size
 * ({@link Es95FieldDescriptor}), each block the stages applied to it ({@link Es95BlockDecoder}). Its ordinal streams
 * are the container's, except that files of versions 6 and 7 record each stream's block shift in a byte of its own
 * ({@link TsdbFormat#VERSION_ES95_ORDINAL_BLOCK_SHIFT}, gone again at
 * {@link TsdbFormat#VERSION_ES95_ORDINAL_BLOCK_SHIFT_GONE}).
 */
final class Es95NumericCodec implements TsdbNumericCodec {
  static final Es95NumericCodec INSTANCE = new Es95NumericCodec();

  private Es95NumericCodec() {}

  @Override
  public FieldBlocks readField(IndexInput meta, int headerBlockShift, String field) throws IOException {
    return Es95FieldDescriptor.read(meta, field);
  }

  @Override
  public int readOrdinalBlockShift(IndexInput meta, int version, int headerBlockShift, String field)
      throws IOException {
    if (version < TsdbFormat.VERSION_ES95_ORDINAL_BLOCK_SHIFT
        || version >= TsdbFormat.VERSION_ES95_ORDINAL_BLOCK_SHIFT_GONE) {
      return headerBlockShift;
    }
    int shift = meta.readByte();
    if (shift < Es95FieldDescriptor.MIN_READ_BLOCK_SHIFT || shift > Es95FieldDescriptor.MAX_READ_BLOCK_SHIFT) {
      throw new CorruptIndexException("ES95TSDB ordinal block shift " + shift + " of " + field + " (version "
          + version + "): this reader decodes blocks of 128 to 65,536 ordinals", meta);
    }
    return shift;
  }
}
