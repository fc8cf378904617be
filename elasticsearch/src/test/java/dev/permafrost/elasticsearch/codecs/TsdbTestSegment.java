/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.index.DocValuesSkipIndexType;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.VectorEncoding;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.Sort;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.DataOutput;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.StringHelper;
import org.apache.lucene.util.Version;
import org.apache.lucene.util.compress.LZ4;
import org.apache.lucene.util.packed.DirectMonotonicWriter;

/**
 * A test-only writer of a segment's TSDB doc-values files, byte by byte as the format's description says (the tests
 * write each entry and block themselves; this holds the files, the headers and footers, and the parts Lucene's own
 * format shares: monotonic lists, the terms dictionary). Opened as {@code _0} with suffix {@code T_0}.
 */
final class TsdbTestSegment {
  static final String SUFFIX = "T_0";
  final ByteBuffersDirectory dir = new ByteBuffersDirectory();
  final byte[] id = StringHelper.randomId();
  final TsdbFormat format;
  final int version;
  final int maxDoc;
  final IndexOutput meta;
  final IndexOutput data;
  final IndexOutput skip;
  private final List<FieldInfo> fields = new ArrayList<>();
  private Sort sort;

  TsdbTestSegment(TsdbFormat format, int version, int maxDoc, int blockShift) throws IOException {
    this(format, version, version, version, maxDoc, blockShift);
  }

  /** Files whose headers carry the versions given (a test of mismatches writes them apart). */
  TsdbTestSegment(TsdbFormat format, int version, int dataVersion, int skipVersion, int maxDoc, int blockShift)
      throws IOException {
    this.format = format;
    this.version = version;
    this.maxDoc = maxDoc;
    meta = dir.createOutput("_0_" + SUFFIX + ".dvm", IOContext.DEFAULT);
    data = dir.createOutput("_0_" + SUFFIX + ".dvd", IOContext.DEFAULT);
    CodecUtil.writeIndexHeader(meta, format.metaCodec(), version, id, SUFFIX);
    CodecUtil.writeIndexHeader(data, format.dataCodec(), dataVersion, id, SUFFIX);
    if (version >= TsdbFormat.VERSION_SKIPPER_SEPARATE_FILE) {
      skip = dir.createOutput("_0_" + SUFFIX + ".dvs", IOContext.DEFAULT);
      CodecUtil.writeIndexHeader(skip, format.skipCodec(), skipVersion, id, SUFFIX);
    } else {
      skip = null;
    }
    if (version >= TsdbFormat.VERSION_NUMERIC_BLOCK_SHIFT) {
      meta.writeByte((byte) blockShift);
    }
  }

  /** The segment's index sort. */
  TsdbTestSegment sort(Sort sort) {
    this.sort = sort;
    return this;
  }

  /** A field of the segment, numbered in order. */
  FieldInfo field(String name, DocValuesType type, boolean skipper) {
    FieldInfo info = new FieldInfo(name, fields.size(), false, true, false, IndexOptions.NONE, type,
        skipper ? DocValuesSkipIndexType.RANGE : DocValuesSkipIndexType.NONE, -1, new HashMap<>(), 0, 0, 0, 0,
        VectorEncoding.FLOAT32, VectorSimilarityFunction.EUCLIDEAN, false, false);
    fields.add(info);
    return info;
  }

  /** A field's record: its number and type. */
  void record(FieldInfo field, byte type) throws IOException {
    meta.writeInt(field.number);
    meta.writeByte(type);
  }

  /** Every document has a value: the document set's marker. */
  void allDocs() throws IOException {
    meta.writeLong(TsdbFormat.ALL_DOCS);
    meta.writeLong(0);
    meta.writeShort((short) -1);
    meta.writeByte((byte) -1);
  }

  /** A monotonic list: its metadata in {@code .dvm}, its data in {@code .dvd}; returns the data's offset and length. */
  long[] monotonic(long[] values, int shift) throws IOException {
    long start = data.getFilePointer();
    DirectMonotonicWriter w = DirectMonotonicWriter.getInstance(meta, data, values.length, shift);
    for (long v : values) {
      w.add(v);
    }
    w.finish();
    return new long[] {start, data.getFilePointer() - start};
  }

