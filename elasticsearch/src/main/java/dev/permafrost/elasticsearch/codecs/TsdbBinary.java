/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import dev.permafrost.store.ColumnPrefetch;
import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.codecs.compressing.Decompressor;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.ArrayUtil;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.LongValues;
import org.apache.lucene.util.packed.DirectMonotonicReader;

/**
 * The binary fields of the TSDB doc-values formats. An entry in {@code .dvm}: from version 1 a compression byte
 * ({@link TsdbFormat#BINARY_UNCOMPRESSED} or {@link TsdbFormat#BINARY_ZSTD_BLOCKS}); the data's offset and length;
 * the documents with a value (Lucene's {@code IndexedDISI}: offset, length, jump-table entries, rank power); the
 * count of those documents and the shortest and longest value. Then:
 *
 * <ul>
 *   <li><b>Uncompressed</b> (and every binary field of version 0): Lucene 9.0's layout, the values one after another;
 *       if their lengths differ, the monotonic list of their {@code n + 1} start offsets (its offset, a VInt block
 *       shift, its metadata, its length).
 *   <li><b>zstd blocks</b>, when some document has a value: the blocks' monotonic list of {@code numBlocks + 1}
 *       absolute {@code .dvd} offsets (its offset, a VInt block count, the largest block's bytes and values
 *       uncompressed, a VInt block shift, its metadata, its length), then the list of each block's first value index
 *       and the count of values at the end (its offset, its metadata with the same shift, its length). A block: a
 *       header byte (bit 0: compressed), a VInt length {@code L} of its values' bytes, the values' {@code n + 1}
 *       lengths ({@link TsdbDocOffsets}, which the format name chooses; not read when {@code L} is 0, all values being
 *       empty), then {@code L} bytes, compressed as a VInt length and one zstd frame.
 * </ul>
 *
 * A value's index is its document's id when every document has one, else its rank in the document set.
 */
final class TsdbBinary {
  /** A block header's bit: the values' bytes are zstd-compressed. */
  static final int BLOCK_COMPRESSED = 1;

  private TsdbBinary() {}

  /** A binary field's entry. */
  static final class Entry {
    String field;
    byte compression;
    long dataOffset;
    long dataLength;
    long docsWithFieldOffset;
    long docsWithFieldLength;
    short jumpTableEntryCount;
    byte denseRankPower;
    int numDocsWithField;
    int minLength;
    int maxLength;
    // uncompressed, lengths that differ: each value's start
    long addressesOffset;
    long addressesLength;
    DirectMonotonicReader.Meta addressesMeta;
    // zstd blocks
    int numBlocks;
    int maxBlockBytes;
    int maxBlockValues;
    long blockAddressesOffset;
    long blockAddressesLength;
    DirectMonotonicReader.Meta blockAddressesMeta;
    long blockStartsOffset;
    long blockStartsLength;
    DirectMonotonicReader.Meta blockStartsMeta;
  }

