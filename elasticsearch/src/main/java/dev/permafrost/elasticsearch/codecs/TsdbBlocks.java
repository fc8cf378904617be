/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.DataInput;
import org.apache.lucene.store.IndexInput;

/**
 * Decodes one block of values of Elasticsearch's TSDB doc-values formats ({@code ES819TSDB}): 128 values, or 512 where
 * the file's version 2 header says so. Two kinds of block, chosen by the field's type:
 *
 * <ul>
 *   <li><b>Numeric</b> (numbers, dates): a VInt token (bit 0: a GCD follows, bit 1: an offset follows, bit 2: the
 *       values are deltas; {@code token >>> 3} bits per value), the packed values, then a VLong {@code gcd - 2}, a
 *       ZLong offset and a ZLong first delta, each only if its bit is set. A value is {@code packed * gcd + offset};
 *       with deltas, the first also gets the first delta and each value is the sum of those before it and itself.
 *   <li><b>Ordinal</b> (the ordinals of sorted and sorted-set fields): a VLong header whose trailing 1-bits say how:
 *       none, one run ({@code header >>> 1}); one, two runs (first {@code header >>> 2} for a VInt length, then
 *       first plus a ZLong delta); two, packed in {@code bitsRequired(ordinals - 1)} bits; three, a cycle of
 *       {@code header >>> 4} VLongs repeated.
 * </ul>
 *
 * <p>Packed values use Lucene 9.0's {@code ForUtil} layout (the postings' one, for any block size): values of up to 8,
 * 16 or 32 bits are first gathered in lanes of 8, 16 or 32 bits of a long (value {@code j + k * L} in lane
 * {@code k} from the top of long {@code j}, {@code L} longs), then those longs' lanes are packed, each to its bits
 * per value, {@code 128 * bits / 64} longs in all: whole values lane by lane from the top, the lanes' low bits left
 * over holding the remaining values' bits in order, most significant first; a block of 512 values is four such runs
 * of 128, one after another (so the bytes of Elasticsearch 9.3 say). A block's bits per value is 0 to 24 as needed,
 * or rounded up to 32, 40, 48, 56 or 64; 32 is the layout above with whole 32-bit lanes; 40, 48 and 56 are each
 * value in 5, 6 or 7 bytes, least significant first, one after another (so the bytes of 8.19, 9.1 and 9.3 say);
 * 64 is plain longs. Any other width fails naming it, never decoding to other values.
 *
 * <p>The last block of a field is written whole: the values past the field's count are padding, never asked for.
 */
final class TsdbBlocks {
  /** The values Lucene 9.0's {@code ForUtil} packs together. */
  private static final int FOR_BLOCK = 128;
  private final int blockSize;
  private final long[] packed;
  private final long[] gathered;
  private final String field;

  /**
   * @param blockSize the values in a block: 128 or 512 (or another multiple of 128, for {@code ES95TSDB}'s fields)
   * @param field the field's name and file, for errors
   */
  TsdbBlocks(int blockSize, String field) {
    assert blockSize >= FOR_BLOCK && blockSize % FOR_BLOCK == 0 : blockSize;
    this.blockSize = blockSize;
    this.packed = new long[FOR_BLOCK / 2]; // 128 values of at most 32 bits
    this.gathered = new long[FOR_BLOCK / 2];
    this.field = field;
  }

  /** Reads the numeric block at the input's position into {@code out}'s first {@code blockSize} entries. */
  void decodeNumeric(IndexInput in, long[] out) throws IOException {
    int token = in.readVInt();
    int bits = token >>> 3;
    unpack(in, bits, out);
    long gcd = (token & 1) != 0 ? in.readVLong() + 2 : 1;
    long offset = (token & 2) != 0 ? in.readZLong() : 0;
    long firstDelta = (token & 4) != 0 ? in.readZLong() : 0;
    if (gcd != 1) {
      for (int i = 0; i < blockSize; i++) {
        out[i] *= gcd;
      }
    }
    if (offset != 0) {
      for (int i = 0; i < blockSize; i++) {
        out[i] += offset;
      }
    }
    if ((token & 4) != 0) {
      out[0] += firstDelta;
      for (int i = 1; i < blockSize; i++) {
        out[i] += out[i - 1];
      }
    }
  }

