/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import dev.permafrost.store.ColumnPrefetch;
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
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.LongValues;
import org.apache.lucene.util.packed.DirectMonotonicReader;
import org.apache.lucene.util.packed.PackedInts;

/**
 * Reads a segment's doc values in one of Elasticsearch's TSDB formats ({@link TsdbFormat}: {@code ES819TSDB},
 * {@code ES8193TSDB}, {@code ES95TSDB}), versions 0 to 8, as {@code ES819TSDBDocValuesFormat} describes them
 * ({@code ES95TSDBDocValuesFormat} what its name adds). The metadata is read whole at open (as Lucene's own
 * doc-values reader does: it is small and kept whole by the snapshot); the data and the skippers are read where a
 * search asks.
 *
 * <p>A field's columns, which a collector that names the field ({@link ColumnPrefetch}) has fetched whole: its
 * blocks of values or ordinals and its set of documents with a value, read in order through sequential slices opened
 * by {@link ColumnPrefetch#columnSlice}, and its block index and addresses, random-access slices; and a keyword's
 * terms dictionary if it is no larger than its ordinals (a terms aggregation reads every ordinal, then looks up its
 * buckets' terms). Not a column's: a larger terms dictionary (looked up term by term, through
 * {@link TsdbTermsDictionary}) and a skipper (read by a query that skips blocks of documents, a few intervals;
 * {@code ColumnPrefetch} never opens it).
 */
final class TsdbDocValuesProducer extends DocValuesProducer {
  private final Map<Integer, NumericEntry> numerics = new HashMap<>();
  private final Map<Integer, TsdbBinary.Entry> binaries = new HashMap<>();
  private final Map<Integer, SortedEntry> sorted = new HashMap<>();
  private final Map<Integer, SortedSetEntry> sortedSets = new HashMap<>();
  private final Map<Integer, NumericEntry> sortedNumerics = new HashMap<>();
  private final Map<Integer, TsdbSkipper.Entry> skippers = new HashMap<>();
  private final TsdbFormat format;
  private final IndexInput data;
  /** The skippers' file from {@link TsdbFormat#VERSION_SKIPPER_SEPARATE_FILE}, else null (they are in the data). */
  private final IndexInput skipData;
  private final String dataName;
  private final int maxDoc;
  /** The files' format version. Set before the fields are read. */
  private int version = -1;
  /**
   * The number of the segment's primary sort field, whose sorted entry ends with a partitions flag (from
   * {@link TsdbFormat#VERSION_PREFIX_PARTITIONS}), or -1.
   */
  private final int primarySortField;
  /** Values per block, as a shift: the metadata's from version 2, else 7. Set before the fields are read. */
  private int blockShift = TsdbFormat.DEFAULT_BLOCK_SHIFT;