  /** Reads a binary entry of a file of {@code version}. */
  static Entry readEntry(IndexInput meta, int version, String field) throws IOException {
    Entry e = new Entry();
    e.field = field;
    e.compression = version >= TsdbFormat.VERSION_BINARY_BLOCKS ? meta.readByte() : TsdbFormat.BINARY_UNCOMPRESSED;
    if (e.compression != TsdbFormat.BINARY_UNCOMPRESSED && e.compression != TsdbFormat.BINARY_ZSTD_BLOCKS) {
      throw new CorruptIndexException("binary compression " + e.compression + " of " + field + " (0: none, 1: zstd"
          + " blocks)", meta);
    }
    e.dataOffset = meta.readLong();
    e.dataLength = meta.readLong();
    e.docsWithFieldOffset = meta.readLong();
    e.docsWithFieldLength = meta.readLong();
    e.jumpTableEntryCount = meta.readShort();
    e.denseRankPower = meta.readByte();
    e.numDocsWithField = meta.readInt();
    e.minLength = meta.readInt();
    e.maxLength = meta.readInt();
    if (e.numDocsWithField < 0 || e.minLength < 0 || e.maxLength < e.minLength && e.numDocsWithField > 0) {
      throw new CorruptIndexException(e.numDocsWithField + " values of " + e.minLength + " to " + e.maxLength
          + " bytes in " + field, meta);
    }
    if (e.compression == TsdbFormat.BINARY_UNCOMPRESSED) {
      if (e.minLength < e.maxLength) {
        e.addressesOffset = meta.readLong();
        int shift = meta.readVInt();
        e.addressesMeta = DirectMonotonicReader.loadMeta(meta, e.numDocsWithField + 1L, shift);
        e.addressesLength = meta.readLong();
      }
    } else if (e.numDocsWithField > 0) {
      e.blockAddressesOffset = meta.readLong();
      e.numBlocks = meta.readVInt();
      e.maxBlockBytes = meta.readVInt();
      e.maxBlockValues = meta.readVInt();
      int shift = meta.readVInt();
      if (e.numBlocks < 1 || e.numBlocks > e.numDocsWithField || e.maxBlockValues < 1 || shift < 2 || shift > 30) {
        throw new CorruptIndexException(e.numBlocks + " binary blocks of at most " + e.maxBlockValues + " values,"
            + " list block shift " + shift + ", for " + e.numDocsWithField + " values of " + field, meta);
      }
      e.blockAddressesMeta = DirectMonotonicReader.loadMeta(meta, e.numBlocks + 1L, shift);
      e.blockAddressesLength = meta.readLong();
      e.blockStartsOffset = meta.readLong();
      e.blockStartsMeta = DirectMonotonicReader.loadMeta(meta, e.numBlocks + 1L, shift);
      e.blockStartsLength = meta.readLong();
    }
    return e;
  }

  /** A field's values by index: the n-th value of the field, in document order. */
  interface Values {
    /** The value; its bytes are valid until the next call. */
    BytesRef get(long index) throws IOException;
  }

  /** A reader of the field's values for one iterator (it keeps the last block it decoded). */
  static Values values(Entry entry, IndexInput data, TsdbDocOffsets offsets) throws IOException {
    if (entry.compression == TsdbFormat.BINARY_ZSTD_BLOCKS) {
      return new Blocks(entry, data, offsets);
    }
    RandomAccessInput bytes = data.randomAccessSlice(entry.dataOffset, entry.dataLength);
    BytesRef value = new BytesRef(new byte[Math.max(1, entry.maxLength)], 0, 0);
    if (entry.minLength == entry.maxLength) {
      int length = entry.maxLength;
      return index -> {
        bytes.readBytes(index * length, value.bytes, 0, length);
        value.length = length;
        return value;
      };
    }
    LongValues addresses = DirectMonotonicReader.getInstance(entry.addressesMeta,
        data.randomAccessSlice(entry.addressesOffset, entry.addressesLength));
    return index -> {
      long start = addresses.get(index);
      long length = addresses.get(index + 1) - start;
      if (length < entry.minLength || length > entry.maxLength) {
        throw new CorruptIndexException("value " + index + " of " + entry.field + " is " + length + " bytes (the"
            + " field's are " + entry.minLength + " to " + entry.maxLength + ")", data);
      }
      bytes.readBytes(start, value.bytes, 0, (int) length);
      value.length = (int) length;
      return value;
    };
  }

  /** The values of a field in zstd blocks, a block decoded at a time, the last one kept. */
  private static final class Blocks implements Values {
    private final Entry entry;
    private final TsdbDocOffsets offsets;
    private final IndexInput data;
    private final LongValues blockAddresses;
    private final LongValues blockStarts;
    private final Decompressor zstd = ZstdStoredFieldsFormat.CHUNKS.newDecompressor();
    private final BytesRef block = new BytesRef();
    private final BytesRef value = new BytesRef();
    private int[] starts;
    private long first = 0;
    private long end = -1; // the values of the block decoded: [first, end)

    Blocks(Entry entry, IndexInput data, TsdbDocOffsets offsets) throws IOException {
      this.entry = entry;
      this.offsets = offsets;
      // the blocks, read in order: a column's, fetched whole when a collector names the field
      this.data = ColumnPrefetch.columnSlice(data, "values of " + entry.field, entry.dataOffset, entry.dataLength);
      this.blockAddresses = DirectMonotonicReader.getInstance(entry.blockAddressesMeta,
          data.randomAccessSlice(entry.blockAddressesOffset, entry.blockAddressesLength));
      this.blockStarts = DirectMonotonicReader.getInstance(entry.blockStartsMeta,
          data.randomAccessSlice(entry.blockStartsOffset, entry.blockStartsLength));
      this.starts = new int[entry.maxBlockValues + 1];
    }

