/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.store.IndexInput;

/**
 * How a TSDB format writes the values of its numeric fields (numbers and dates, not ordinals) in blocks: the one
 * place the container's names differ in their numbers. {@code ES819TSDB} and {@code ES8193TSDB} write
 * {@link #FOR_BLOCKS}; Elasticsearch 9.5's {@code ES95TSDB} describes each field's encoding in its entry
 * ({@link Es95NumericCodec}).
 */
interface TsdbNumericCodec {
  /**
   * Reads what a numeric field's entry records after its block index's shift when its values are in blocks (nothing,
   * for {@link #FOR_BLOCKS}), and returns how its blocks are decoded.
   *
   * @param headerBlockShift the {@code .dvm} header's numeric block shift
   * @param field the field and file, for errors
   */
  FieldBlocks readField(IndexInput meta, int headerBlockShift, String field) throws IOException;

  /**
   * Reads what an ordinal stream's entry records after its block index's shift when its ordinals are in blocks, and
   * returns their block shift: nothing and the header's, but for {@code ES95TSDB}'s files of versions 6 and 7.
   *
   * @param version the files' format version
   * @param field the field and file, for errors
   */
  default int readOrdinalBlockShift(IndexInput meta, int version, int headerBlockShift, String field)
      throws IOException {
    return headerBlockShift;
  }

  /** One field's blocks: their size, and a decoder for one reader of them at a time. */
  interface FieldBlocks {
    /** The values in a block, as a shift. */
    int blockShift();

    /** A new decoder (decoders keep buffers, so each iterator has its own). */
    BlockDecoder decoder();
  }

  /** Decodes the block at an input's position into the first {@code 1 << blockShift} entries of {@code out}. */
  interface BlockDecoder {
    /** @param block the block's number in its field, for errors */
    void decode(IndexInput values, long block, long[] out) throws IOException;
  }

  /**
   * {@code ES819TSDB}'s and {@code ES8193TSDB}'s numeric blocks ({@link TsdbBlocks#decodeNumeric}), of the header's
   * block size; the entry records nothing of them.
   */
  TsdbNumericCodec FOR_BLOCKS = (meta, headerBlockShift, field) -> new FieldBlocks() {
    @Override
    public int blockShift() {
      return headerBlockShift;
    }

    @Override
    public BlockDecoder decoder() {
      TsdbBlocks blocks = new TsdbBlocks(1 << headerBlockShift, field);
      return (in, block, out) -> blocks.decodeNumeric(in, out);
    }
  };
}
