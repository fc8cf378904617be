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
 * ({@link #VERSION_ORDINAL_BLOCK_SHIFT}, gone again at {@link #VERSION_ORDINAL_BLOCK_SHIFT_GONE}). Those two gates of the
 * container's versions are here rather than on {@code TsdbFormat}, which names this class.
 */
final class Es95NumericCodec implements TsdbNumericCodec {
  /**
   * Version 6: an ordinal stream in blocks records its own block shift, a byte after its block index's shift (until
   * {@link #VERSION_ORDINAL_BLOCK_SHIFT_GONE}).
   */
  static final int VERSION_ORDINAL_BLOCK_SHIFT = 6;
  /** Version 8: ordinal streams have the header's block shift again, no byte of their own. */
  static final int VERSION_ORDINAL_BLOCK_SHIFT_GONE = 8;
  static final Es95NumericCodec INSTANCE = new Es95NumericCodec();

  private Es95NumericCodec() {}

  @Override
  public FieldBlocks readField(IndexInput meta, int headerBlockShift, String field) throws IOException {
    return Es95FieldDescriptor.read(meta, field);
  }

  @Override
  public int readOrdinalBlockShift(IndexInput meta, int version, int headerBlockShift, String field)
      throws IOException {
    if (version < VERSION_ORDINAL_BLOCK_SHIFT || version >= VERSION_ORDINAL_BLOCK_SHIFT_GONE) {
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
