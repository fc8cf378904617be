/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.DocValuesConsumer;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.IOUtils;

/**
 * The "doc values" of {@code _id} in a time_series index with synthetic ids (Elasticsearch 9.4 and later): no values,
 * a bloom filter over the segment's id terms, which the node uses to skip segments when it looks an id up. Two files:
 * {@code .sfbfm} (index header, {@code VLong} offset of the bits in the data file, {@code VInt} size in bits, a power
 * of two, {@code VInt} number of hash functions, footer) and {@code .sfbf} (index header, the bits, footer). Opening
 * checks both headers, the metadata's checksum and that the data file is as long as the metadata says; the bits are
 * checked by {@code checkIntegrity}. {@code _id} reads as a BINARY field with no values, as on the node.
 *
 * <p><b>The filter is not read.</b> An id lookup ({@link TSDBSyntheticIdPostingsFormat}) already starts with the
 * {@code _tsid} terms dictionary, which a query over the same series reads anyway and which answers "absent" for most
 * segments of other series; the filter would add up to four random reads in a file of 64 KiB to 8 MiB per segment,
 * each a store round trip on a cold cache, to spare a lookup the cache usually holds. Without a measurement showing a
 * gain it stays unread (it may answer "maybe" wrongly by design, so correctness never depends on it). Read-only.
 */
public final class ES94BloomFilterDocValuesFormat extends DocValuesFormat {
  /** The name segments record, also the codec of both files' headers. */
  static final String NAME = "ES94BloomFilterDocValuesFormat";
  static final int VERSION_START = 0;
  static final int VERSION_CURRENT = 0;
  static final String META_EXTENSION = "sfbfm";
  static final String DATA_EXTENSION = "sfbf";
  /** Most hash functions the format allows. */
  static final int MAX_HASH_FUNCTIONS = 11;

  /** Called by Lucene's SPI. */
  public ES94BloomFilterDocValuesFormat() {
    super(NAME);
  }

  @Override
  public DocValuesConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(NAME + " is read-only here: Permafrost never writes an engine's segments");
  }

  @Override
  public DocValuesProducer fieldsProducer(SegmentReadState state) throws IOException {
    return new Producer(state);
  }

  /** The opened filter files; no values. */
  static final class Producer extends DocValuesProducer {
    private final IndexInput data;
    final long bitsOffset;
    final int sizeInBits;
    final int hashFunctions;

    Producer(SegmentReadState state) throws IOException {
      String metaName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, META_EXTENSION);
      String dataName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, DATA_EXTENSION);
      int version = -1;
      long offset = 0;
      int bits = 0;
      int hashes = 0;
      try (ChecksumIndexInput meta = state.directory.openChecksumInput(metaName)) {
        Throwable prior = null;
        try {
          version = CodecUtil.checkIndexHeader(meta, NAME, VERSION_START, VERSION_CURRENT,
              state.segmentInfo.getId(), state.segmentSuffix);
          offset = meta.readVLong();
          bits = meta.readVInt();
          hashes = meta.readVInt();
          if (bits < Byte.SIZE || Integer.bitCount(bits) != 1) {
            throw new CorruptIndexException("a bloom filter of " + bits + " bits, not a power of two of at least 8",
                meta);
          }
          if (hashes < 1 || hashes > MAX_HASH_FUNCTIONS) {
            throw new CorruptIndexException("a bloom filter with " + hashes + " hash functions, not 1 to "
                + MAX_HASH_FUNCTIONS, meta);
          }
        } catch (Throwable t) {
          prior = t;
        } finally {
          CodecUtil.checkFooter(meta, prior);
        }
      }
      this.bitsOffset = offset;
      this.sizeInBits = bits;
      this.hashFunctions = hashes;
      IndexInput in = state.directory.openInput(dataName, state.context);
      boolean ok = false;
      try {
        CodecUtil.checkIndexHeader(in, NAME, version, version, state.segmentInfo.getId(), state.segmentSuffix);
        if (in.getFilePointer() != offset) {
          throw new CorruptIndexException("the bloom filter's bits start at " + offset + ", its metadata says, but its"
              + " header ends at " + in.getFilePointer(), in);
        }
        long expected = offset + sizeInBits / Byte.SIZE + CodecUtil.footerLength();
        if (in.length() != expected) {
          throw new CorruptIndexException("a bloom filter file of " + in.length() + " bytes, its metadata says "
              + expected + " (" + sizeInBits + " bits after a header of " + offset + " bytes, and a footer)", in);
        }
        CodecUtil.retrieveChecksum(in);
        ok = true;
      } finally {
        if (!ok) {
          IOUtils.closeWhileHandlingException(in);
        }
      }
      this.data = in;
    }

    @Override
    public BinaryDocValues getBinary(FieldInfo field) {
      return DocValues.emptyBinary();
    }

    @Override
    public NumericDocValues getNumeric(FieldInfo field) {
      throw notBinary(field);
    }

    @Override
    public SortedDocValues getSorted(FieldInfo field) {
      throw notBinary(field);
    }

    @Override
    public SortedNumericDocValues getSortedNumeric(FieldInfo field) {
      throw notBinary(field);
    }

    @Override
    public SortedSetDocValues getSortedSet(FieldInfo field) {
      throw notBinary(field);
    }

    @Override
    public DocValuesSkipper getSkipper(FieldInfo field) {
      return null;
    }

    private static IllegalStateException notBinary(FieldInfo field) {
      return new IllegalStateException("field '" + field.name + "' in " + NAME + " has only (empty) BINARY doc values");
    }

    @Override
    public void checkIntegrity() throws IOException {
      CodecUtil.checksumEntireFile(data);
    }

    @Override
    public void close() throws IOException {
      data.close();
    }

    @Override
    public String toString() {
      return NAME + "(" + sizeInBits + " bits, " + hashFunctions + " hash functions)";
    }
  }
}