    @Override
    public BytesRef get(long index) throws IOException {
      assert index >= 0 && index < entry.numDocsWithField : index + " of " + entry.numDocsWithField;
      if (index < first || index >= end) {
        decode(blockOf(index));
      }
      int i = (int) (index - first);
      value.bytes = block.bytes;
      value.offset = block.offset + starts[i];
      value.length = starts[i + 1] - starts[i];
      return value;
    }

    /** The block holding value {@code index}: the last whose first value is at most it. */
    private long blockOf(long index) {
      long lo = 0;
      long hi = entry.numBlocks - 1;
      while (lo < hi) {
        long mid = (lo + hi + 1) >>> 1;
        if (blockStarts.get(mid) <= index) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return lo;
    }

    private void decode(long b) throws IOException {
      end = -1; // until the block is decoded whole
      long from = blockStarts.get(b);
      long to = blockStarts.get(b + 1);
      long address = blockAddresses.get(b);
      long next = blockAddresses.get(b + 1);
      int count = Math.toIntExact(to - from);
      if (count < 1 || count > entry.maxBlockValues || address < entry.dataOffset || next < address
          || next > entry.dataOffset + entry.dataLength) {
        throw new CorruptIndexException("binary block " + b + " of " + entry.field + ": values " + from + " to " + to
            + " (at most " + entry.maxBlockValues + ") at " + address + " to " + next + ", the field's data being "
            + entry.dataOffset + " to " + (entry.dataOffset + entry.dataLength), data);
      }
      data.seek(address - entry.dataOffset);
      int header = data.readByte();
      if ((header & ~BLOCK_COMPRESSED) != 0) {
        throw new CorruptIndexException("binary block header " + header + " of " + entry.field + " (bit 0:"
            + " compressed; no other is written)", data);
      }
      int length = data.readVInt();
      if (length < 0 || length > entry.maxBlockBytes) {
        throw new CorruptIndexException("a binary block of " + length + " bytes in " + entry.field + " (the largest"
            + " is " + entry.maxBlockBytes + ")", data);
      }
      if (length == 0) {
        Arrays.fill(starts, 0, count + 1, 0); // every value empty: the lengths need no reading
      } else {
        offsets.read(data, count + 1, starts);
        if (starts[0] != 0) {
          throw new CorruptIndexException("binary block " + b + " of " + entry.field + " starts at " + starts[0]
              + ", not 0", data);
        }
        for (int i = 1; i <= count; i++) {
          starts[i] += starts[i - 1];
          if (starts[i] < starts[i - 1] || starts[i] > length) {
            throw new CorruptIndexException("binary block " + b + " of " + entry.field + ": value " + (i - 1)
                + " ends at " + starts[i] + " of " + length + " bytes", data);
          }
        }
        if (starts[count] != length) {
          throw new CorruptIndexException("binary block " + b + " of " + entry.field + ": its values end at "
              + starts[count] + ", its bytes at " + length, data);
        }
        if ((header & BLOCK_COMPRESSED) != 0) {
          zstd.decompress(data, length, 0, length, block);
        } else {
          block.bytes = ArrayUtil.growNoCopy(block.bytes, length);
          block.offset = 0;
          block.length = length;
          data.readBytes(block.bytes, 0, length);
        }
        if (entry.dataOffset + data.getFilePointer() > next) {
          throw new CorruptIndexException("binary block " + b + " of " + entry.field + " ends at "
              + (entry.dataOffset + data.getFilePointer()) + ", past the next block at " + next, data);
        }
      }
      for (int i = 0; i < count; i++) {
        int n = starts[i + 1] - starts[i];
        if (n < entry.minLength || n > entry.maxLength) {
          throw new CorruptIndexException("value " + (from + i) + " of " + entry.field + " is " + n + " bytes (the"
              + " field's are " + entry.minLength + " to " + entry.maxLength + ")", data);
        }
      }
      first = from;
      end = to;
    }
  }
}