  /**
   * Reads the ordinal block at the input's position into {@code out}.
   *
   * @param ordinalBits the bits a packed block's ordinals take: {@code bitsRequired(ordinals - 1)}
   */
  void decodeOrdinals(IndexInput in, int ordinalBits, long[] out) throws IOException {
    long header = in.readVLong();
    int kind = Long.numberOfTrailingZeros(~header);
    switch (kind) {
      case 0 -> Arrays.fill(out, 0, blockSize, header >>> 1);
      case 1 -> {
        long first = header >>> 2;
        int firstRun = in.readVInt();
        long second = first + in.readZLong();
        if (firstRun < 0 || firstRun > blockSize) {
          throw new CorruptIndexException("an ordinal run of " + firstRun + " in a block of " + blockSize
              + " values of field " + field, in);
        }
        Arrays.fill(out, 0, firstRun, first);
        Arrays.fill(out, firstRun, blockSize, second);
      }
      case 2 -> unpack(in, ordinalBits, out);
      case 3 -> {
        long cycle = header >>> 4;
        if (cycle < 1 || cycle > blockSize) {
          throw new CorruptIndexException("an ordinal cycle of " + cycle + " values in a block of " + blockSize
              + " of field " + field, in);
        }
        for (int i = 0; i < cycle; i++) {
          out[i] = in.readVLong();
        }
        for (int i = (int) cycle; i < blockSize; i++) {
          out[i] = out[i - (int) cycle];
        }
      }
      default -> throw new CorruptIndexException("ordinal block encoding " + kind + " (header " + header
          + ") of field " + field + " is not one this reader knows", in);
    }
  }

  /**
   * Unpacks {@code blockSize} values of {@code bits} bits each: plain longs at 64 bits, whole bytes at 40, 48 and
   * 56, else 128 values at a time in Lucene 9.0's {@code ForUtil} layout (a block of 512 is four such runs one after
   * another).
   */
  void unpack(DataInput in, int bits, long[] out) throws IOException {
    if (bits == 0) {
      Arrays.fill(out, 0, blockSize, 0L);
      return;
    }
    if (bits == 64) {
      in.readLongs(out, 0, blockSize);
      return;
    }
    if (bits == 40 || bits == 48 || bits == 56) {
      // whole bytes: each value in 5, 6 or 7 bytes, least significant first, one after another
      int bytes = bits / 8;
      for (int i = 0; i < blockSize; i++) {
        long value = 0;
        for (int b = 0; b < bytes; b++) {
          value |= (in.readByte() & 0xFFL) << (8 * b);
        }
        out[i] = value;
      }
      return;
    }
    if (bits > 24 && bits != 32) {
      throw new CorruptIndexException("a numeric block of " + bits + " bits per value in " + field
          + ": Elasticsearch writes 0 to 24, 32, 40, 48, 56 or 64", String.valueOf(in));
    }
    for (int start = 0; start < blockSize; start += FOR_BLOCK) {
      unpack128(in, bits, out, start);
    }
  }

  /** Unpacks 128 values of {@code bits} (1 to 32) bits each into {@code out[start..start+128)}. */
  private void unpack128(DataInput in, int bits, long[] out, int start) throws IOException {
    int lane = bits <= 8 ? 8 : bits <= 16 ? 16 : 32;
    int packedLongs = FOR_BLOCK * bits / 64;
    int gatheredLongs = FOR_BLOCK * lane / 64;
    in.readLongs(packed, 0, packedLongs);
    long[] masks = lane == 8 ? MASKS8 : lane == 16 ? MASKS16 : MASKS32;
    long valueMask = masks[bits];
    int next = 0;
    int shift = lane - bits;
    for (; shift >= 0; shift -= bits) {
      for (int i = 0; i < packedLongs; i++) {
        gathered[next++] = (packed[i] >>> shift) & valueMask;
      }
    }
    int leftover = shift + bits; // low bits of each lane not holding a whole value
    int chunk = 0;
    int chunkBits = leftover;
    for (; next < gatheredLongs; next++) {
      long value = 0;
      int need = bits;
      while (need > 0) {
        int take = Math.min(need, chunkBits);
        value = (value << take) | ((packed[chunk] >>> (chunkBits - take)) & masks[take]);
        need -= take;
        chunkBits -= take;
        if (chunkBits == 0) {
          chunk++;
          chunkBits = leftover;
        }
      }
      gathered[next] = value;
    }
    int lanes = 64 / lane;
    long mask = (1L << lane) - 1;
    for (int j = 0; j < gatheredLongs; j++) {
      long l = gathered[j];
      for (int k = 0; k < lanes; k++) {
        out[start + j + gatheredLongs * k] = (l >>> (64 - lane * (k + 1))) & mask;
      }
    }
  }

  private static final long[] MASKS8 = masks(8);
  private static final long[] MASKS16 = masks(16);
  private static final long[] MASKS32 = masks(32);

  /** For each width 0 to {@code lane}: the low bits of that width of every lane of a long. */
  private static long[] masks(int lane) {
    long[] masks = new long[lane + 1];
    for (int bits = 0; bits <= lane; bits++) {
      masks[bits] = laneMask(lane, bits);
    }
    return masks;
  }

  /** The low {@code bits} bits of every {@code lane}-bit lane of a long. */
  private static long laneMask(int lane, int bits) {
    long one = bits == 64 ? -1L : (1L << bits) - 1;
    long mask = 0;
    for (int at = 0; at < 64; at += lane) {
      mask |= one << at;
    }
    return mask;
  }
}
