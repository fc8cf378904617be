/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.NumericUtils;
import org.junit.jupiter.api.Test;

/**
 * Each {@code ES95TSDB} stage over known bytes, written here by hand from the format's description (and, where the
 * description quotes them whole, the bytes a 9.5.3 node wrote): the field descriptor and its refusals, the block
 * bitmap (a byte, or a little-endian short past 8 stages; a clear payload bit), and delta, offset, gcd (wrapping),
 * split delta (1 and 64 cuts), ALP (decimals bit for bit, the powers of ten that {@code StrictMath} gets wrong, and
 * the exceptions NaN, infinities, {@code -0.0} and {@code Double.MIN_VALUE}), undone from the last to the first.
 */
class Es95BlockDecoderTest {
  private static final String FIELD = "field 'f' of _0_ES95TSDB_0.dvd";
  private static final int DELTA = 0x01;
  private static final int OFFSET = 0x02;
  private static final int GCD = 0x03;
  private static final int SPLIT_DELTA = 0x04;
  private static final int ALP = 0x05;
  private static final int BIT_PACK = 0xA1;

  // ---- the descriptor

  /** The descriptor of {@code @timestamp} a 9.5.3 node wrote: {@code 01 05 09 00 04 01 02 03 a1}. */
  @Test
  void theNodesTimestampDescriptor() throws IOException {
    ByteArrayDataInput in = new ByteArrayDataInput(new byte[] {0x01, 0x05, 0x09, 0x00, 0x04, 0x01, 0x02, 0x03,
        (byte) 0xa1});
    Es95FieldDescriptor d = Es95FieldDescriptor.read(in, FIELD);
    assertTrue(in.eof());
    assertEquals(9, d.blockShift());
    assertEquals(Es95FieldDescriptor.LONG, d.dataType());
    assertEquals(List.of(Es95Stage.SPLIT_DELTA, Es95Stage.DELTA, Es95Stage.OFFSET, Es95Stage.GCD, Es95Stage.BIT_PACK),
        d.stages());
  }

