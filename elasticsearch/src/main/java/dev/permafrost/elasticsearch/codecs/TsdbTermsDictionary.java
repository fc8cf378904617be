/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.index.BaseTermsEnum;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.ImpactsEnum;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.ArrayUtil;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.LongValues;
import org.apache.lucene.util.compress.LZ4;
import org.apache.lucene.util.packed.DirectMonotonicReader;

/**
 * The terms of a sorted or sorted-set field of {@code ES819TSDB}, in Lucene 9.0's doc-values terms-dictionary layout:
 * blocks of 64 terms, each a VInt length and the first term's bytes, then (if more terms follow) a VInt length of
 * the rest and the rest LZ4-compressed with the first term as its dictionary; in the rest each term is a token byte
 * (low nibble: bytes shared with the term before, 15 meaning a VInt adds more; high nibble: new bytes minus one, 15
 * meaning a VInt adds more) and the new bytes. The blocks' start addresses are a monotonic list. A seek looks for
 * the block by a binary search over the blocks' first terms, which need no decompression; the reverse index the file
 * also holds (every 1024 terms) is not used.
 */
final class TsdbTermsDictionary {
  static final int BLOCK_SHIFT = 6;

  /** Where one field's dictionary lies in the data file, and its sizes, from the metadata file. */
  record Entry(long size, DirectMonotonicReader.Meta addressesMeta, int maxTermLength, int maxBlockLength,
      long dataOffset, long dataLength, long addressesOffset, long addressesLength) {}

  private TsdbTermsDictionary() {}

  /** Reads a dictionary's metadata (Lucene 9.0's layout, the reverse index's part read past). */
  static Entry readEntry(IndexInput meta) throws IOException {
    long size = meta.readVLong();
    int blockShift = meta.readInt();
    long blocks = (size + (1L << BLOCK_SHIFT) - 1) >>> BLOCK_SHIFT;
    DirectMonotonicReader.Meta addresses = DirectMonotonicReader.loadMeta(meta, blocks, blockShift);
    int maxTermLength = meta.readInt();
    int maxBlockLength = meta.readInt();
    long dataOffset = meta.readLong();
    long dataLength = meta.readLong();
    long addressesOffset = meta.readLong();
    long addressesLength = meta.readLong();
    int indexShift = meta.readInt();
    if (size < 0 || maxTermLength < 0 || maxBlockLength < 0 || indexShift < 0 || indexShift > 31) {
      throw new CorruptIndexException("a terms dictionary of " + size + " terms, longest " + maxTermLength
          + " bytes, index every 2^" + indexShift, meta);
    }
    long indexSize = (size + (1L << indexShift) - 1) >>> indexShift;
    DirectMonotonicReader.loadMeta(meta, 1 + indexSize, blockShift); // the reverse index's addresses
    for (int i = 0; i < 4; i++) {
      meta.readLong(); // the reverse index's offset and length, its addresses' offset and length
    }
    return new Entry(size, addresses, maxTermLength, maxBlockLength, dataOffset, dataLength, addressesOffset,
        addressesLength);
  }

  /** A terms enum over one field's dictionary, with ordinals. */
  static final class Terms extends BaseTermsEnum {
    private final Entry entry;
    private final LongValues blockAddresses;
    private final IndexInput bytes;
    private final BytesRef term;
    private final ByteArrayDataInput rest = new ByteArrayDataInput();
    private byte[] restBytes;
    private long ord = -1;

    Terms(Entry entry, IndexInput data) throws IOException {
      this(entry, data.randomAccessSlice(entry.addressesOffset(), entry.addressesLength()),
          data.slice("terms dictionary", entry.dataOffset(), entry.dataLength()));
    }

    /** Over the dictionary's slices, opened already: its blocks' addresses, and the blocks (this enum's own input). */
    Terms(Entry entry, RandomAccessInput addresses, IndexInput blocks) throws IOException {
      this.entry = entry;
      this.blockAddresses = DirectMonotonicReader.getInstance(entry.addressesMeta(), addresses);
      this.bytes = blocks;
      this.term = new BytesRef(new byte[Math.max(1, entry.maxTermLength())], 0, 0);
      // the rest of a block, after the first term as the decompression's dictionary; 7 bytes LZ4 may write past
      this.restBytes = new byte[entry.maxBlockLength() + entry.maxTermLength() + 7];
    }