  TsdbDocValuesProducer(SegmentReadState state, TsdbFormat format) throws IOException {
    this.format = format;
    String metaName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "dvm");
    this.dataName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "dvd");
    this.maxDoc = state.segmentInfo.maxDoc();
    this.primarySortField = primarySortField(state);
    try (ChecksumIndexInput meta = state.directory.openChecksumInput(metaName)) {
      Throwable prior = null;
      try {
        version = CodecUtil.checkIndexHeader(meta, format.metaCodec(), TsdbFormat.VERSION_START,
            TsdbFormat.VERSION_CURRENT, state.segmentInfo.getId(), state.segmentSuffix);
        if (version >= TsdbFormat.VERSION_NUMERIC_BLOCK_SHIFT) {
          blockShift = meta.readByte();
          if (blockShift != 7 && blockShift != 9) {
            throw new CorruptIndexException("numeric block shift " + blockShift + " (7 and 9 are read)", meta);
          }
        }
        readFields(meta, state);
        if (version < TsdbFormat.VERSION_SKIPPER_MAX_VALUE_COUNT) {
          inferMaxValueCounts(state);
        }
      } catch (Throwable t) {
        prior = t;
      } finally {
        CodecUtil.checkFooter(meta, prior);
      }
    }
    IndexInput in = state.directory.openInput(dataName, state.context);
    IndexInput skipIn = null;
    try {
      int dataVersion = CodecUtil.checkIndexHeader(in, format.dataCodec(), TsdbFormat.VERSION_START,
          TsdbFormat.VERSION_CURRENT, state.segmentInfo.getId(), state.segmentSuffix);
      if (dataVersion != version) {
        throw new CorruptIndexException("format versions differ: " + metaName + " " + version + ", " + dataName + " "
            + dataVersion, in);
      }
      CodecUtil.retrieveChecksum(in); // a truncated file fails now, not in a search
      if (version >= TsdbFormat.VERSION_SKIPPER_SEPARATE_FILE) {
        String skipName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "dvs");
        skipIn = state.directory.openInput(skipName, state.context);
        int skipVersion = CodecUtil.checkIndexHeader(skipIn, format.skipCodec(), TsdbFormat.VERSION_START,
            TsdbFormat.VERSION_CURRENT, state.segmentInfo.getId(), state.segmentSuffix);
        if (skipVersion != version) {
          throw new CorruptIndexException("format versions differ: " + metaName + " " + version + ", " + skipName
              + " " + skipVersion, skipIn);
        }
        CodecUtil.retrieveChecksum(skipIn);
      }
    } catch (Throwable t) {
      IOUtils.closeWhileHandlingException(in, skipIn);
      throw t;
    }
    this.data = in;
    this.skipData = skipIn;
  }

  /**
   * The segment's primary sort field: the first of its index sort if ascending and in the segment, else -1 (a
   * descending first sort, such as logsdb's {@code @timestamp}, has none).
   */
  private static int primarySortField(SegmentReadState state) {
    Sort sort = state.segmentInfo.getIndexSort();
    if (sort == null || sort.getSort().length == 0 || sort.getSort()[0].getReverse()) {
      return -1;
    }
    FieldInfo info = state.fieldInfos.fieldInfo(sort.getSort()[0].getField());
    return info == null ? -1 : info.number;
  }

  private void readFields(IndexInput meta, SegmentReadState state) throws IOException {
    for (int number = meta.readInt(); number != TsdbFormat.END_OF_FIELDS; number = meta.readInt()) {
      FieldInfo info = state.fieldInfos.fieldInfo(number);
      if (info == null) {
        throw new CorruptIndexException("field number " + number + " is not in the segment", meta);
      }
      byte type = meta.readByte();
      if (info.docValuesSkipIndexType() != DocValuesSkipIndexType.NONE) {
        skippers.put(number, readSkipper(meta, version));
      }
      String field = "field '" + info.name + "' of " + dataName;
      switch (type) {
        case TsdbFormat.NUMERIC -> numerics.put(number, readNumeric(meta, field, false));
        case TsdbFormat.BINARY -> binaries.put(number, TsdbBinary.readEntry(meta, version, field));
        case TsdbFormat.SORTED -> sorted.put(number, readSorted(meta, field, number == primarySortField));
        case TsdbFormat.SORTED_SET -> sortedSets.put(number, readSortedSet(meta, field, number == primarySortField));
        case TsdbFormat.SORTED_NUMERIC -> sortedNumerics.put(number, readSortedNumeric(meta, field, false));
        default -> throw new CorruptIndexException("doc-values type " + type + " of " + field, meta);
      }
    }
  }

  /** A skipper entry: where its intervals lie ({@code .dvs} from version 5, else {@code .dvd}) and its bounds. */
  private static TsdbSkipper.Entry readSkipper(IndexInput meta, int version) throws IOException {
    long offset = meta.readLong();
    long length = meta.readLong();
    long max = meta.readLong();
    long min = meta.readLong();
    int docCount = meta.readInt();
    int maxDocId = meta.readInt();
    int maxValueCount;
    if (version >= TsdbFormat.VERSION_SKIPPER_MAX_VALUE_COUNT) {
      maxValueCount = meta.readInt();
    } else {
      maxValueCount = docCount == 0 ? 0 : TsdbSkipper.UNKNOWN_VALUE_COUNT;
    }
    return new TsdbSkipper.Entry(offset, length, max, min, docCount, maxDocId, maxValueCount);
  }

  /**
   * Before {@link TsdbFormat#VERSION_SKIPPER_MAX_VALUE_COUNT}, a skipper's largest count of values in a document is
   * 1 where the field has one value a document (numeric and sorted fields, and sorted-numeric and sorted-set ones
   * with as many values as documents), else unknown: as Lucene infers it for its own files.
   */
  private void inferMaxValueCounts(SegmentReadState state) {
    for (var e : skippers.entrySet()) {
      TsdbSkipper.Entry entry = e.getValue();
      if (entry.maxValueCount() != TsdbSkipper.UNKNOWN_VALUE_COUNT) {
        continue;
      }
      FieldInfo info = state.fieldInfos.fieldInfo(e.getKey());
      boolean single = switch (info.getDocValuesType()) {
        case NUMERIC, SORTED -> true;
        case SORTED_NUMERIC -> {
          NumericEntry n = sortedNumerics.get(e.getKey());
          yield n != null && n.numValues == n.numDocsWithField;
        }
        case SORTED_SET -> {
          SortedSetEntry s = sortedSets.get(e.getKey());
          yield s != null && (s.single() != null || s.ords().numValues == s.ords().numDocsWithField);
        }
        default -> false;
      };
      if (single) {
        e.setValue(new TsdbSkipper.Entry(entry.offset(), entry.length(), entry.maxValue(), entry.minValue(),
            entry.docCount(), entry.maxDocId(), 1));
      }
    }
  }

  /**
   * A numeric entry: a numeric field's values, or a sorted or sorted-set field's ordinals (whose bits a packed block
   * takes are set from the terms' count once the dictionary is read).
   */
  private NumericEntry readNumeric(IndexInput meta, String field, boolean ordinals) throws IOException {
    NumericEntry e = new NumericEntry();
    e.field = field;
    e.ordinals = ordinals;
    e.numValues = meta.readLong();
    e.numDocsWithField = meta.readInt();
    if (e.numValues > 0) {
      e.indexShift = meta.readInt();
      if (e.indexShift == TsdbFormat.SINGLE_ORDINAL || e.indexShift == TsdbFormat.ORDINAL_RANGES) {
        if (!e.ordinals) {
          throw new CorruptIndexException("value encoding " + e.indexShift + " of " + field + " is one of ordinals, in"
              + " a numeric field", meta);
        }
        if (e.indexShift == TsdbFormat.ORDINAL_RANGES) {
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
        if (e.ordinals) {
          e.blockShift = format.numeric().readOrdinalBlockShift(meta, version, blockShift, field);
        } else {
          e.blocks = format.numeric().readField(meta, blockShift, field);
          e.blockShift = e.blocks.blockShift();
        }
        long blocks = 1 + ((e.numValues - 1) >>> e.blockShift);
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

  /**
   * A sorted entry (or a single-valued sorted set's): its ordinals and terms dictionary, the dictionary first from
   * {@link TsdbFormat#VERSION_PREFIX_PARTITIONS}, and then, for the segment's primary sort field, a flag byte and,
   * if 1, where its prefix partitions lie (read past: they serve Elasticsearch's own query engine only).
   */
  private SortedEntry readSorted(IndexInput meta, String field, boolean primarySort) throws IOException {
    if (version < TsdbFormat.VERSION_PREFIX_PARTITIONS) {
      NumericEntry ords = readNumeric(meta, field, true);
      return new SortedEntry(ords, readTerms(meta, ords));
    }
    TsdbTermsDictionary.Entry terms = TsdbTermsDictionary.readEntry(meta);
    NumericEntry ords = readNumeric(meta, field, true);
    ords.ordinalBits = ordinalBits(terms);
    if (primarySort) {
      readPartitions(meta, field);
    }
    return new SortedEntry(ords, terms);
  }

  private SortedSetEntry readSortedSet(IndexInput meta, String field, boolean primarySort) throws IOException {
    byte multiValued = meta.readByte();
    return switch (multiValued) {
      case 0 -> new SortedSetEntry(readSorted(meta, field, primarySort), null, null);
      case 1 -> {
        NumericEntry ords = readSortedNumeric(meta, field, true);
        yield new SortedSetEntry(null, ords, readTerms(meta, ords));
      }
      default -> throw new CorruptIndexException("multi-valued flag " + multiValued + " of " + field, meta);
    };
  }

  /** The terms dictionary that follows {@code ords}' entry, whose packed blocks' bits it sets. */
  private static TsdbTermsDictionary.Entry readTerms(IndexInput meta, NumericEntry ords) throws IOException {
    TsdbTermsDictionary.Entry terms = TsdbTermsDictionary.readEntry(meta);
    ords.ordinalBits = ordinalBits(terms);
    return terms;
  }

  /** The bits a packed block of ordinals takes: {@code bitsRequired(terms - 1)}. */
  private static int ordinalBits(TsdbTermsDictionary.Entry terms) {
    return PackedInts.bitsRequired(Math.max(0, terms.size() - 1));
  }

  /** A partitioned flag, and if set where the partitions lie: each parsed, checked and skipped. */
  private void readPartitions(IndexInput meta, String field) throws IOException {
    byte partitioned = meta.readByte();
    if (partitioned == TsdbFormat.PARTITIONED) {
      int bits = meta.readByte();
      long start = meta.readLong();
      long length = meta.readVLong();
      if (bits < 1 || bits > 64 || start < 0 || length < 0) {
        throw new CorruptIndexException("prefix partitions of " + bits + " bits at " + start + ", " + length
            + " bytes, of " + field, meta);
      }
    } else if (partitioned != TsdbFormat.NOT_PARTITIONED) {
      throw new CorruptIndexException("partitioned flag " + partitioned + " of " + field + " (0 or 1)", meta);
    }
  }

  // ---- reading values

  /** The values of one field by index: the n-th value of the field, in document order. */
  private interface IndexedValues {
    long get(long index) throws IOException;
  }

  /**
   * A field's values read a block at a time, the last block decoded kept: numeric blocks as the format's numeric
   * codec decodes them, ordinal blocks as every format writes them ({@link TsdbBlocks#decodeOrdinals}).
   */
  private final class BlockValues implements IndexedValues {
    private final NumericEntry entry;
    private final TsdbNumericCodec.BlockDecoder decoder;
    private final LongValues blockStarts;
    private final IndexInput values;
    private final long[] buffer;
    private final int shift;
    private final int mask;
    private long block = -1;

    BlockValues(NumericEntry entry) throws IOException {
      this.entry = entry;
      this.shift = entry.blockShift;
      if (entry.ordinals) {
        TsdbBlocks blocks = new TsdbBlocks(1 << shift, entry.field);
        this.decoder = (in, block, out) -> blocks.decodeOrdinals(in, entry.ordinalBits, out);
      } else {
        this.decoder = entry.blocks.decoder();
      }
      this.blockStarts = DirectMonotonicReader.getInstance(entry.indexMeta,
          data.randomAccessSlice(entry.indexOffset, entry.indexLength));
      // read in order, block after block: a column's, fetched whole when a collector names the field
      this.values = ColumnPrefetch.columnSlice(data, "values of " + entry.field, entry.valuesOffset,
          entry.valuesLength);
      this.buffer = new long[1 << shift];
      this.mask = (1 << shift) - 1;
    }

    @Override
    public long get(long index) throws IOException {
      assert index >= 0 && index < entry.numValues : index + " of " + entry.numValues + " values of " + entry.field;
      long b = index >>> shift;
      if (b != block) {
        block = -1; // until the block is decoded whole
        values.seek(blockStarts.get(b));
        decoder.decode(values, b, buffer);
        block = b;
      }
      return buffer[(int) (index & mask)];
    }
  }

  private IndexedValues values(NumericEntry entry) throws IOException {
    if (entry.indexShift == TsdbFormat.SINGLE_ORDINAL) {
      return index -> 0L;
    }
    if (entry.indexShift == TsdbFormat.ORDINAL_RANGES) {
      return new OrdinalRanges(entry);
    }
    return new BlockValues(entry);
  }

  /**
   * The ordinals of a field written as each ordinal's first value ({@link TsdbFormat#ORDINAL_RANGES}): the n-th value's ordinal
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

  /** The documents with a value: all ({@link TsdbFormat#ALL_DOCS}), or those of the field's doc-id set. */
  private DocIdSetIterator docs(NumericEntry entry) throws IOException {
    return docs(entry.docsWithFieldOffset, entry.docsWithFieldLength, entry.jumpTableEntryCount,
        entry.denseRankPower, entry.numDocsWithField);
  }

  private DocIdSetIterator docs(long offset, long length, short jumpTableEntryCount, byte denseRankPower, int count)
      throws IOException {
    if (offset == TsdbFormat.ALL_DOCS) {
      return DocIdSetIterator.all(maxDoc);
    }
    // the set's blocks are read in order as the documents are: a column's, as its values are (its jump table, at its
    // end, is a random-access slice of this one)
    IndexInput set = ColumnPrefetch.columnSlice(data, "documents with a value", offset, length);
    return new IndexedDISI(set, 0, length, jumpTableEntryCount, denseRankPower, count);
  }

  @Override
  public NumericDocValues getNumeric(FieldInfo field) throws IOException {
    return numeric(numerics.get(field.number));
  }

  private NumericDocValues numeric(NumericEntry entry) throws IOException {
    if (entry == null || entry.docsWithFieldOffset == TsdbFormat.NO_DOCS || entry.numValues == 0) {
      return DocValues.emptyNumeric();
    }
    IndexedValues values = values(entry);
    DocIdSetIterator docs = docs(entry);
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
    DocIdSetIterator docs = docs(entry);
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
    TermsLookup terms = new TermsLookup(entry.terms(), entry.ords());
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
    TermsLookup terms = new TermsLookup(entry.terms(), entry.ords());
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

  /**
   * One iterator's view of a field's terms dictionary: its ordinals' terms, looked up with one enum reused.
   *
   * <p>A dictionary no larger than the field's ordinals is a column's: its slices are opened with the view, its blocks
   * through {@link ColumnPrefetch#columnSlice} and their addresses as a random-access slice, so that a collector that
   * names the field to {@link ColumnPrefetch} (a terms aggregation, which reads every ordinal, then looks up its
   * buckets' terms) has it fetched whole with the ordinals, in their wave, at most doubling their bytes, instead of an
   * address, then a block, then the next, as it looks its terms up. A larger dictionary is sliced when a term is first
   * looked up, and read as it is looked up.
   */
  private final class TermsLookup {
    final TsdbTermsDictionary.Entry entry;
    /** The dictionary's slices, opened with the view (a column's), or null: opened at the first lookup. */
    private final RandomAccessInput addresses;
    private final IndexInput blocks;
    private TsdbTermsDictionary.Terms lookup;

    TermsLookup(TsdbTermsDictionary.Entry entry, NumericEntry ords) throws IOException {
      this.entry = entry;
      if (entry.dataLength() + entry.addressesLength() <= ords.valuesLength) {
        addresses = data.randomAccessSlice(entry.addressesOffset(), entry.addressesLength());
        blocks = ColumnPrefetch.columnSlice(data, "terms dictionary", entry.dataOffset(), entry.dataLength());
      } else {
        addresses = null;
        blocks = null;
      }
    }

    BytesRef lookup(long ord) throws IOException {
      if (lookup == null) {
        lookup = terms();
      }
      lookup.seekExact(ord);
      return lookup.term();
    }

    TermsEnum termsEnum() throws IOException {
      return terms();
    }

    private TsdbTermsDictionary.Terms terms() throws IOException {
      return blocks == null ? new TsdbTermsDictionary.Terms(entry, data)
          : new TsdbTermsDictionary.Terms(entry, addresses, blocks.clone());
    }
  }

  @Override
  public BinaryDocValues getBinary(FieldInfo field) throws IOException {
    TsdbBinary.Entry entry = binaries.get(field.number);
    if (entry == null || entry.docsWithFieldOffset == TsdbFormat.NO_DOCS || entry.numDocsWithField == 0) {
      return DocValues.emptyBinary();
    }
    TsdbBinary.Values values = TsdbBinary.values(entry, data, format.docOffsets());
    DocIdSetIterator docs = docs(entry.docsWithFieldOffset, entry.docsWithFieldLength, entry.jumpTableEntryCount,
        entry.denseRankPower, entry.numDocsWithField);
    IndexedDISI sparse = docs instanceof IndexedDISI d ? d : null;
    return new BinaryDocValues() {
      @Override
      public BytesRef binaryValue() throws IOException {
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
  public DocValuesSkipper getSkipper(FieldInfo field) throws IOException {
    TsdbSkipper.Entry entry = skippers.get(field.number);
    if (entry == null) {
      return null;
    }
    IndexInput in = skipData != null ? skipData : data;
    return new TsdbSkipper(entry, in.slice("skipper of field '" + field.name + "' of " + in, entry.offset(),
        entry.length()));
  }

  @Override
  public void checkIntegrity() throws IOException {
    CodecUtil.checksumEntireFile(data);
    if (skipData != null) {
      CodecUtil.checksumEntireFile(skipData);
    }
  }

  @Override
  public void close() throws IOException {
    IOUtils.close(data, skipData);
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
    /** The block index's block shift, or {@link TsdbFormat#SINGLE_ORDINAL} or {@link TsdbFormat#ORDINAL_RANGES}. */
    int indexShift;
    /** Values per block, as a shift (blocks only). */
    int blockShift;
    /** How a numeric field's blocks decode (numeric blocks only). */
    TsdbNumericCodec.FieldBlocks blocks;
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
