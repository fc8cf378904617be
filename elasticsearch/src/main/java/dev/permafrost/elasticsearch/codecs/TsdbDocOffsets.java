/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.DataInput;
import org.apache.lucene.util.GroupVIntUtil;

/**
 * How a compressed binary block of the TSDB formats records where each of its values starts: {@code n + 1} lengths
 * for {@code n} values, the first 0, whose running sums are the values' offsets in the block's bytes (the last, the
 * bytes' length).
 */
enum TsdbDocOffsets {
  /** {@code ES819TSDB}: Lucene's group-varint encoding ({@code DataOutput.writeGroupVInts}). */
  GROUPED_VINT {
    @Override
    void read(DataInput in, int count, int[] out) throws IOException {
      GroupVIntUtil.readGroupVInts(in, out, count);
    }
  },
  /**
   * {@code ES8193TSDB} (and {@code ES95TSDB}): a byte of bits per length (0: every length is 0, nothing follows), then
   * the lengths packed in that many bits each, most significant bit first, the last byte padded with zero bits.
   */
  BITPACKING {
    @Override
    void read(DataInput in, int count, int[] out) throws IOException {
      int bits = in.readByte();
      if (bits == 0) {
        Arrays.fill(out, 0, count, 0);
        return;
      }
      if (bits < 0 || bits > Integer.SIZE) {
        throw new CorruptIndexException("binary offsets of " + bits + " bits each (0 to 32 are written)",
            String.valueOf(in));
      }
      long buffer = 0; // bits read and not yet used, the oldest at the top of the low `available` bits
      int available = 0;
      for (int i = 0; i < count; i++) {
        while (available < bits) {
          buffer = (buffer << 8) | (in.readByte() & 0xFFL);
          available += 8;
        }
        available -= bits;
        out[i] = (int) ((buffer >>> available) & ((1L << bits) - 1));
      }
    }
  };

  /** Reads {@code count} lengths into {@code out}. */
  abstract void read(DataInput in, int count, int[] out) throws IOException;
}