    @Override
    public BytesRef next() throws IOException {
      if (ord + 1 >= entry.size()) {
        ord = entry.size();
        return null;
      }
      ord++;
      if ((ord & ((1L << BLOCK_SHIFT) - 1)) == 0) {
        readBlock();
      } else {
        int token = Byte.toUnsignedInt(rest.readByte());
        int shared = token & 0x0F;
        int added = 1 + (token >>> 4);
        if (shared == 15) {
          shared += rest.readVInt();
        }
        if (added == 16) {
          added += rest.readVInt();
        }
        if (shared > term.length || shared + added > term.bytes.length) {
          throw new CorruptIndexException("term " + ord + " shares " + shared + " bytes and adds " + added
              + " to a term of " + term.length + " (longest " + entry.maxTermLength() + ")", bytes);
        }
        rest.readBytes(term.bytes, shared, added);
        term.length = shared + added;
      }
      return term;
    }

    /** Reads the block at the input's position: its first term, and the rest decompressed. */
    private void readBlock() throws IOException {
      readFirstTerm();
      if (bytes.getFilePointer() < entry.dataLength() - 1) {
        int restLength = bytes.readVInt();
        if (restLength < 0 || restLength > entry.maxBlockLength()) {
          throw new CorruptIndexException("a terms block of " + restLength + " bytes (largest "
              + entry.maxBlockLength() + ")", bytes);
        }
        int need = term.length + restLength + 7;
        if (restBytes.length < need) {
          restBytes = new byte[ArrayUtil.oversize(need, 1)];
        }
        System.arraycopy(term.bytes, 0, restBytes, 0, term.length);
        LZ4.decompress(bytes, restLength, restBytes, term.length);
        rest.reset(restBytes, term.length, restLength);
      } else {
        rest.reset(restBytes, 0, 0);
      }
    }

    private void readFirstTerm() throws IOException {
      int length = bytes.readVInt();
      if (length < 0 || length > term.bytes.length) {
        throw new CorruptIndexException("a term of " + length + " bytes (longest " + entry.maxTermLength() + ")",
            bytes);
      }
      bytes.readBytes(term.bytes, 0, length);
      term.length = length;
    }

    @Override
    public void seekExact(long target) throws IOException {
      if (target < 0 || target >= entry.size()) {
        throw new IndexOutOfBoundsException("ordinal " + target + " of " + entry.size() + " terms");
      }
      long block = target >>> BLOCK_SHIFT;
      if (target < ord || ord < 0 || block != ord >>> BLOCK_SHIFT) {
        bytes.seek(blockAddresses.get(block));
        ord = (block << BLOCK_SHIFT) - 1;
      }
      while (ord < target) {
        next();
      }
    }

    @Override
    public SeekStatus seekCeil(BytesRef text) throws IOException {
      if (entry.size() == 0) {
        ord = 0;
        return SeekStatus.END;
      }
      // the last block whose first term is <= text (or the first block)
      long lo = 0;
      long hi = (entry.size() - 1) >>> BLOCK_SHIFT;
      while (lo <= hi) {
        long mid = (lo + hi) >>> 1;
        bytes.seek(blockAddresses.get(mid));
        readFirstTerm();
        if (term.compareTo(text) <= 0) {
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      long block = Math.max(hi, 0);
      bytes.seek(blockAddresses.get(block));
      ord = (block << BLOCK_SHIFT) - 1;
      while (next() != null) {
        int cmp = term.compareTo(text);
        if (cmp == 0) {
          return SeekStatus.FOUND;
        } else if (cmp > 0) {
          return SeekStatus.NOT_FOUND;
        }
      }
      return SeekStatus.END;
    }

    @Override
    public BytesRef term() {
      return term;
    }

    @Override
    public long ord() {
      return ord;
    }

    @Override
    public int docFreq() {
      throw new UnsupportedOperationException("a doc-values terms dictionary has no document frequencies");
    }

    @Override
    public long totalTermFreq() {
      return -1;
    }

    @Override
    public PostingsEnum postings(PostingsEnum reuse, int flags) {
      throw new UnsupportedOperationException("a doc-values terms dictionary has no postings");
    }

    @Override
    public ImpactsEnum impacts(int flags) {
      throw new UnsupportedOperationException("a doc-values terms dictionary has no postings");
    }
  }
}
