/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.codecs.lucene90.IndexedDISI;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedSetSortField;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.BitSetIterator;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.GroupVIntUtil;
import org.apache.lucene.util.NumericUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each block kind and entry of the TSDB doc-values container over known bytes, written by {@link TsdbTestSegment} as
 * the format's description says, and read back through the producer: numeric blocks (packed with GCD, offset and
 * deltas; whole bytes), the four ordinal blocks, ordinal ranges, terms-first sorted entries with the primary sort
 * field's flag and partitions, skippers in {@code .dvs} with and without their largest value count and in
 * {@code .dvd} before version 5, binary fields uncompressed and in zstd blocks with both offset codecs, and the header
 * versions' checks.
 */
class TsdbDocValuesProducerTest {

  // ---- numeric blocks

  /**
   * A block of 128 values packed in 4 bits (Lucene 9.0's {@code ForUtil} layout: value {@code j + 16k} in byte lane
   * {@code k} from the top of long {@code j}; two such longs' nibbles in one packed long), with a GCD, an offset and
   * deltas: value = running sum of {@code packed * gcd + offset}, the first plus the first delta.
   */
  @Test
  void numericBlockPackedWithGcdOffsetAndDeltas() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES8193, TsdbFormat.VERSION_CURRENT, 128, 7);
    FieldInfo f = s.field("n", DocValuesType.NUMERIC, false);
    long[] packed = new long[128];
    for (int i = 0; i < 128; i++) {
      packed[i] = (i * 7 + 3) % 16;
    }
    long gcd = 3;
    long offset = -100;
    long firstDelta = 1_000_000;
    long valuesAt = s.data.getFilePointer();
    s.data.writeVInt((4 << 3) | 1 | 2 | 4);
    TsdbTestSegment.writeForUtil4(s.data, packed);
    s.data.writeVLong(gcd - 2);
    s.data.writeZLong(offset);
    s.data.writeZLong(firstDelta);
    long valuesLength = s.data.getFilePointer() - valuesAt;
    s.record(f, TsdbFormat.NUMERIC);
    blockEntry(s, 128, 128, valuesAt, valuesLength, new long[] {0});
    s.allDocs();
    try (DocValuesProducer p = s.open()) {
      NumericDocValues dv = p.getNumeric(f);
      long sum = firstDelta;
      for (int doc = 0; doc < 128; doc++) {
        sum += packed[doc] * gcd + offset;
        assertEquals(doc, dv.nextDoc());
        assertEquals(sum, dv.longValue(), "doc " + doc);
      }
      assertEquals(NumericDocValues.NO_MORE_DOCS, dv.nextDoc());
    }
  }

  /**
   * Blocks of 512 (header shift 9) in whole bytes: 40 bits, each value 5 bytes least significant first; the second
   * block, the field's last, padded to a whole block.
   */
  @Test
  void numericBlocksOfWholeBytesAndTheLargeBlockShift() throws IOException {
    int docs = 700;
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES819, TsdbFormat.VERSION_CURRENT, docs, 9);
    FieldInfo f = s.field("big", DocValuesType.SORTED_NUMERIC, false);
    long[] values = new long[1024];
    for (int i = 0; i < docs; i++) {
      values[i] = (1L << 39) + i * 1_234_567L;
    }
    long valuesAt = s.data.getFilePointer();
    long[] starts = new long[2];
    for (int b = 0; b < 2; b++) {
      starts[b] = s.data.getFilePointer() - valuesAt;
      s.data.writeVInt(40 << 3);
      for (int i = 0; i < 512; i++) {
        for (int byteAt = 0; byteAt < 5; byteAt++) {
          s.data.writeByte((byte) (values[b * 512 + i] >>> (8 * byteAt)));
        }
      }
    }
    long valuesLength = s.data.getFilePointer() - valuesAt;
    s.record(f, TsdbFormat.SORTED_NUMERIC);
    blockEntry(s, docs, docs, valuesAt, valuesLength, starts);
    s.allDocs();
    try (DocValuesProducer p = s.open()) {
      SortedNumericDocValues dv = p.getSortedNumeric(f);
      for (int doc = docs - 1; doc >= 0; doc -= 97) { // backwards across blocks: each block decoded again
        dv = p.getSortedNumeric(f);
        assertTrue(dv.advanceExact(doc));
        assertEquals(1, dv.docValueCount());
        assertEquals(values[doc], dv.nextValue(), "doc " + doc);
      }
    }
  }

  // ---- ordinal blocks, ordinal ranges, sorted entries

  /**
   * Four ordinal blocks of 128, one of each kind (one run; two runs; packed in {@code bitsRequired(4 - 1)} = 2 bits;
   * a cycle), in a sorted field of version 4 on: its terms dictionary before its ordinals.
   */
  @Test
  void ordinalBlocksOfEveryKindInATermsFirstSortedEntry() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES8193, TsdbFormat.VERSION_PREFIX_PARTITIONS, 512, 7);
    FieldInfo f = s.field("level", DocValuesType.SORTED, false);
    long[] ords = new long[512];
    long valuesAt = s.data.getFilePointer();
    long[] starts = new long[4];
    // one run of ordinal 2
    starts[0] = 0;
    s.data.writeVLong(2L << 1);
    for (int i = 0; i < 128; i++) {
      ords[i] = 2;
    }
    // two runs: 50 of ordinal 1, then 3
    starts[1] = s.data.getFilePointer() - valuesAt;
    s.data.writeVLong((1L << 2) | 0b01);
    s.data.writeVInt(50);
    s.data.writeZLong(2);
    for (int i = 0; i < 128; i++) {
      ords[128 + i] = i < 50 ? 1 : 3;
    }
    // packed in 2 bits (lane 8: four values a byte lane, whole)
    starts[2] = s.data.getFilePointer() - valuesAt;
    s.data.writeVLong(0b011);
    long[] packed = new long[128];
    for (int i = 0; i < 128; i++) {
      packed[i] = (i * 5 + i / 3) % 4;
      ords[256 + i] = packed[i];
    }
    writeForUtil2(s.data, packed);
    // a cycle of 3: 0, 3, 1
    starts[3] = s.data.getFilePointer() - valuesAt;
    s.data.writeVLong((3L << 4) | 0b0111);
    long[] cycle = {0, 3, 1};
    for (long c : cycle) {
      s.data.writeVLong(c);
    }
    for (int i = 0; i < 128; i++) {
      ords[384 + i] = cycle[i % 3];
    }
    long valuesLength = s.data.getFilePointer() - valuesAt;
    s.record(f, TsdbFormat.SORTED);
    String[] terms = {"debug", "error", "info", "warn"};
    s.termsDictionary(terms);
    blockEntry(s, 512, 512, valuesAt, valuesLength, starts);
    s.allDocs();
    try (DocValuesProducer p = s.open()) {
      SortedDocValues dv = p.getSorted(f);
      assertEquals(4, dv.getValueCount());
      for (int doc = 0; doc < 512; doc++) {
        assertTrue(dv.advanceExact(doc));
        assertEquals(ords[doc], dv.ordValue(), "doc " + doc);
        assertEquals(terms[(int) ords[doc]], dv.lookupOrd(dv.ordValue()).utf8ToString());
      }
    }
  }

  /**
   * The segment's primary sort field (sorted ascending on it) with ordinal ranges ({@link TsdbFormat#ORDINAL_RANGES}:
   * each ordinal's first document, and the end) and its flag byte: 1 and the partitions' bits, offset and length,
   * read past, so that the next field's record reads. Its single-ordinal neighbour has no values written at all.
   */
  @Test
  void ordinalRangesOfThePrimarySortFieldAndItsPartitionsFlag() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES8193, TsdbFormat.VERSION_CURRENT, 3000, 9);
    FieldInfo host = s.field("host.name", DocValuesType.SORTED_SET, false);
    FieldInfo service = s.field("service", DocValuesType.SORTED_SET, false);
    s.sort(new Sort(new SortedSetSortField("host.name", false), new SortField("@timestamp", SortField.Type.LONG,
        true)));
    long partitionsAt = s.data.getFilePointer();
    s.data.writeVInt(1); // one prefix, from 0; its first document 0: never read
    s.data.writeVInt(0x91ED);
    s.data.writeVInt(0);
    long partitionsLength = s.data.getFilePointer() - partitionsAt;
    s.record(host, TsdbFormat.SORTED_SET);
    s.meta.writeByte((byte) 0); // single-valued
    s.termsDictionary("web-01", "web-02", "web-03");
    s.meta.writeLong(3000);
    s.meta.writeInt(3000);
    s.meta.writeInt(TsdbFormat.ORDINAL_RANGES);
    s.meta.writeVInt(3);
    s.meta.writeByte((byte) 12);
    long[] ranges = s.monotonic(new long[] {0, 1750, 2000, 3000}, 12);
    s.meta.writeLong(ranges[0]); // the index: empty
    s.meta.writeLong(0);
    s.meta.writeLong(ranges[0]);
    s.meta.writeLong(ranges[1]);
    s.allDocs();
    s.meta.writeByte(TsdbFormat.PARTITIONED);
    s.meta.writeByte((byte) 18);
    s.meta.writeLong(partitionsAt);
    s.meta.writeVLong(partitionsLength);
    s.record(service, TsdbFormat.SORTED_SET); // not the primary sort field: no flag
    s.meta.writeByte((byte) 0);
    s.termsDictionary("checkout");
    s.meta.writeLong(3000);
    s.meta.writeInt(3000);
    s.meta.writeInt(TsdbFormat.SINGLE_ORDINAL);
    for (int i = 0; i < 4; i++) {
      s.meta.writeLong(0); // the index's and the values' offsets and lengths: nothing written
    }
    s.allDocs();
    try (DocValuesProducer p = s.open()) {
      var hosts = p.getSortedSet(host);
      var services = p.getSortedSet(service);
      for (int doc = 0; doc < 3000; doc += 7) {
        assertTrue(hosts.advanceExact(doc) && services.advanceExact(doc));
        assertEquals(doc < 1750 ? 0 : doc < 2000 ? 1 : 2, hosts.nextOrd(), "doc " + doc);
        assertEquals("checkout", services.lookupOrd(services.nextOrd()).utf8ToString());
      }
      assertTrue(hosts.advanceExact(1999));
      assertEquals("web-02", hosts.lookupOrd(hosts.nextOrd()).utf8ToString());
    }
  }

  /** A flag byte other than 0 or 1 is corrupt, naming the field. */
  @Test
  void aPartitionsFlagOtherThan0Or1IsCorrupt() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES8193, TsdbFormat.VERSION_CURRENT, 10, 7);
    FieldInfo host = s.field("host.name", DocValuesType.SORTED, false);
    s.sort(new Sort(new SortField("host.name", SortField.Type.STRING)));
    s.record(host, TsdbFormat.SORTED);
    s.termsDictionary("a");
    s.meta.writeLong(10);
    s.meta.writeInt(10);
    s.meta.writeInt(TsdbFormat.SINGLE_ORDINAL);
    for (int i = 0; i < 4; i++) {
      s.meta.writeLong(0);
    }
    s.allDocs();
    s.meta.writeByte((byte) 2);
    CorruptIndexException e = assertThrows(CorruptIndexException.class, s::open);
    assertTrue(e.getMessage().contains("partitioned flag 2") && e.getMessage().contains("host.name"), e.getMessage());
  }

  /**
   * Before version 4 a sorted entry is its ordinals, then its dictionary, and no flag even for the primary sort
   * field; the next record reads.
   */
  @Test
  void aSortedEntryOfVersion2HasItsOrdinalsFirstAndNoFlag() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES819, TsdbFormat.VERSION_NUMERIC_BLOCK_SHIFT, 5, 7);
    FieldInfo host = s.field("host.name", DocValuesType.SORTED, false);
    FieldInfo n = s.field("n", DocValuesType.NUMERIC, false);
    s.sort(new Sort(new SortField("host.name", SortField.Type.STRING)));
    s.record(host, TsdbFormat.SORTED);
    s.meta.writeLong(5);
    s.meta.writeInt(5);
    s.meta.writeInt(TsdbFormat.SINGLE_ORDINAL);
    for (int i = 0; i < 4; i++) {
      s.meta.writeLong(0);
    }
    s.allDocs();
    s.termsDictionary("only");
    s.record(n, TsdbFormat.NUMERIC);
    long at = s.data.getFilePointer();
    s.data.writeVInt(2); // bits 0, an offset
    s.data.writeZLong(42);
    blockEntry(s, 5, 5, at, s.data.getFilePointer() - at, new long[] {0});
    s.allDocs();
    try (DocValuesProducer p = s.open()) {
      SortedDocValues dv = p.getSorted(host);
      assertTrue(dv.advanceExact(4));
      assertEquals("only", dv.lookupOrd(dv.ordValue()).utf8ToString());
      NumericDocValues nv = p.getNumeric(n);
      assertTrue(nv.advanceExact(3));
      assertEquals(42, nv.longValue());
    }
  }

  // ---- skippers

  /** A skipper in {@code .dvs} (version 5 on) with its largest value count (version 7 on). */
  @Test
  void skipperInItsOwnFileWithItsMaxValueCount() throws IOException {
    checkSkipper(TsdbFormat.VERSION_CURRENT, 3, 3);
  }

  /**
   * A skipper in {@code .dvs} before version 7: no value count recorded, so 1 where each document has one value
   * and unknown (-1) where some have more, as Lucene infers it.
   */
  @Test
  void skipperInItsOwnFileWithoutMaxValueCount() throws IOException {
    checkSkipper(TsdbFormat.VERSION_SKIPPER_SEPARATE_FILE, 3, TsdbSkipper.UNKNOWN_VALUE_COUNT);
    checkSkipper(TsdbFormat.VERSION_SKIPPER_SEPARATE_FILE, 1, 1);
  }

  /** Before version 5 the skipper's intervals are in {@code .dvd}. */
  @Test
  void skipperInTheDataFileBeforeVersion5() throws IOException {
    checkSkipper(TsdbFormat.VERSION_PREFIX_PARTITIONS, 2, TsdbSkipper.UNKNOWN_VALUE_COUNT);
  }

  /**
   * A sorted-numeric field of 5000 documents with a skipper of two intervals, 4096 and 904 documents, at most
   * {@code valuesPerDoc} values each (the addresses written when more than 1); its value blocks are not read.
   */
  private static void checkSkipper(int version, int valuesPerDoc, int expectedMaxValueCount) throws IOException {
    int docs = 5000;
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES8193, version, docs, 7);
    FieldInfo f = s.field("@timestamp", DocValuesType.SORTED_NUMERIC, true);
    IndexOutput intervals = s.skip != null ? s.skip : s.data;
    long at = intervals.getFilePointer();
    int[][] bounds = {{0, 4095}, {4096, 4999}};
    for (int[] b : bounds) {
      intervals.writeByte((byte) 1);
      intervals.writeInt(b[1]);
      intervals.writeInt(b[0]);
      intervals.writeLong(b[1] * 10L);
      intervals.writeLong(b[0] * 10L);
      intervals.writeInt(b[1] - b[0] + 1);
    }
    long length = intervals.getFilePointer() - at;
    s.record(f, TsdbFormat.SORTED_NUMERIC);
    s.meta.writeLong(at);
    s.meta.writeLong(length);
    s.meta.writeLong(49_990);
    s.meta.writeLong(0);
    s.meta.writeInt(docs);
    s.meta.writeInt(docs - 1);
    if (version >= TsdbFormat.VERSION_SKIPPER_MAX_VALUE_COUNT) {
      s.meta.writeInt(valuesPerDoc);
    }
    long values = (long) docs * valuesPerDoc;
    long valuesAt = s.data.getFilePointer();
    s.data.writeVInt(0); // every block: 0 bits, nothing else (never read here)
    long[] starts = new long[(int) ((values + 127) / 128)];
    blockEntry(s, values, docs, valuesAt, s.data.getFilePointer() - valuesAt, starts);
    s.allDocs();
    if (valuesPerDoc > 1) {
      s.meta.writeLong(s.data.getFilePointer());
      s.meta.writeVInt(16);
      long[] addresses = new long[docs + 1];
      for (int i = 0; i <= docs; i++) {
        addresses[i] = (long) i * valuesPerDoc;
      }
      long[] written = s.monotonic(addresses, 16);
      s.meta.writeLong(written[1]);
    }
    try (DocValuesProducer p = s.open()) {
      DocValuesSkipper skipper = p.getSkipper(f);
      // as TsdbSkipper: DocValuesSkipper has the method from Lucene 10.6 only
      assertEquals(expectedMaxValueCount, ((TsdbSkipper) skipper).maxValueCount(), "version " + version);
      assertEquals(0, skipper.minValue());
      assertEquals(49_990, skipper.maxValue());
      assertEquals(docs, skipper.docCount());
      skipper.advance(100);
      assertEquals(0, skipper.minDocID(0));
      assertEquals(4095, skipper.maxDocID(0));
      assertEquals(40_950, skipper.maxValue(0));
      skipper.advance(4500);
      assertEquals(4096, skipper.minDocID(0));
      assertEquals(4999, skipper.maxDocID(0));
      assertEquals(40_960, skipper.minValue(0));
      assertEquals(904, skipper.docCount(0));
      skipper.advance(5000);
      assertEquals(NumericDocValues.NO_MORE_DOCS, skipper.maxDocID(0));
      p.checkIntegrity();
    }
  }

  // ---- binary

  /** Version 0's binary entry, Lucene 9.0's layout with no compression byte: values of differing lengths. */
  @Test
  void binaryOfVersion0() throws IOException {
    checkUncompressedBinary(TsdbFormat.VERSION_START, new String[] {"a", "", "three", "zwölf bytes!"});
  }

  /** A binary entry of compression 0 (version 1 on): Lucene 9.0's layout, values of one length and of several. */
  @Test
  void binaryUncompressed() throws IOException {
    checkUncompressedBinary(TsdbFormat.VERSION_CURRENT, new String[] {"abc", "def", "ghi"});
    checkUncompressedBinary(TsdbFormat.VERSION_CURRENT, new String[] {"abc", "de", "", "fghij"});
  }

  private static void checkUncompressedBinary(int version, String[] values) throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES819, version, values.length, 7);
    FieldInfo f = s.field("b", DocValuesType.BINARY, false);
    long at = s.data.getFilePointer();
    int min = Integer.MAX_VALUE;
    int max = 0;
    long[] addresses = new long[values.length + 1];
    for (int i = 0; i < values.length; i++) {
      byte[] b = values[i].getBytes(StandardCharsets.UTF_8);
      s.data.writeBytes(b, b.length);
      min = Math.min(min, b.length);
      max = Math.max(max, b.length);
      addresses[i + 1] = addresses[i] + b.length;
    }
    long length = s.data.getFilePointer() - at;
    s.record(f, TsdbFormat.BINARY);
    if (version >= TsdbFormat.VERSION_BINARY_BLOCKS) {
      s.meta.writeByte(TsdbFormat.BINARY_UNCOMPRESSED);
    }
    s.meta.writeLong(at);
    s.meta.writeLong(length);
    s.allDocs();
    s.meta.writeInt(values.length);
    s.meta.writeInt(min);
    s.meta.writeInt(max);
    if (min < max) {
      s.meta.writeLong(s.data.getFilePointer());
      s.meta.writeVInt(16);
      long[] written = s.monotonic(addresses, 16);
      s.meta.writeLong(written[1]);
    }
    try (DocValuesProducer p = s.open()) {
      BinaryDocValues dv = p.getBinary(f);
      for (int doc = 0; doc < values.length; doc++) {
        assertEquals(doc, dv.nextDoc());
        assertEquals(values[doc], dv.binaryValue().utf8ToString(), "version " + version + " doc " + doc);
      }
    }
  }

  /** zstd blocks with {@code ES819TSDB}'s grouped-VInt offsets. */
  @Test
  void binaryBlocksWithGroupedVIntOffsets() throws IOException {
    checkBinaryBlocks(TsdbFormat.ES819);
  }

  /** zstd blocks with {@code ES8193TSDB}'s bit-packed offsets. */
  @Test
  void binaryBlocksWithBitPackedOffsets() throws IOException {
    checkBinaryBlocks(TsdbFormat.ES8193);
  }

  /**
   * A sparse binary field (every third of 60 documents) in four blocks: zstd-compressed; all empty values (length 0:
   * offsets written and not read, no bytes); uncompressed (header bit 0 clear); compressed again with a value larger
   * than the rest together.
   */
  private static void checkBinaryBlocks(TsdbFormat format) throws IOException {
    int maxDoc = 60;
    TsdbTestSegment s = new TsdbTestSegment(format, TsdbFormat.VERSION_CURRENT, maxDoc, 7);
    FieldInfo f = s.field("message._original", DocValuesType.BINARY, false);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      values.add(i >= 5 && i < 8 ? "" : i == 17 ? "x".repeat(3000) : "value " + i + " of twenty");
    }
    int[][] blocks = {{0, 5}, {5, 8}, {8, 15}, {15, 20}};
    boolean[] compressed = {true, true, false, true};
    FixedBitSet docs = new FixedBitSet(maxDoc);
    for (int doc = 0; doc < maxDoc; doc += 3) {
      docs.set(doc);
    }
    long disiAt = s.data.getFilePointer();
    short jumps = IndexedDISI.writeBitSet(new BitSetIterator(docs, 20), s.data, IndexedDISI.DEFAULT_DENSE_RANK_POWER);
    long disiLength = s.data.getFilePointer() - disiAt;
    long dataAt = s.data.getFilePointer();
    long[] addresses = new long[blocks.length + 1];
    long[] firsts = new long[blocks.length + 1];
    int maxBlockBytes = 0;
    for (int b = 0; b < blocks.length; b++) {
      addresses[b] = s.data.getFilePointer();
      firsts[b] = blocks[b][0];
      ByteBuffersDataOutput bytes = new ByteBuffersDataOutput();
      int count = blocks[b][1] - blocks[b][0];
      int[] lengths = new int[count + 1];
      for (int i = 0; i < count; i++) {
        byte[] v = values.get(blocks[b][0] + i).getBytes(StandardCharsets.UTF_8);
        bytes.writeBytes(v, v.length);
        lengths[i + 1] = v.length;
      }
      int total = (int) bytes.size();
      maxBlockBytes = Math.max(maxBlockBytes, total);
      s.data.writeByte((byte) (compressed[b] ? TsdbBinary.BLOCK_COMPRESSED : 0));
      s.data.writeVInt(total);
      writeOffsets(format.docOffsets(), s.data, lengths);
      if (total > 0) {
        if (compressed[b]) {
          byte[] frame = Zstd.compress(bytes.toArrayCopy(), 1);
          s.data.writeVInt(frame.length);
          s.data.writeBytes(frame, frame.length);
        } else {
          s.data.writeBytes(bytes.toArrayCopy(), total);
        }
      }
    }
    addresses[blocks.length] = s.data.getFilePointer();
    firsts[blocks.length] = values.size();
    long dataLength = s.data.getFilePointer() - dataAt;
    s.record(f, TsdbFormat.BINARY);
    s.meta.writeByte(TsdbFormat.BINARY_ZSTD_BLOCKS);
    s.meta.writeLong(dataAt);
    s.meta.writeLong(dataLength);
    s.meta.writeLong(disiAt);
    s.meta.writeLong(disiLength);
    s.meta.writeShort(jumps);
    s.meta.writeByte(IndexedDISI.DEFAULT_DENSE_RANK_POWER);
    s.meta.writeInt(values.size());
    s.meta.writeInt(0);
    s.meta.writeInt(3000);
    s.meta.writeLong(s.data.getFilePointer());
    s.meta.writeVInt(blocks.length);
    s.meta.writeVInt(maxBlockBytes);
    s.meta.writeVInt(7);
    s.meta.writeVInt(16);
    long[] written = s.monotonic(addresses, 16);
    s.meta.writeLong(written[1]);
    s.meta.writeLong(s.data.getFilePointer());
    written = s.monotonic(firsts, 16);
    s.meta.writeLong(written[1]);
    try (DocValuesProducer p = s.open()) {
      BinaryDocValues dv = p.getBinary(f);
      for (int i = 0; i < values.size(); i++) {
        assertEquals(i * 3, dv.nextDoc());
        assertEquals(values.get(i), dv.binaryValue().utf8ToString(), format.name() + " value " + i);
      }
      assertEquals(BinaryDocValues.NO_MORE_DOCS, dv.nextDoc());
      dv = p.getBinary(f);
      assertTrue(dv.advanceExact(51)); // value 17, block 3, then back to block 0
      assertEquals(3000, dv.binaryValue().length);
      dv = p.getBinary(f);
      assertFalse(dv.advanceExact(1));
      assertTrue(dv.advanceExact(3));
      assertEquals("value 1 of twenty", dv.binaryValue().utf8ToString());
    }
  }

  /** A block's {@code n + 1} lengths (the first 0) in the codec's layout. */
  private static void writeOffsets(TsdbDocOffsets codec, IndexOutput out, int[] lengths) throws IOException {
    if (codec == TsdbDocOffsets.GROUPED_VINT) {
      ByteBuffersDataOutput scratch = new ByteBuffersDataOutput();
      GroupVIntUtil.writeGroupVInts(scratch, new byte[GroupVIntUtil.MAX_LENGTH_PER_GROUP], lengths, lengths.length);
      out.writeBytes(scratch.toArrayCopy(), (int) scratch.size());
      return;
    }
    int max = 0;
    for (int l : lengths) {
      max = Math.max(max, l);
    }
    int bits = 32 - Integer.numberOfLeadingZeros(max);
    out.writeByte((byte) bits);
    long buffer = 0;
    int used = 0;
    for (int l : lengths) { // most significant bit first
      for (int bit = bits - 1; bit >= 0; bit--) {
        buffer = (buffer << 1) | ((l >>> bit) & 1);
        if (++used == 8) {
          out.writeByte((byte) buffer);
          buffer = 0;
          used = 0;
        }
      }
    }
    if (used > 0) {
      out.writeByte((byte) (buffer << (8 - used)));
    }
  }

  /** The bit-packed lengths of one block, known bytes: 3 bits each, most significant first, zero-padded. */
  @Test
  void bitPackedOffsetsAreMostSignificantBitFirst() throws IOException {
    // 0, 5, 7, 1 in 3 bits: 000 101 111 001 -> 0001 0111 1001 (0000 padding) = 0x17 0x90
    var in = new org.apache.lucene.store.ByteArrayDataInput(new byte[] {3, 0x17, (byte) 0x90});
    int[] out = new int[4];
    TsdbDocOffsets.BITPACKING.read(in, 4, out);
    assertEquals(List.of(0, 5, 7, 1), List.of(out[0], out[1], out[2], out[3]));
    assertTrue(in.eof());
    in = new org.apache.lucene.store.ByteArrayDataInput(new byte[] {0});
    out = new int[] {9, 9};
    TsdbDocOffsets.BITPACKING.read(in, 2, out);
    assertEquals(List.of(0, 0), List.of(out[0], out[1]));
  }

  // ---- headers

  /** A version past 8 is too new, naming the file (Lucene's exception), not corrupt. */
  @Test
  void aVersionPast8IsTooNewNamingTheFile() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES8193, TsdbFormat.VERSION_CURRENT + 1, 1, 7);
    IndexFormatTooNewException e = assertThrows(IndexFormatTooNewException.class, s::open);
    assertTrue(e.getMessage().contains("_0_T_0.dvm") && e.getMessage().contains(String.valueOf(
        TsdbFormat.VERSION_CURRENT + 1)), e.getMessage());
  }

  /** The three files' versions must agree. */
  @Test
  void filesOfDifferentVersionsAreCorrupt() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES8193, 8, 7, 8, 1, 7);
    CorruptIndexException data = assertThrows(CorruptIndexException.class, s::open);
    assertTrue(data.getMessage().contains("_0_T_0.dvd"), data.getMessage());
    s = new TsdbTestSegment(TsdbFormat.ES8193, 8, 8, 6, 1, 7);
    CorruptIndexException skip = assertThrows(CorruptIndexException.class, s::open);
    assertTrue(skip.getMessage().contains("_0_T_0.dvs"), skip.getMessage());
  }

  // ---- ES95TSDB

  /**
   * A whole {@code ES95TSDB} segment (version 8, header block shift 9): a dense numeric gauge in blocks of 512 (one
   * block offset and gcd, the other delta), a sparse sorted-numeric counter of two values a document in blocks of 128
   * beside it (its descriptor's shift 7 sizes its block index: 6 blocks for 700 values; split delta in each), and a
   * dense double field in ALP with an exception; read back through the producer, forwards and backwards.
   */
  @Test
  void es95NumericFieldsOfTwoBlockSizesDenseAndSparse() throws IOException {
    int maxDoc = 700;
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES95, TsdbFormat.VERSION_CURRENT, maxDoc, 9);
    FieldInfo gauge = s.field("gauge", DocValuesType.NUMERIC, false);
    FieldInfo requests = s.field("requests", DocValuesType.SORTED_NUMERIC, false);
    FieldInfo cpu = s.field("cpu", DocValuesType.SORTED_NUMERIC, false);
    // gauge: block 0 packed * 10 + 1000 (offset, gcd, payload), block 1 a running sum of 1s from 5000 (delta, payload)
    long valuesAt = s.data.getFilePointer();
    s.data.writeByte((byte) 0b1110);
    writePayload4(s.data, 512, i -> i % 16);
    s.data.writeVLong(10 - 2);
    s.data.writeZLong(1000);
    long second = s.data.getFilePointer() - valuesAt;
    s.data.writeByte((byte) 0b1001);
    writePayload4(s.data, 512, i -> 1);
    s.data.writeZLong(5000);
    s.record(gauge, TsdbFormat.NUMERIC);
    es95Entry(s, maxDoc, maxDoc, valuesAt, s.data.getFilePointer() - valuesAt, new long[] {0, second}, 9, 0, 0x01,
        0x02, 0x03, 0xA1);
    s.allDocs();
    // requests: every other document, two values each; 700 values in 6 blocks of 128, each two runs cut at 64
    FixedBitSet even = new FixedBitSet(maxDoc);
    for (int doc = 0; doc < maxDoc; doc += 2) {
      even.set(doc);
    }
    long disiAt = s.data.getFilePointer();
    short jumps = IndexedDISI.writeBitSet(new BitSetIterator(even, maxDoc / 2), s.data,
        IndexedDISI.DEFAULT_DENSE_RANK_POWER);
    long disiLength = s.data.getFilePointer() - disiAt;
    valuesAt = s.data.getFilePointer();
    long[] starts = new long[6];
    for (int b = 0; b < 6; b++) {
      starts[b] = s.data.getFilePointer() - valuesAt;
      s.data.writeByte((byte) 0b10001);
      writePayload4(s.data, 128, i -> 1);
      s.data.writeVInt(1);
      s.data.writeVInt(64);
      s.data.writeZLong(b * 1000L);
      s.data.writeZLong(b * 1000L + 500);
    }
    s.record(requests, TsdbFormat.SORTED_NUMERIC);
    es95Entry(s, maxDoc, maxDoc / 2, valuesAt, s.data.getFilePointer() - valuesAt, starts, 7, 0, 0x04, 0x01, 0x02,
        0x03, 0xA1);
    s.meta.writeLong(disiAt);
    s.meta.writeLong(disiLength);
    s.meta.writeShort(jumps);
    s.meta.writeByte(IndexedDISI.DEFAULT_DENSE_RANK_POWER);
    s.meta.writeLong(s.data.getFilePointer());
    s.meta.writeVInt(16);
    long[] addresses = new long[maxDoc / 2 + 1];
    for (int i = 0; i < addresses.length; i++) {
      addresses[i] = 2L * i;
    }
    s.meta.writeLong(s.monotonic(addresses, 16)[1]);
    // cpu: n * 10^-1 (ALP e 1, f 0) over 64-bit payloads n = value index, -0.0 an exception at index 3
    valuesAt = s.data.getFilePointer();
    starts = new long[2];
    for (int b = 0; b < 2; b++) {
      starts[b] = s.data.getFilePointer() - valuesAt;
      s.data.writeByte((byte) 0b10001);
      s.data.writeVInt(64);
      for (int i = 0; i < 512; i++) {
        s.data.writeLong(b * 512L + i);
      }
      s.data.writeByte((byte) 1);
      s.data.writeByte((byte) 0);
      s.data.writeVInt(b == 0 ? 1 : 0);
      if (b == 0) {
        s.data.writeVInt(3);
        s.data.writeLong(NumericUtils.doubleToSortableLong(-0.0));
      }
    }
    s.record(cpu, TsdbFormat.SORTED_NUMERIC);
    es95Entry(s, maxDoc, maxDoc, valuesAt, s.data.getFilePointer() - valuesAt, starts, 9, 1, 0x05, 0x01, 0x02, 0x03,
        0xA1);
    s.allDocs();
    try (DocValuesProducer p = s.open()) {
      NumericDocValues g = p.getNumeric(gauge);
      for (int doc = 0; doc < maxDoc; doc++) {
        assertEquals(doc, g.nextDoc());
        assertEquals(doc < 512 ? doc % 16 * 10 + 1000 : 5000 + doc - 511, g.longValue(), "gauge doc " + doc);
      }
      SortedNumericDocValues r = p.getSortedNumeric(requests);
      for (int doc = 0; doc < maxDoc; doc++) {
        assertEquals(doc % 2 == 0, r.advanceExact(doc), "doc " + doc);
        if (doc % 2 == 0) {
          assertEquals(2, r.docValueCount());
          for (int k = 0; k < 2; k++) {
            int index = doc + k; // document 2i's values are 2i and 2i + 1
            int b = index / 128;
            int i = index % 128;
            long expected = i < 64 ? b * 1000L + i + 1 : b * 1000L + 500 + i - 63;
            assertEquals(expected, r.nextValue(), "requests doc " + doc + " value " + k);
          }
        }
      }
      for (int doc = maxDoc - 2; doc >= 0; doc -= 130) { // backwards: each block decoded again
        r = p.getSortedNumeric(requests);
        assertTrue(r.advanceExact(doc));
        assertEquals(doc / 128 * 1000L + (doc % 128 < 64 ? doc % 128 + 1 : 500 + doc % 128 - 63), r.nextValue());
      }
      SortedNumericDocValues c = p.getSortedNumeric(cpu);
      for (int doc = 0; doc < maxDoc; doc++) {
        assertTrue(c.advanceExact(doc));
        double expected = doc == 3 ? -0.0 : doc * (1e0 * 1e-1);
        assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(
            NumericUtils.sortableLongToDouble(c.nextValue())), "cpu doc " + doc);
      }
      assertTrue(c.advanceExact(5));
      assertEquals(0.5, NumericUtils.sortableLongToDouble(c.nextValue()));
    }
  }

  /**
   * Versions 6 and 7 of {@code ES95TSDB} give an ordinal stream in blocks a byte of its own block shift (10: blocks
   * of 1,024 ordinals, 2 blocks for 1,500 documents); version 8 has none (the header's 512: 3 blocks). A numeric
   * field's record follows, to show the reader kept its place.
   */
  @ParameterizedTest
  @ValueSource(ints = {6, 7, 8})
  void es95OrdinalStreamsOfVersions6And7HaveTheirOwnBlockShift(int version) throws IOException {
    int maxDoc = 1500;
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES95, version, maxDoc, 9);
    FieldInfo host = s.field("host", DocValuesType.SORTED, false);
    FieldInfo n = s.field("n", DocValuesType.NUMERIC, false);
    boolean ownShift = version < Es95NumericCodec.VERSION_ORDINAL_BLOCK_SHIFT_GONE;
    int ordinalBlock = ownShift ? 1024 : 512;
    int blocks = (maxDoc + ordinalBlock - 1) / ordinalBlock;
    long valuesAt = s.data.getFilePointer();
    long[] starts = new long[blocks];
    for (int b = 0; b < blocks; b++) {
      starts[b] = s.data.getFilePointer() - valuesAt;
      s.data.writeVLong((long) b << 1); // one run of ordinal b
    }
    long valuesLength = s.data.getFilePointer() - valuesAt;
    s.record(host, TsdbFormat.SORTED);
    s.termsDictionary("a", "b", "c");
    s.meta.writeLong(maxDoc);
    s.meta.writeInt(maxDoc);
    s.meta.writeInt(16);
    if (ownShift) {
      s.meta.writeByte((byte) 10);
    }
    long[] index = s.monotonic(starts, 16);
    s.meta.writeLong(index[0]);
    s.meta.writeLong(index[1]);
    s.meta.writeLong(valuesAt);
    s.meta.writeLong(valuesLength);
    s.allDocs();
    long at = s.data.getFilePointer();
    s.data.writeByte((byte) 0b11); // offset 7, 0 bits: every block the same bytes
    s.data.writeVInt(0);
    s.data.writeZLong(7);
    s.record(n, TsdbFormat.NUMERIC);
    es95Entry(s, maxDoc, maxDoc, at, s.data.getFilePointer() - at, new long[3], 9, 0, 0x02, 0xA1);
    s.allDocs();
    try (DocValuesProducer p = s.open()) {
      SortedDocValues dv = p.getSorted(host);
      NumericDocValues nv = p.getNumeric(n);
      for (int doc = 0; doc < maxDoc; doc++) {
        assertTrue(dv.advanceExact(doc) && nv.advanceExact(doc));
        assertEquals(doc / ordinalBlock, dv.ordValue(), "version " + version + " doc " + doc);
        assertEquals(7, nv.longValue());
      }
      assertEquals("b", dv.lookupOrd(1).utf8ToString());
    }
  }

  /** An unknown stage id fails the segment's open, naming the field, both files and the id. */
  @Test
  void es95UnknownStageIdIsRefusedAtOpen() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES95, TsdbFormat.VERSION_CURRENT, 700, 9);
    es95Gauge(s, 1, 0x06);
    CorruptIndexException e = assertThrows(CorruptIndexException.class, s::open);
    assertTrue(e.getMessage().contains("stage id 0x06") && e.getMessage().contains("field 'gauge' of _0_T_0.dvd")
        && e.getMessage().contains("_0_T_0.dvm"), e.getMessage());
  }

  @Test
  void es95DescriptorVersion2IsRefusedAtOpen() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES95, TsdbFormat.VERSION_CURRENT, 700, 9);
    es95Gauge(s, 2, 0xA1);
    CorruptIndexException e = assertThrows(CorruptIndexException.class, s::open);
    assertTrue(e.getMessage().contains("descriptor version 2") && e.getMessage().contains("field 'gauge' of"
        + " _0_T_0.dvd") && e.getMessage().contains("_0_T_0.dvm"), e.getMessage());
  }

  /** Version 9 (a newer Elasticsearch's) is too new, naming the file and the version. */
  @Test
  void es95Version9IsTooNew() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES95, 9, 1, 9);
    IndexFormatTooNewException e = assertThrows(IndexFormatTooNewException.class, s::open);
    assertTrue(e.getMessage().contains("_0_T_0.dvm") && e.getMessage().contains("9 (needs to be between 0 and 8)"),
        e.getMessage());
  }

  /** A block whose payload bit is clear fails when read, naming the field, the file and the block. */
  @Test
  void es95ClearPayloadBitIsCorruptNamingTheBlock() throws IOException {
    TsdbTestSegment s = new TsdbTestSegment(TsdbFormat.ES95, TsdbFormat.VERSION_CURRENT, 700, 9);
    FieldInfo gauge = es95Gauge(s, 1, 0xA1);
    try (DocValuesProducer p = s.open()) {
      NumericDocValues dv = p.getNumeric(gauge);
      assertTrue(dv.advanceExact(0));
      assertEquals(3, dv.longValue());
      assertTrue(dv.advanceExact(600));
      CorruptIndexException e = assertThrows(CorruptIndexException.class, dv::longValue);
      assertTrue(e.getMessage().contains("block 1 of field 'gauge' of _0_T_0.dvd") && e.getMessage().contains(
          "payload's bit"), e.getMessage());
    }
  }

  /**
   * A numeric field {@code gauge} of 700 documents in {@code s} whose descriptor has the version given and the
   * pipeline offset, {@code stage}: block 0 offset 3 over a payload of 0 bits (every value 3), block 1 the same with
   * its payload's bit clear.
   */
  private static FieldInfo es95Gauge(TsdbTestSegment s, int descriptorVersion, int stage) throws IOException {
    FieldInfo gauge = s.field("gauge", DocValuesType.NUMERIC, false);
    long at = s.data.getFilePointer();
    s.data.writeByte((byte) 0b11); // offset 3, 0 bits
    s.data.writeVInt(0);
    s.data.writeZLong(3);
    long second = s.data.getFilePointer() - at;
    s.data.writeByte((byte) 0b01); // the payload's bit clear
    s.data.writeVInt(0);
    s.data.writeZLong(3);
    s.record(gauge, TsdbFormat.NUMERIC);
    s.meta.writeLong(700);
    s.meta.writeInt(700);
    s.meta.writeInt(16);
    s.meta.writeVInt(descriptorVersion);
    s.meta.writeVInt(2);
    s.meta.writeByte((byte) 9);
    s.meta.writeByte((byte) 0);
    s.meta.writeByte((byte) 0x02);
    s.meta.writeByte((byte) stage);
    long[] index = s.monotonic(new long[] {0, second}, 16);
    s.meta.writeLong(index[0]);
    s.meta.writeLong(index[1]);
    s.meta.writeLong(at);
    s.meta.writeLong(s.data.getFilePointer() - at);
    s.allDocs();
    return gauge;
  }

  /**
   * An {@code ES95TSDB} numeric entry in block layout: counts, block index shift 16, the descriptor (block shift,
   * data type, stages), the block index's metadata ({@code starts}), where the index and the values lie.
   */
  private static void es95Entry(TsdbTestSegment s, long numValues, int numDocs, long valuesAt, long valuesLength,
      long[] starts, int blockShift, int dataType, int... stages) throws IOException {
    s.meta.writeLong(numValues);
    s.meta.writeInt(numDocs);
    s.meta.writeInt(16);
    s.es95Descriptor(blockShift, dataType, stages);
    long[] index = s.monotonic(starts, 16);
    s.meta.writeLong(index[0]);
    s.meta.writeLong(index[1]);
    s.meta.writeLong(valuesAt);
    s.meta.writeLong(valuesLength);
  }

  /** An ES95 payload of 4 bits a value: the VInt, then each run of 128 in Lucene 9.0's {@code ForUtil} layout. */
  private static void writePayload4(IndexOutput out, int count, java.util.function.IntToLongFunction value)
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

  // ---- the entry writers and packers the tests share

  /**
   * A numeric entry in block layout (block index shift 16): its counts, the block index's metadata ({@code starts},
   * relative to the values), then where the index and the values lie. The document set follows.
   */
  private static void blockEntry(TsdbTestSegment s, long numValues, int numDocs, long valuesAt, long valuesLength,
      long[] starts) throws IOException {
    s.meta.writeLong(numValues);
    s.meta.writeInt(numDocs);
    s.meta.writeInt(16);
    long[] index = s.monotonic(starts, 16);
    s.meta.writeLong(index[0]);
    s.meta.writeLong(index[1]);
    s.meta.writeLong(valuesAt);
    s.meta.writeLong(valuesLength);
  }

  /** 128 values of 2 bits: four gathered longs' lanes per packed long, from the top two bits of each byte lane down. */
  private static void writeForUtil2(IndexOutput out, long[] values) throws IOException {
    long[] gathered = TsdbTestSegment.gather8(values);
    for (int i = 0; i < 4; i++) {
      out.writeLong((gathered[i] << 6) | (gathered[i + 4] << 4) | (gathered[i + 8] << 2) | gathered[i + 12]);
    }
  }

}