  @Test
  void anUnknownStageIdIsRefusedNamingFieldAndId() {
    for (int id : new int[] {0x06, 0x00, 0xA0, 0xA2, 0xFF}) {
      CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> descriptor(9, 0, 0x01, id, 0xA1));
      assertTrue(e.getMessage().contains(String.format("stage id 0x%02X", id)) && e.getMessage().contains(FIELD),
          e.getMessage());
    }
  }

  @Test
  void aDescriptorVersionOtherThan1IsRefused() {
    for (int version : new int[] {0, 2, 300}) {
      CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> Es95FieldDescriptor.read(
          input(out -> {
            out.writeVInt(version);
            out.writeVInt(1);
            out.writeByte((byte) 9);
            out.writeByte((byte) 0);
            out.writeByte((byte) 0xA1);
          }), FIELD));
      assertTrue(e.getMessage().contains("descriptor version " + version) && e.getMessage().contains(FIELD),
          e.getMessage());
    }
  }

  /** The payload is the last stage and only the last: not before a transform, not missing. */
  @Test
  void aPayloadNotLastOrMissingIsRefused() {
    CorruptIndexException early = assertThrows(CorruptIndexException.class,
        () -> descriptor(9, 0, BIT_PACK, DELTA, BIT_PACK));
    assertTrue(early.getMessage().contains("payload stage 0xA1 at position 0") && early.getMessage().contains(FIELD),
        early.getMessage());
    CorruptIndexException last = assertThrows(CorruptIndexException.class, () -> descriptor(9, 0, DELTA, OFFSET));
    assertTrue(last.getMessage().contains("ends with transform 0x02") && last.getMessage().contains(FIELD),
        last.getMessage());
  }

  @Test
  void stageCountsBlockShiftsAndDataTypesOutOfRangeAreRefused() {
    assertThrows(CorruptIndexException.class, () -> descriptor(9, 0));
    assertThrows(CorruptIndexException.class, () -> descriptor(9, 0, new int[17]));
    assertThrows(CorruptIndexException.class, () -> descriptor(31, 0, BIT_PACK));
    assertThrows(CorruptIndexException.class, () -> descriptor(9, 3, BIT_PACK));
    CorruptIndexException small = assertThrows(CorruptIndexException.class, () -> descriptor(5, 0, BIT_PACK));
    assertTrue(small.getMessage().contains("blocks of 32 values"), small.getMessage());
    assertEquals(7, assertDoesNotThrow(() -> descriptor(7, 2, BIT_PACK)).blockShift());
  }

  // ---- blocks

  /**
   * {@code @timestamp}'s first block as the description quotes a 9.5.3 node's: {@code 15} (split delta, offset and
   * payload applied), {@code 00} (0 bits a value), {@code 9f 9c 01} (offset -10,000), {@code 01 ac 02} (one cut, at
   * 300), then the two first values (not quoted: chosen here). So each sub-run falls by 10 s from its first value.
   */
  @Test
  void theNodesFirstTimestampBlock() throws IOException {
    Es95FieldDescriptor d = descriptor(9, 0, SPLIT_DELTA, DELTA, OFFSET, GCD, BIT_PACK);
    long first = 1_795_923_685_891L + 10_000;
    long second = 1_795_920_000_000L;
    long[] v = decode(d, out -> {
      out.writeBytes(new byte[] {0x15, 0x00, (byte) 0x9f, (byte) 0x9c, 0x01, 0x01, (byte) 0xac, 0x02}, 8);
      out.writeZLong(first);
      out.writeZLong(second);
    });
    assertEquals(1_795_923_685_891L, v[0]);
    assertEquals(1_795_923_685_891L - 299 * 10_000L, v[299]);
    assertEquals(1_795_919_990_000L, v[300]);
    assertEquals(1_795_919_990_000L - 211 * 10_000L, v[511]);
    for (int i = 1; i < 512; i++) {
      if (i != 300) {
        assertEquals(-10_000, v[i] - v[i - 1], "value " + i);
      }
    }
  }

  /** Delta: the running sum from the first value, over the 4-bit packed payload (0, 1, ..., 15, 0, ...). */
  @Test
  void deltaIsARunningSumFromTheFirstValue() throws IOException {
    Es95FieldDescriptor d = descriptor(7, 0, DELTA, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b11);
      payload4(out, 128, i -> i % 16);
      out.writeZLong(-5);
    });
    assertEquals(-5, v[0]);
    assertEquals(-4, v[1]);
    assertEquals(-2, v[2]);
    assertEquals(-5 + 120, v[15]);
    assertEquals(-5 + 8 * 120, v[127]);
  }

  /** Offset: its minimum added to every value (here 64-bit payload values, wrapping past the top). */
  @Test
  void offsetAddsItsMinimum() throws IOException {
    Es95FieldDescriptor d = descriptor(7, 0, OFFSET, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b11);
      out.writeVInt(64);
      for (int i = 0; i < 128; i++) {
        out.writeLong(i == 127 ? Long.MAX_VALUE : i * 1_000L);
      }
      out.writeZLong(Long.MIN_VALUE + 7);
    });
    assertEquals(Long.MIN_VALUE + 7, v[0]);
    assertEquals(Long.MIN_VALUE + 7 + 126_000, v[126]);
    assertEquals(6, v[127], "MAX + MIN + 7, wrapped");
  }

  /** GCD: every value multiplied, wrapping: 0, 1, 2, 3 times 2^62. */
  @Test
  void gcdMultipliesWrapping() throws IOException {
    Es95FieldDescriptor d = descriptor(7, 0, GCD, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b11);
      payload4(out, 128, i -> i % 4);
      out.writeVLong((1L << 62) - 2);
    });
    assertEquals(0L, v[0]);
    assertEquals(0x4000_0000_0000_0000L, v[1]);
    assertEquals(0x8000_0000_0000_0000L, v[2]);
    assertEquals(0xC000_0000_0000_0000L, v[3]);
    assertEquals(0xC000_0000_0000_0000L, v[127]);
  }

  /** A stage whose bit is clear was not applied to the block and wrote nothing: here only offset was. */
  @Test
  void aStageWhoseBitIsClearWroteNothing() throws IOException {
    Es95FieldDescriptor d = descriptor(7, 0, DELTA, OFFSET, GCD, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b1010);
      out.writeVInt(0);
      out.writeZLong(42);
    });
    for (long x : v) {
      assertEquals(42, x);
    }
  }

  /**
   * Delta, offset and gcd all applied: their metadata on disk from the last stage to the first (gcd 3, offset -7,
   * first 1,000), undone in that order: value = running sum from 1,000 of {@code packed * 3 - 7}.
   */
  @Test
  void transformsAreUndoneFromTheLastToTheFirst() throws IOException {
    Es95FieldDescriptor d = descriptor(9, 0, DELTA, OFFSET, GCD, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b1111);
      payload4(out, 512, i -> (i * 7) % 16);
      out.writeVLong(3 - 2);
      out.writeZLong(-7);
      out.writeZLong(1_000);
    });
    assertEquals(1_000 - 7, v[0]);
    assertEquals(1_000 - 7 + (7 * 3 - 7), v[1]);
    long sum = 1_000;
    for (int i = 0; i < 512; i++) {
      sum += (i * 7) % 16 * 3 - 7;
      assertEquals(sum, v[i], "value " + i);
    }
  }

  /** Split delta with one cut (k = 1, at 200): two running sums, from 10 over [0, 200) and from -10 over the rest. */
  @Test
  void splitDeltaOfOneCut() throws IOException {
    Es95FieldDescriptor d = descriptor(9, 0, SPLIT_DELTA, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b11);
      payload4(out, 512, i -> 1);
      out.writeVInt(1);
      out.writeVInt(200);
      out.writeZLong(10);
      out.writeZLong(-10);
    });
    assertEquals(11, v[0]);
    assertEquals(210, v[199]);
    assertEquals(-9, v[200]);
    assertEquals(-10 + 312, v[511]);
  }

  /** Split delta with 64 cuts (the most), at 3, 11, 19, ...: 65 sub-runs, each from its own first value. */
  @Test
  void splitDeltaOf64Cuts() throws IOException {
    Es95FieldDescriptor d = descriptor(9, 0, SPLIT_DELTA, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b11);
      payload4(out, 512, i -> 2);
      out.writeVInt(64);
      for (int j = 0; j < 64; j++) {
        out.writeVInt(8 * j + 3);
      }
      for (int j = 0; j <= 64; j++) {
        out.writeZLong(-1_000L * j);
      }
    });
    assertEquals(2, v[0]);
    assertEquals(6, v[2]);
    assertEquals(-1_000 + 2, v[3]);
    assertEquals(-1_000 + 16, v[10]);
    assertEquals(-2_000 + 2, v[11]);
    assertEquals(-64_000 + 2, v[507]);
    assertEquals(-64_000 + 10, v[511]);
    CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> decode(d, out -> {
      out.writeByte((byte) 0b11);
      out.writeVInt(0);
      out.writeVInt(65);
    }));
    assertTrue(e.getMessage().contains("65 cuts") && e.getMessage().contains("block 0 of " + FIELD), e.getMessage());
  }

  /**
   * ALP's decimals bit for bit: {@code n * (10^f * 10^-e)}, the expected bits computed outside Java (IEEE doubles in
   * Python); {@code 1 * 10^-5} is 1e-5 exactly, where {@code StrictMath.pow(10, -5)} gives the double below it.
   */
  @Test
  void alpDecimalsBitForBit() {
    long[][] cases = { // n, e, f, the double's bits
        {123_456_789L, 8, 0, 0x3ff3c0ca4283de1cL}, // 1.2345678900000001
        {31_415_926_535_897_932L, 16, 0, 0x400921fb54442d18L}, // Math.PI
        {99_999L, 3, 0, 0x4058ffef9db22d0eL}, // 99.999
        {7L, 18, 2, 0x3cc9385c44dd7885L}, // 7e-16
        {1L, 5, 0, 4532020583610935537L}, // 1e-5; StrictMath's 10^-5 would give ...536
        {1L, 11, 0, 4442235333156365461L}, // 1e-11; StrictMath's ...462
        {1L, 17, 0, 4352464011485697175L}, // 1e-17; StrictMath's ...174
        {-25L, 1, 0, Double.doubleToRawLongBits(-2.5)},
        {0L, 0, 0, 0L},
    };
    for (long[] c : cases) {
      long[] v = {c[0]};
      Es95Alp.decode(v, 1, (int) c[1], (int) c[2]);
      assertEquals(c[3], Double.doubleToRawLongBits(NumericUtils.sortableLongToDouble(v[0])),
          c[0] + " e" + c[1] + " f" + c[2]);
      assertEquals(NumericUtils.doubleToSortableLong(Double.longBitsToDouble(c[3])), v[0], "as Lucene sorts it");
    }
  }

  /**
   * ALP in a block, with the exceptions it writes as sortable longs overwritten last: {@code -0.0} (sortable -1),
   * NaN, the infinities and {@code Double.MIN_VALUE}; the rest {@code n * 10^-2} after gcd 5 and offset 100 were
   * undone.
   */
  @Test
  void alpExceptionsAreOverwrittenLast() throws IOException {
    Es95FieldDescriptor d = descriptor(7, Es95FieldDescriptor.DOUBLE, ALP, OFFSET, GCD, BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeByte((byte) 0b1111);
      payload4(out, 128, i -> i % 16);
      out.writeVLong(5 - 2);
      out.writeZLong(100);
      out.writeByte((byte) 2);
      out.writeByte((byte) 0);
      out.writeVInt(5);
      long[][] exceptions = {{1, -1L}, {2, 0x7ff8000000000000L}, {3, 0x7ff0000000000000L}, {4, 0x800fffffffffffffL},
          {5, 1L}};
      for (long[] x : exceptions) {
        out.writeVInt((int) x[0]);
        out.writeLong(x[1]);
      }
    });
    assertEquals(1.0, NumericUtils.sortableLongToDouble(v[0]));
    assertEquals(0x8000000000000000L, Double.doubleToRawLongBits(NumericUtils.sortableLongToDouble(v[1])), "-0.0");
    assertTrue(Double.isNaN(NumericUtils.sortableLongToDouble(v[2])));
    assertEquals(Double.POSITIVE_INFINITY, NumericUtils.sortableLongToDouble(v[3]));
    assertEquals(Double.NEGATIVE_INFINITY, NumericUtils.sortableLongToDouble(v[4]));
    assertEquals(Double.MIN_VALUE, NumericUtils.sortableLongToDouble(v[5]));
    assertEquals(1.3, NumericUtils.sortableLongToDouble(v[6]), "(6 * 5 + 100) * 10^-2");
    assertEquals(Double.doubleToRawLongBits(175 * 0.01), Double.doubleToRawLongBits(
        NumericUtils.sortableLongToDouble(v[15])));
    CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> decode(d, out -> {
      out.writeByte((byte) 0b1001);
      out.writeVInt(0);
      out.writeByte((byte) 19);
      out.writeByte((byte) 0);
    }));
    assertTrue(e.getMessage().contains("ALP exponent 19") && e.getMessage().contains(FIELD), e.getMessage());
  }

  /** Past 8 stages the bitmap is a little-endian short: {@code 03 01}, positions 0, 1 and the payload's, 8. */
  @Test
  void aPipelineOfMoreThan8StagesHasAShortBitmap() throws IOException {
    Es95FieldDescriptor d = descriptor(7, 0, OFFSET, OFFSET, OFFSET, OFFSET, OFFSET, OFFSET, OFFSET, OFFSET,
        BIT_PACK);
    long[] v = decode(d, out -> {
      out.writeBytes(new byte[] {0x03, 0x01}, 2);
      out.writeVInt(0);
      out.writeZLong(5); // position 1's
      out.writeZLong(6); // position 0's
    });
    assertEquals(11, v[0]);
    assertEquals(11, v[127]);
  }

  /** A block whose payload bit is clear (or that sets bits past its stages) is corrupt, naming field, file, block. */
  @Test
  void aClearPayloadBitIsCorruptNamingFieldFileAndBlock() throws IOException {
    Es95FieldDescriptor d = descriptor(9, 0, DELTA, BIT_PACK);
    IndexInput in = new ByteBuffersIndexInput(bytes(out -> {
      out.writeByte((byte) 0b01);
      out.writeVInt(0);
    }).toDataInput(), "values of " + FIELD);
    CorruptIndexException e = assertThrows(CorruptIndexException.class,
        () -> d.decoder().decode(in, 3, new long[512]));
    assertTrue(e.getMessage().contains("block 3 of " + FIELD) && e.getMessage().contains("payload's bit"),
        e.getMessage());
    CorruptIndexException past = assertThrows(CorruptIndexException.class, () -> decode(d, out -> {
      out.writeByte((byte) 0b110);
      out.writeVInt(0);
    }));
    assertTrue(past.getMessage().contains("past the pipeline's 2"), past.getMessage());
  }

  /** A payload of bits per value Elasticsearch never writes fails, naming them. */
  @Test
  void aPayloadOfUnwrittenBitsPerValueIsCorrupt() throws IOException {
    Es95FieldDescriptor d = descriptor(7, 0, BIT_PACK);
    for (int bits : new int[] {33, 65, -1}) {
      CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> decode(d, out -> {
        out.writeByte((byte) 1);
        out.writeVInt(bits);
      }));
      assertTrue(e.getMessage().contains(bits + " bits per value"), e.getMessage());
    }
  }

  // ---- helpers

  private interface Writer {
    void write(ByteBuffersDataOutput out) throws IOException;
  }

  private static ByteBuffersDataOutput bytes(Writer w) throws IOException {
    ByteBuffersDataOutput out = new ByteBuffersDataOutput();
    w.write(out);
    return out;
  }

  private static ByteArrayDataInput input(Writer w) throws IOException {
    return new ByteArrayDataInput(bytes(w).toArrayCopy());
  }

  private static Es95FieldDescriptor descriptor(int shift, int type, int... ids) throws IOException {
    return Es95FieldDescriptor.read(input(out -> {
      out.writeVInt(1);
      out.writeVInt(ids.length);
      out.writeByte((byte) shift);
      out.writeByte((byte) type);
      for (int id : ids) {
        out.writeByte((byte) id);
      }
    }), FIELD);
  }

  /** Decodes one block, checking it was read to its last byte. */
  private static long[] decode(Es95FieldDescriptor d, Writer block) throws IOException {
    ByteBuffersDataOutput bytes = bytes(block);
    IndexInput in = new ByteBuffersIndexInput(bytes.toDataInput(), "values of " + FIELD);
    long[] out = new long[1 << d.blockShift()];
    d.decoder().decode(in, 0, out);
    assertEquals(bytes.size(), in.getFilePointer(), "the block read to its last byte");
    return out;
  }

  /** A payload of 4 bits a value: the VInt, then each run of 128 in Lucene 9.0's {@code ForUtil} layout. */
  private static void payload4(ByteBuffersDataOutput out, int count, java.util.function.IntToLongFunction value)
      throws IOException {
    out.writeVInt(4);
    for (int start = 0; start < count; start += 128) {
      long[] run = new long[128];
      for (int i = 0; i < 128; i++) {
        run[i] = value.applyAsLong(start + i);
      }
      TsdbTestSegment.writeForUtil4(out, run);
    }
  }

  private static <T> T assertDoesNotThrow(org.junit.jupiter.api.function.ThrowingSupplier<T> s) {
    return org.junit.jupiter.api.Assertions.assertDoesNotThrow(s);
  }
}
