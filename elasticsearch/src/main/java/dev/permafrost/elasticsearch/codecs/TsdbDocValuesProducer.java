/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.codecs.lucene90.IndexedDISI;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesSkipIndexType;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.LongValues;
import org.apache.lucene.util.packed.DirectMonotonicReader;
import org.apache.lucene.util.packed.PackedInts;

/**
 * Reads a segment's {@code ES819TSDB} doc values ({@code .dvm} metadata, {@code .dvd} data), versions 0 to 2, as
 * {@code ES819TSDBDocValuesFormat} describes them. The metadata is read whole at open (as Lucene's own doc-values
 * reader does: it is small and kept whole by the snapshot); the data is read where a search asks.
 */
final class TsdbDocValuesProducer extends DocValuesProducer {
  static final String DATA_CODEC = "ES819TSDBDocValuesData";
  static final String META_CODEC = "ES819TSDBDocValuesMetadata";
  static final int VERSION_START = 0;
  /**
   * Version 2 adds a numeric block size after the metadata's header (version 1 a compression byte to binary fields,
   * which are not read).
   */
  static final int VERSION_BLOCK_SIZE = 2;
  static final int VERSION_CURRENT = 2;

  /** A numeric entry's encoding where a block shift would be: a single ordinal, no values written. */
  private static final int SINGLE_ORDINAL = -1;
  /** A numeric entry's encoding where a block shift would be: each ordinal's first document (a primary sort field). */
  private static final int ORDINAL_RANGES = -2;

  private static final byte NUMERIC = 0;
  private static final byte BINARY = 1;
  private static final byte SORTED = 2;
  private static final byte SORTED_SET = 3;
  private static final byte SORTED_NUMERIC = 4;

  private final Map<Integer, NumericEntry> numerics = new HashMap<>();
  private final Map<Integer, SortedEntry> sorted = new HashMap<>();
  private final Map<Integer, SortedSetEntry> sortedSets = new HashMap<>();
  private final Map<Integer, NumericEntry> sortedNumerics = new HashMap<>();
  private final Map<Integer, TsdbSkipper.Entry> skippers = new HashMap<>();
  private final IndexInput data;
  private final String dataName;
  private final int maxDoc;
  /** Values per block, as a shift: 7 (128) before version 2, else the metadata's. Set before the fields are read. */
  private int blockShift = 7;