  /**
   * Lucene 9.0's terms dictionary of sorted {@code terms}: blocks of 64, the first term whole, the rest (a token
   * byte of shared and new lengths, the new bytes) LZ4-compressed with the first as dictionary; its metadata.
   */
  void termsDictionary(String... terms) throws IOException {
    long dataStart = data.getFilePointer();
    long[] blockAddresses = new long[(terms.length + 63) / 64];
    ByteBuffersDataOutput rest = new ByteBuffersDataOutput();
    byte[] dictionary = new byte[0];
    int maxTermLength = 0;
    int maxBlockLength = 0;
    BytesRef previous = new BytesRef();
    for (int ord = 0; ord < terms.length; ord++) {
      BytesRef term = new BytesRef(terms[ord]);
      maxTermLength = Math.max(maxTermLength, term.length);
      if (ord % 64 == 0) {
        maxBlockLength = Math.max(maxBlockLength, flush(rest, dictionary));
        blockAddresses[ord / 64] = data.getFilePointer() - dataStart;
        data.writeVInt(term.length);
        data.writeBytes(term.bytes, term.offset, term.length);
        dictionary = BytesRef.deepCopyOf(term).bytes;
      } else {
        int shared = 0;
        while (shared < previous.length && shared < term.length
            && previous.bytes[previous.offset + shared] == term.bytes[term.offset + shared]) {
          shared++;
        }
        int added = term.length - shared;
        rest.writeByte((byte) (Math.min(shared, 15) | (Math.min(added - 1, 15) << 4)));
        if (shared >= 15) {
          rest.writeVInt(shared - 15);
        }
        if (added - 1 >= 15) {
          rest.writeVInt(added - 1 - 15);
        }
        rest.writeBytes(term.bytes, term.offset + shared, added);
      }
      previous = BytesRef.deepCopyOf(term);
    }
    maxBlockLength = Math.max(maxBlockLength, flush(rest, dictionary));
    long dataLength = data.getFilePointer() - dataStart;
    meta.writeVLong(terms.length);
    meta.writeInt(16);
    long[] addresses = monotonic(blockAddresses, 16);
    meta.writeInt(maxTermLength);
    meta.writeInt(maxBlockLength);
    meta.writeLong(dataStart);
    meta.writeLong(dataLength);
    meta.writeLong(addresses[0]);
    meta.writeLong(addresses[1]);
    meta.writeInt(10); // the reverse index, every 1024 terms: not read, so its bytes here are any
    long[] reverse = monotonic(new long[1 + (terms.length + 1023) / 1024], 16);
    meta.writeLong(reverse[0]);
    meta.writeLong(0);
    meta.writeLong(reverse[0]);
    meta.writeLong(reverse[1]);
  }

  /** Writes a block's rest, if any: its length and LZ4 with the first term as dictionary. */
  private int flush(ByteBuffersDataOutput rest, byte[] dictionary) throws IOException {
    int length = (int) rest.size();
    if (length == 0) {
      return 0;
    }
    byte[] buffer = new byte[dictionary.length + length];
    System.arraycopy(dictionary, 0, buffer, 0, dictionary.length);
    System.arraycopy(rest.toArrayCopy(), 0, buffer, dictionary.length, length);
    data.writeVInt(length);
    LZ4.compressWithDictionary(buffer, 0, dictionary.length, length, data, new LZ4.FastCompressionHashTable());
    rest.reset();
    return length;
  }

  /** Ends the files and opens them as the format's reader does. */
  DocValuesProducer open() throws IOException {
    meta.writeInt(TsdbFormat.END_OF_FIELDS);
    for (IndexOutput out : skip == null ? List.of(meta, data) : List.of(meta, data, skip)) {
      CodecUtil.writeFooter(out);
      out.close();
    }
    Map<String, String> diagnostics = new HashMap<>();
    SegmentInfo info = new SegmentInfo(dir, Version.LATEST, Version.LATEST, "_0", maxDoc, false, false,
        Codec.getDefault(), diagnostics, id, new HashMap<>(), sort);
    FieldInfos infos = new FieldInfos(fields.toArray(FieldInfo[]::new));
    return new TsdbDocValuesProducer(new SegmentReadState(dir, info, infos, IOContext.DEFAULT, SUFFIX), format);
  }

  /**
   * 128 values of 4 bits in Lucene 9.0's {@code ForUtil} layout: value {@code j + 16k} in byte lane {@code k} (from
   * the top) of long {@code j} (16 longs), then long {@code i} of 8 holds long {@code i}'s lanes in its high nibbles
   * and long {@code i + 8}'s in its low ones.
   */
  static void writeForUtil4(DataOutput out, long[] values) throws IOException {
    long[] gathered = gather8(values);
    for (int i = 0; i < 8; i++) {
      out.writeLong((gathered[i] << 4) | gathered[i + 8]);
    }
  }

  /**
   * 128 values of up to 8 bits gathered as Lucene 9.0's {@code ForUtil} does: value {@code j + 16k} in byte lane
   * {@code k} of long {@code j}.
   */
  static long[] gather8(long[] values) {
    long[] gathered = new long[16];
    for (int j = 0; j < 16; j++) {
      for (int k = 0; k < 8; k++) {
        gathered[j] |= values[j + 16 * k] << (56 - 8 * k);
      }
    }
    return gathered;
  }

  /**
   * An {@code ES95TSDB} field descriptor: version 1, the stage count, the block shift, the data type and the stages'
   * ids.
   */
  void es95Descriptor(int blockShift, int dataType, int... stageIds) throws IOException {
    meta.writeVInt(1);
    meta.writeVInt(stageIds.length);
    meta.writeByte((byte) blockShift);
    meta.writeByte((byte) dataType);
    for (int id : stageIds) {
      meta.writeByte((byte) id);
    }
  }
}
