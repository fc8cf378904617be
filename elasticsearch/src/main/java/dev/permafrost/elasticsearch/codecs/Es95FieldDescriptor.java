/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.DataInput;

/**
 * How one {@code ES95TSDB} numeric field's blocks are encoded, as its {@code .dvm} entry describes it after its block
 * index's shift: a VInt descriptor version (1), a VInt stage count (1 to 16), a byte block shift (0 to 30), a byte
 * data type (0 long, 1 double, 2 float) and one byte per stage naming it ({@link Es95Stage}), the transforms in the
 * order they were applied and the payload last. Checked whole when read, so that a field this reader cannot decode
 * fails when its segment opens, never in a search.
 *
 * @param blockShift this field's values per block, as a shift (the block index is sized by it, not by the header's)
 * @param dataType what the values are: {@link #LONG}, {@link #DOUBLE} or {@link #FLOAT}
 * @param stages the pipeline, the payload last
 * @param field the field and its data file, for errors
 */
record Es95FieldDescriptor(int blockShift, int dataType, List<Es95Stage> stages, String field)
    implements TsdbNumericCodec.FieldBlocks {
  /** The only descriptor version there is (Elasticsearch 9.5). */
  static final int VERSION = 1;
  static final int MAX_STAGES = 16;
  /** The largest block shift a descriptor may have. */
  static final int MAX_BLOCK_SHIFT = 30;
  /**
   * The block shifts decoded here: packed values come in runs of 128, and a block is decoded whole into a buffer, so
   * 128 to 65,536 values (Elasticsearch writes 128 and 512).
   */
  static final int MIN_READ_BLOCK_SHIFT = 7;
  static final int MAX_READ_BLOCK_SHIFT = 16;
  static final int LONG = 0;
  static final int DOUBLE = 1;
  static final int FLOAT = 2;

  /**
   * Reads and checks a descriptor.
   *
   * @param field the field and its data file, for errors (the input names the metadata file)
   */
  static Es95FieldDescriptor read(DataInput meta, String field) throws IOException {
    int version = meta.readVInt();
    if (version != VERSION) {
      throw new CorruptIndexException("ES95TSDB field descriptor version " + version + " of " + field + ": only "
          + VERSION + " (Elasticsearch 9.5's) is read", String.valueOf(meta));
    }
    int count = meta.readVInt();
    if (count < 1 || count > MAX_STAGES) {
      throw new CorruptIndexException("ES95TSDB pipeline of " + count + " stages in " + field + " (1 to " + MAX_STAGES
          + ")", String.valueOf(meta));
    }
    int blockShift = meta.readByte();
    if (blockShift < 0 || blockShift > MAX_BLOCK_SHIFT) {
      throw new CorruptIndexException("ES95TSDB block shift " + blockShift + " of " + field + " (0 to "
          + MAX_BLOCK_SHIFT + ")", String.valueOf(meta));
    }
    int dataType = meta.readByte();
    if (dataType != LONG && dataType != DOUBLE && dataType != FLOAT) {
      throw new CorruptIndexException("ES95TSDB data type " + dataType + " of " + field + " (0 long, 1 double, 2"
          + " float)", String.valueOf(meta));
    }
    Es95Stage[] stages = new Es95Stage[count];
    for (int i = 0; i < count; i++) {
      int id = meta.readByte() & 0xFF;
      Es95Stage stage = Es95Stage.of(id);
      if (stage == null) {
        throw new CorruptIndexException(String.format("ES95TSDB stage id 0x%02X at position %d of %s is not one"
            + " this reader knows (it reads 0x01 delta, 0x02 offset, 0x03 gcd, 0x04 split delta, 0x05 ALP double,"
            + " 0xA1 bit packing): a newer Elasticsearch's", id, i, field), String.valueOf(meta));
      }
      stages[i] = stage;
    }
    for (int i = 0; i < count - 1; i++) {
      if (stages[i].isPayload()) {
        throw new CorruptIndexException(String.format("ES95TSDB payload stage 0x%02X at position %d of %d of %s: the"
            + " payload is the last stage, no transform follows it", stages[i].id, i, count, field),
            String.valueOf(meta));
      }
    }
    if (!stages[count - 1].isPayload()) {
      throw new CorruptIndexException(String.format("ES95TSDB pipeline of %s ends with transform 0x%02X, not a"
          + " payload stage", field, stages[count - 1].id), String.valueOf(meta));
    }
    if (blockShift < MIN_READ_BLOCK_SHIFT || blockShift > MAX_READ_BLOCK_SHIFT) {
      throw new CorruptIndexException("ES95TSDB blocks of " + (1L << blockShift) + " values in " + field + ": this"
          + " reader decodes blocks of 128 to 65,536 values (Elasticsearch writes 128 and 512)", String.valueOf(meta));
    }
    return new Es95FieldDescriptor(blockShift, dataType, List.of(stages), field);
  }

  @Override
  public TsdbNumericCodec.BlockDecoder decoder() {
    return new Es95BlockDecoder(stages, blockShift, field);
  }
}