  TsdbDocValuesProducer(SegmentReadState state, String formatName) throws IOException {
    String metaName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "dvm");
    this.dataName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "dvd");
    this.maxDoc = state.segmentInfo.maxDoc();
    int version = -1;
    try (ChecksumIndexInput meta = state.directory.openChecksumInput(metaName)) {
      Throwable prior = null;
      try {
        version = checkHeader(meta, META_CODEC, metaName, formatName, state);
        if (version >= VERSION_BLOCK_SIZE) {
          blockShift = meta.readByte();
          if (blockShift != 7 && blockShift != 9) {
            throw new CorruptIndexException("numeric block shift " + blockShift + " (7 and 9 are read)", meta);
          }
        }
        readFields(meta, state, formatName, version);
      } catch (Throwable t) {
        prior = t;
      } finally {
        CodecUtil.checkFooter(meta, prior);
      }
    }
    IndexInput in = state.directory.openInput(dataName, state.context);
    try {
      int dataVersion = checkHeader(in, DATA_CODEC, dataName, formatName, state);
      if (dataVersion != version) {
        throw new CorruptIndexException("format versions differ: " + metaName + " " + version + ", " + dataName + " "
            + dataVersion, in);
      }
      CodecUtil.retrieveChecksum(in); // a truncated file fails now, not in a search
    } catch (Throwable t) {
      IOUtils.closeWhileHandlingException(in);
      throw t;
    }
    this.data = in;
  }

  private static int checkHeader(IndexInput in, String codec, String file, String formatName, SegmentReadState state)
      throws IOException {
    int actual = CodecUtil.checkHeader(in, codec, 0, Integer.MAX_VALUE);
    if (actual > VERSION_CURRENT) {
      throw new CorruptIndexException(formatName + " version " + actual + " in " + file + " (codec " + codec
          + ") is not one this reader knows: it reads versions " + VERSION_START + " to " + VERSION_CURRENT
          + " (Elasticsearch 8.19 to 9.3)", in);
    }
    CodecUtil.checkIndexHeaderID(in, state.segmentInfo.getId());
    CodecUtil.checkIndexHeaderSuffix(in, state.segmentSuffix);
    return actual;
  }

  private void readFields(IndexInput meta, SegmentReadState state, String formatName, int version)
      throws IOException {
    for (int number = meta.readInt(); number != -1; number = meta.readInt()) {
      FieldInfo info = state.fieldInfos.fieldInfo(number);
      if (info == null) {
        throw new CorruptIndexException("field number " + number + " is not in the segment", meta);
      }
      byte type = meta.readByte();
      if (info.docValuesSkipIndexType() != DocValuesSkipIndexType.NONE) {
        skippers.put(number, new TsdbSkipper.Entry(meta.readLong(), meta.readLong(), meta.readLong(), meta.readLong(),
            meta.readInt(), meta.readInt()));
      }
      String field = "field '" + info.name + "' of " + dataName;
      switch (type) {
        case NUMERIC -> numerics.put(number, readNumeric(meta, field, false));
        case SORTED -> sorted.put(number, readSorted(meta, field));
        case SORTED_SET -> sortedSets.put(number, readSortedSet(meta, field));
        case SORTED_NUMERIC -> sortedNumerics.put(number, readSortedNumeric(meta, field, false));
        case BINARY -> throw new CorruptIndexException("binary doc values (" + field + ") in " + formatName
            + " version " + version + " are not read by this reader: no Elasticsearch node here writes them to"
            + " check a reader against", meta);
        default -> throw new CorruptIndexException("doc-values type " + type + " of " + field, meta);
      }
    }
  }

  private NumericEntry readNumeric(IndexInput meta, String field, boolean ordinals) throws IOException {
    NumericEntry e = new NumericEntry();
    e.field = field;
    e.ordinals = ordinals;
    e.numValues = meta.readLong();
    e.numDocsWithField = meta.readInt();
    if (e.numValues > 0) {
      e.indexShift = meta.readInt();
      if (e.indexShift == SINGLE_ORDINAL || e.indexShift == ORDINAL_RANGES) {
        if (!ordinals) {
          throw new CorruptIndexException("value encoding " + e.indexShift + " of " + field + " is one of ordinals, in"
              + " a numeric field", meta);
        }
        if (e.indexShift == ORDINAL_RANGES) {
          // each ordinal's first document, and the end: a monotonic list in the place of the values
          e.ordinalCount = meta.readVInt();
          int shift = meta.readByte();
          if (e.ordinalCount < 1 || shift < 2 || shift > 30) {
            throw new CorruptIndexException("ordinal ranges of " + e.ordinalCount + " ordinals, block shift " + shift
                + ", of " + field, meta);
          }
          e.rangesMeta = DirectMonotonicReader.loadMeta(meta, e.ordinalCount + 1L, shift);
        }
      } else if (e.indexShift < 0 || e.indexShift > 30) {
        throw new CorruptIndexException("value encoding " + e.indexShift + " of " + field + " is not one this reader"
            + " knows (blocks: a block shift; -1: a single ordinal; -2: ordinal ranges)", meta);
      } else {
        long blocks = (e.numValues + (1L << blockShift) - 1) >>> blockShift;
        e.indexMeta = DirectMonotonicReader.loadMeta(meta, blocks, e.indexShift);
      }
      e.indexOffset = meta.readLong();
      e.indexLength = meta.readLong();
      e.valuesOffset = meta.readLong();
      e.valuesLength = meta.readLong();
    }
    e.docsWithFieldOffset = meta.readLong();
    e.docsWithFieldLength = meta.readLong();
    e.jumpTableEntryCount = meta.readShort();
    e.denseRankPower = meta.readByte();
    return e;
  }

  private NumericEntry readSortedNumeric(IndexInput meta, String field, boolean ordinals) throws IOException {
    NumericEntry e = readNumeric(meta, field, ordinals);
    if (e.numValues != e.numDocsWithField) {
      e.addressesOffset = meta.readLong();
      int shift = meta.readVInt();
      e.addressesMeta = DirectMonotonicReader.loadMeta(meta, e.numDocsWithField + 1L, shift);
      e.addressesLength = meta.readLong();
    }
    return e;
  }

  private SortedEntry readSorted(IndexInput meta, String field) throws IOException {
    NumericEntry ords = readNumeric(meta, field, true);
    TsdbTermsDictionary.Entry terms = TsdbTermsDictionary.readEntry(meta);
    ords.ordinalBits = PackedInts.bitsRequired(Math.max(0, terms.size() - 1));
    return new SortedEntry(ords, terms);
  }

  private SortedSetEntry readSortedSet(IndexInput meta, String field) throws IOException {
    byte multiValued = meta.readByte();
    return switch (multiValued) {
      case 0 -> new SortedSetEntry(readSorted(meta, field), null, null);
      case 1 -> {
        NumericEntry ords = readSortedNumeric(meta, field, true);
        TsdbTermsDictionary.Entry terms = TsdbTermsDictionary.readEntry(meta);
        ords.ordinalBits = PackedInts.bitsRequired(Math.max(0, terms.size() - 1));
        yield new SortedSetEntry(null, ords, terms);
      }
      default -> throw new CorruptIndexException("multi-valued flag " + multiValued + " of " + field, meta);
    };
  }

  // ---- reading values

  /** The values of one field by index: the n-th value of the field, in document order. */
  private interface IndexedValues {
    long get(long index) throws IOException;
  }

  /** A field's values read a block at a time, the last block decoded kept. */
  private final class BlockValues implements IndexedValues {
    private final NumericEntry entry;
    private final TsdbBlocks blocks;
    private final LongValues blockStarts;
    private final IndexInput values;
    private final long[] buffer;
    private final int mask;
    private long block = -1;

    BlockValues(NumericEntry entry) throws IOException {
      this.entry = entry;
      this.blocks = new TsdbBlocks(1 << blockShift, entry.field);
      this.blockStarts = DirectMonotonicReader.getInstance(entry.indexMeta,
          data.randomAccessSlice(entry.indexOffset, entry.indexLength));
      this.values = data.slice("values of " + entry.field, entry.valuesOffset, entry.valuesLength);
      this.buffer = new long[1 << blockShift];
      this.mask = (1 << blockShift) - 1;
    }

    @Override
    public long get(long index) throws IOException {
      assert index >= 0 && index < entry.numValues : index + " of " + entry.numValues + " values of " + entry.field;
      long b = index >>> blockShift;
      if (b != block) {
        block = -1; // until the block is decoded whole
        values.seek(blockStarts.get(b));
        if (entry.ordinals) {
          blocks.decodeOrdinals(values, entry.ordinalBits, buffer);
        } else {
          blocks.decodeNumeric(values, buffer);
        }
        block = b;
      }
      return buffer[(int) (index & mask)];
    }
  }

  private IndexedValues values(NumericEntry entry) throws IOException {
    if (entry.indexShift == SINGLE_ORDINAL) {
      return index -> 0L;
    }
    if (entry.indexShift == ORDINAL_RANGES) {
      return new OrdinalRanges(entry);
    }
    return new BlockValues(entry);
  }

  /**
   * The ordinals of a field written as each ordinal's first value ({@link #ORDINAL_RANGES}): the n-th value's ordinal
   * is that of the range holding n, found from the range of the last one asked for, else by a binary search.
   */
  private final class OrdinalRanges implements IndexedValues {
    private final NumericEntry entry;
    private final LongValues starts;
    private long ordinal = -1;
    private long from;
    private long to = -1;

    OrdinalRanges(NumericEntry entry) throws IOException {
      this.entry = entry;
      this.starts = DirectMonotonicReader.getInstance(entry.rangesMeta,
          data.randomAccessSlice(entry.valuesOffset, entry.valuesLength));
    }

    @Override
    public long get(long index) throws IOException {
      if (index < from || index >= to) {
        long lo = 0;
        long hi = entry.ordinalCount - 1;
        while (lo < hi) { // the last ordinal whose first value is <= index
          long mid = (lo + hi + 1) >>> 1;
          if (starts.get(mid) <= index) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        ordinal = lo;
        from = starts.get(lo);
        to = starts.get(lo + 1);
        if (index < from || index >= to) {
          throw new CorruptIndexException("value " + index + " is in no ordinal's range of " + entry.field
              + " (ordinal " + lo + " covers " + from + " to " + to + ")", data);
        }
      }
      return ordinal;
    }
  }

  /** The documents with a value: all, none, or those of the field's doc-id set. */
  private IndexedDISI disi(NumericEntry entry) throws IOException {
    return new IndexedDISI(data, entry.docsWithFieldOffset, entry.docsWithFieldLength, entry.jumpTableEntryCount,
        entry.denseRankPower, entry.numDocsWithField);
  }

  @Override
  public NumericDocValues getNumeric(FieldInfo field) throws IOException {
    return numeric(numerics.get(field.number));
  }

  private NumericDocValues numeric(NumericEntry entry) throws IOException {
    if (entry == null || entry.docsWithFieldOffset == -2 || entry.numValues == 0) {
      return DocValues.emptyNumeric();
    }
    IndexedValues values = values(entry);
    DocIdSetIterator docs = entry.docsWithFieldOffset == -1 ? DocIdSetIterator.all(maxDoc) : disi(entry);
    IndexedDISI sparse = docs instanceof IndexedDISI d ? d : null;
    return new NumericDocValues() {
      @Override
      public long longValue() throws IOException {
        return values.get(sparse == null ? docs.docID() : sparse.index());
      }

      @Override
      public boolean advanceExact(int target) throws IOException {
        if (sparse != null) {
          return sparse.advanceExact(target);
        }
        docs.advance(target);
        return true;
      }

      @Override
      public int docID() {
        return docs.docID();
      }

      @Override
      public int nextDoc() throws IOException {
        return docs.nextDoc();
      }

      @Override
      public int advance(int target) throws IOException {
        return docs.advance(target);
      }

      @Override
      public long cost() {
        return docs.cost();
      }
    };
  }

  @Override
  public SortedNumericDocValues getSortedNumeric(FieldInfo field) throws IOException {
    NumericEntry entry = sortedNumerics.get(field.number);
    return sortedNumeric(entry);
  }

  private SortedNumericDocValues sortedNumeric(NumericEntry entry) throws IOException {
    if (entry == null) {
      return DocValues.emptySortedNumeric();
    }
    if (entry.numValues == entry.numDocsWithField) {
      return DocValues.singleton(numeric(entry));
    }
    IndexedValues values = values(entry);
    LongValues addresses = DirectMonotonicReader.getInstance(entry.addressesMeta,
        data.randomAccessSlice(entry.addressesOffset, entry.addressesLength));
    DocIdSetIterator docs = entry.docsWithFieldOffset == -1 ? DocIdSetIterator.all(maxDoc) : disi(entry);
    IndexedDISI sparse = docs instanceof IndexedDISI d ? d : null;
    return new SortedNumericDocValues() {
      private long next;
      private int count;
      private int at = -1;

      private void locate() {
        int doc = docs.docID();
        if (at != doc) {
          int index = sparse == null ? doc : sparse.index();
          next = addresses.get(index);
          count = Math.toIntExact(addresses.get(index + 1L) - next);
          at = doc;
        }
      }

      @Override
      public long nextValue() throws IOException {
        locate();
        return values.get(next++);
      }

      @Override
      public int docValueCount() {
        locate();
        return count;
      }

      @Override
      public boolean advanceExact(int target) throws IOException {
        at = -1;
        if (sparse != null) {
          return sparse.advanceExact(target);
        }
        docs.advance(target);
        return true;
      }

      @Override
      public int docID() {
        return docs.docID();
      }

      @Override
      public int nextDoc() throws IOException {
        at = -1;
        return docs.nextDoc();
      }

      @Override
      public int advance(int target) throws IOException {
        at = -1;
        return docs.advance(target);
      }

      @Override
      public long cost() {
        return docs.cost();
      }
    };
  }

  @Override
  public SortedDocValues getSorted(FieldInfo field) throws IOException {
    return sorted(sorted.get(field.number));
  }

  private SortedDocValues sorted(SortedEntry entry) throws IOException {
    if (entry == null) {
      return DocValues.emptySorted();
    }
    NumericDocValues ords = numeric(entry.ords());
    TermsLookup terms = new TermsLookup(entry.terms());
    return new SortedDocValues() {
      @Override
      public int ordValue() throws IOException {
        return (int) ords.longValue();
      }

      @Override
      public BytesRef lookupOrd(int ord) throws IOException {
        return terms.lookup(ord);
      }

      @Override
      public int getValueCount() {
        return Math.toIntExact(terms.entry.size());
      }

      @Override
      public TermsEnum termsEnum() throws IOException {
        return terms.termsEnum();
      }

      @Override
      public boolean advanceExact(int target) throws IOException {
        return ords.advanceExact(target);
      }

      @Override
      public int docID() {
        return ords.docID();
      }

      @Override
      public int nextDoc() throws IOException {
        return ords.nextDoc();
      }

      @Override
      public int advance(int target) throws IOException {
        return ords.advance(target);
      }

      @Override
      public long cost() {
        return ords.cost();
      }
    };
  }

  @Override
  public SortedSetDocValues getSortedSet(FieldInfo field) throws IOException {
    SortedSetEntry entry = sortedSets.get(field.number);
    if (entry == null) {
      return DocValues.emptySortedSet();
    }
    if (entry.single() != null) {
      return DocValues.singleton(sorted(entry.single()));
    }
    SortedNumericDocValues ords = sortedNumeric(entry.ords());
    TermsLookup terms = new TermsLookup(entry.terms());
    return new SortedSetDocValues() {
      @Override
      public long nextOrd() throws IOException {
        return ords.nextValue();
      }

      @Override
      public int docValueCount() {
        return ords.docValueCount();
      }

      @Override
      public BytesRef lookupOrd(long ord) throws IOException {
        return terms.lookup(ord);
      }

      @Override
      public long getValueCount() {
        return terms.entry.size();
      }

      @Override
      public TermsEnum termsEnum() throws IOException {
        return terms.termsEnum();
      }

      @Override
      public boolean advanceExact(int target) throws IOException {
        return ords.advanceExact(target);
      }

      @Override
      public int docID() {
        return ords.docID();
      }

      @Override
      public int nextDoc() throws IOException {
        return ords.nextDoc();
      }

      @Override
      public int advance(int target) throws IOException {
        return ords.advance(target);
      }

      @Override
      public long cost() {
        return ords.cost();
      }
    };
  }

  /** One iterator's view of a field's terms dictionary: its ordinals' terms, looked up with one enum reused. */
  private final class TermsLookup {
    final TsdbTermsDictionary.Entry entry;
    private TsdbTermsDictionary.Terms lookup;

    TermsLookup(TsdbTermsDictionary.Entry entry) {
      this.entry = entry;
    }

    BytesRef lookup(long ord) throws IOException {
      if (lookup == null) {
        lookup = new TsdbTermsDictionary.Terms(entry, data);
      }
      lookup.seekExact(ord);
      return lookup.term();
    }

    TermsEnum termsEnum() throws IOException {
      return new TsdbTermsDictionary.Terms(entry, data);
    }
  }

  @Override
  public BinaryDocValues getBinary(FieldInfo field) {
    throw new IllegalStateException("no binary doc values are read from " + dataName + " (field '" + field.name + "')");
  }

  @Override
  public DocValuesSkipper getSkipper(FieldInfo field) throws IOException {
    TsdbSkipper.Entry entry = skippers.get(field.number);
    if (entry == null) {
      return null;
    }
    return new TsdbSkipper(entry, data.slice("skipper of field '" + field.name + "' of " + dataName, entry.offset(),
        entry.length()));
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
    return getClass().getSimpleName() + "(" + dataName + ")";
  }

  // ---- the metadata's entries

  /** A numeric field, or the ordinals of a sorted or sorted-set one. */
  static final class NumericEntry {
    String field;
    boolean ordinals;
    int ordinalBits;
    long numValues;
    int numDocsWithField;
    /** The block index's block shift, or {@link #SINGLE_ORDINAL} or {@link #ORDINAL_RANGES}. */
    int indexShift;
    DirectMonotonicReader.Meta indexMeta;
    int ordinalCount;
    DirectMonotonicReader.Meta rangesMeta;
    long indexOffset;
    long indexLength;
    long valuesOffset;
    long valuesLength;
    long docsWithFieldOffset;
    long docsWithFieldLength;
    short jumpTableEntryCount;
    byte denseRankPower;
    long addressesOffset;
    long addressesLength;
    DirectMonotonicReader.Meta addressesMeta;
  }

  record SortedEntry(NumericEntry ords, TsdbTermsDictionary.Entry terms) {}

  /** A single-valued sorted set ({@code single}), or a multi-valued one's ordinals and terms. */
  record SortedSetEntry(SortedEntry single, NumericEntry ords, TsdbTermsDictionary.Entry terms) {}

}
