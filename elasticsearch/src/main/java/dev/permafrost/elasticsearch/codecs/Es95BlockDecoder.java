/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.IndexInput;

/**
 * Decodes the blocks of one {@code ES95TSDB} numeric field for one reader at a time, its buffers kept from block to
 * block. A block: a bitmap of the stages applied to it (a byte for pipelines of up to 8 stages, else a little-endian
 * short; bit {@code i} for the stage at position {@code i}, the payload's always set), the payload (a VInt bits per
 * value and the values packed as {@link TsdbBlocks#unpack} reads them), then the metadata of each applied transform
 * from the last position to the first: the order they are undone in, so each is undone as its metadata is read.
 */
final class Es95BlockDecoder implements TsdbNumericCodec.BlockDecoder {
  /** The most sub-runs' cuts a split-delta block may have. */
  static final int MAX_SPLITS = 64;
  private final Es95Stage[] stages;
  private final int blockSize;
  private final String field;
  private final TsdbBlocks packing;
  private final int[] splits = new int[MAX_SPLITS];

  /**
   * @param stages the field's pipeline, checked: transforms, then the payload
   * @param blockShift the values in a block, as a shift
   * @param field the field and its data file, for errors
   */
  Es95BlockDecoder(List<Es95Stage> stages, int blockShift, String field) {
    assert !stages.isEmpty() && stages.get(stages.size() - 1).isPayload() : stages;
    this.stages = stages.toArray(Es95Stage[]::new);
    this.blockSize = 1 << blockShift;
    this.field = field;
    this.packing = new TsdbBlocks(blockSize, field);
  }

  @Override
  public void decode(IndexInput in, long block, long[] out) throws IOException {
    int n = stages.length;
    int bitmap = n <= 8 ? in.readByte() & 0xFF : in.readShort() & 0xFFFF;
    if ((bitmap & (1 << (n - 1))) == 0) {
      throw corrupt(in, block, String.format("its stage bitmap 0x%X has the payload's bit (%d) clear", bitmap, n - 1));
    }
    if ((bitmap >>> n) != 0) {
      throw corrupt(in, block, String.format("its stage bitmap 0x%X sets stages past the pipeline's %d", bitmap, n));
    }
    int bits = in.readVInt();
    if (bits < 0 || bits > Long.SIZE) {
      throw corrupt(in, block, bits + " bits per value");
    }
    packing.unpack(in, bits, out);
    for (int i = n - 2; i >= 0; i--) {
      if ((bitmap & (1 << i)) != 0) {
        undo(stages[i], in, block, out);
      }
    }
  }

  private void undo(Es95Stage stage, IndexInput in, long block, long[] out) throws IOException {
    switch (stage) {
      case DELTA -> runningSum(out, 0, blockSize, in.readZLong());
      case OFFSET -> {
        long min = in.readZLong();
        for (int i = 0; i < blockSize; i++) {
          out[i] += min;
        }
      }
      case GCD -> {
        long gcd = in.readVLong() + 2;
        for (int i = 0; i < blockSize; i++) {
          out[i] *= gcd; // wrapping, as the writer's
        }
      }
      case SPLIT_DELTA -> {
        int k = in.readVInt();
        if (k < 0 || k > MAX_SPLITS) {
          throw corrupt(in, block, "a split delta of " + k + " cuts (0 to " + MAX_SPLITS + ")");
        }
        int previous = 0;
        for (int j = 0; j < k; j++) {
          int at = in.readVInt();
          if (at < previous || at > blockSize) {
            throw corrupt(in, block, "split delta cut " + j + " at " + at + ", after " + previous + " in a block of "
                + blockSize);
          }
          splits[j] = previous = at;
        }
        int from = 0;
        for (int j = 0; j <= k; j++) {
          int to = j < k ? splits[j] : blockSize;
          runningSum(out, from, to, in.readZLong());
          from = to;
        }
      }
      case ALP_DOUBLE -> {
        int exponent = in.readByte();
        int factor = in.readByte();
        if (exponent < 0 || exponent > Es95Alp.MAX_EXPONENT || factor < 0 || factor > Es95Alp.MAX_EXPONENT) {
          throw corrupt(in, block, "ALP exponent " + exponent + " and factor " + factor + " (0 to "
              + Es95Alp.MAX_EXPONENT + " each)");
        }
        Es95Alp.decode(out, blockSize, exponent, factor);
        int exceptions = in.readVInt();
        if (exceptions < 0 || exceptions > blockSize) {
          throw corrupt(in, block, exceptions + " ALP exceptions");
        }
        for (int j = 0; j < exceptions; j++) {
          int at = in.readVInt();
          if (at < 0 || at >= blockSize) {
            throw corrupt(in, block, "an ALP exception at " + at);
          }
          out[at] = in.readLong();
        }
      }
      case BIT_PACK -> throw new AssertionError("a payload before the last position of " + field);
    }
  }

  /** {@code s = first}, then each value of {@code [from, to)} becomes {@code s += value}. */
  private static void runningSum(long[] values, int from, int to, long first) {
    long sum = first;
    for (int i = from; i < to; i++) {
      sum += values[i];
      values[i] = sum;
    }
  }

  private CorruptIndexException corrupt(IndexInput in, long block, String what) {
    return new CorruptIndexException("ES95TSDB block " + block + " of " + field + ": " + what, in);
  }
}
