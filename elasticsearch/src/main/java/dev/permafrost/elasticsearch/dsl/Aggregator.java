/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.DoubleTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.FilterBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.HistogramBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.LongTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.RangeBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.Stats;
import dev.permafrost.elasticsearch.dsl.AggPartial.StringTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.TermCounts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReaderContext;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.ArrayUtil;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.BytesRefHash;
import org.apache.lucene.util.NumericUtils;

/**
 * One aggregation's state over the documents of one slice (one thread). A document is collected into a bucket of
 * the parent aggregation, its ordinal ({@code 0} at the top level), as in a tree of bucket aggregations each bucket
 * gets an ordinal its sub-aggregations are collected with. After the search each aggregator {@link #build builds}
 * mergeable partial results, one {@link AggPartial} kind per aggregation kind, that the reduce merges across slices
 * and {@link AggSpec} renders.
 */
abstract class Aggregator {
  /** The sub-aggregators, collected with this aggregator's bucket ordinals. */
  final Aggregator[] subs;

  Aggregator(Aggregator[] subs) {
    this.subs = subs;
  }

  /** A new segment: open its doc values (already prefetched). */
  abstract void setLeaf(LeafReaderContext context) throws IOException;

  /**
   * Collects {@code doc} into the parent's bucket {@code ord}. Within a segment documents come in increasing order,
   * one document possibly several times in a row (into different parent buckets).
   */
  abstract void collect(int doc, int ord) throws IOException;

  /** The segment is done; its reader is still open. */
  void finishLeaf() throws IOException {}

  /** The partial result of each parent bucket ordinal below {@code ords} (null where nothing was collected). */
  abstract AggPartial<?>[] build(int ords);

  // ---- values -------------------------------------------------------------------------------------------------

  /** How a field's sorted-numeric doc values encode its numbers. */
  enum Encoding {
    /** Longs and the like (integer, short, byte, date in milliseconds, boolean). */
    LONG,
    /** Doubles as sortable longs. */
    DOUBLE,
    /** Floats as sortable ints. */
    FLOAT,
    /** Keywords: ordinals of sorted-set doc values. */
    ORDINALS;

    double decode(long value) {
      return switch (this) {
        case DOUBLE -> NumericUtils.sortableLongToDouble(value);
        case FLOAT -> NumericUtils.sortableIntToFloat((int) value);
        default -> value;
      };
    }
  }

  /**
   * A document's values of one field, loaded once per document (a document may be collected several times in a
   * row): sorted-numeric values (nanoseconds taken to milliseconds), or sorted-set ordinals, in ascending order. A
   * document without any gets the {@code missing} value if there is one ({@code -1} for a keyword, which stands for
   * the missing term).
   */
  static final class FieldValues {
    final String field;
    final Encoding encoding;
    final boolean nanos;
    final boolean hasMissing;
    final long missing;
    SortedNumericDocValues numbers;
    SortedSetDocValues ordinals;
    long[] values = new long[4];
    int count;
    private int doc = -1;

    /** {@code field} null: an unmapped field, which has no values. */
    FieldValues(String field, Encoding encoding, boolean nanos, boolean hasMissing, long missing) {
      this.field = field;
      this.encoding = encoding;
      this.nanos = nanos;
      this.hasMissing = hasMissing;
      this.missing = missing;
    }

    void setLeaf(LeafReader reader) throws IOException {
      doc = -1;
      if (field == null) {
        return;
      }
      if (encoding == Encoding.ORDINALS) {
        ordinals = DocValues.getSortedSet(reader, field);
      } else {
        numbers = DocValues.getSortedNumeric(reader, field);
      }
    }

    /** Loads {@code doc}'s values into {@link #values}; returns how many. */
    int load(int target) throws IOException {
      if (target == doc) {
        return count;
      }
      doc = target;
      count = 0;
      if (ordinals != null) {
        if (ordinals.advanceExact(target)) {
          int n = ordinals.docValueCount();
          if (n > values.length) {
            values = new long[ArrayUtil.oversize(n, Long.BYTES)];
          }
          for (int i = 0; i < n; i++) {
            values[i] = ordinals.nextOrd();
          }
          count = n;
        }
      } else if (numbers != null && numbers.advanceExact(target)) {
        int n = numbers.docValueCount();
        if (n > values.length) {
          values = new long[ArrayUtil.oversize(n, Long.BYTES)];
        }
        for (int i = 0; i < n; i++) {
          long v = numbers.nextValue();
          values[i] = nanos ? Math.floorDiv(v, 1_000_000L) : v;
        }
        count = n;
      }
      if (count == 0 && hasMissing) {
        values[0] = missing;
        count = 1;
      }
      return count;
    }
  }

  // ---- metrics ------------------------------------------------------------------------------------------------

  /** Count, sum, min and max of a field's values per parent bucket (a keyword's values are only counted). */
  static final class Metric extends Aggregator {
    private final FieldValues values;
    private Stats[] stats = new Stats[1];

    Metric(FieldValues values) {
      super(new Aggregator[0]);
      this.values = values;
    }

    @Override
    void setLeaf(LeafReaderContext context) throws IOException {
      values.setLeaf(context.reader());
    }

    @Override
    void collect(int doc, int ord) throws IOException {
      int n = values.load(doc);
      if (n == 0) {
        return;
      }
      if (ord >= stats.length) {
        stats = ArrayUtil.grow(stats, ord + 1);
      }
      Stats s = stats[ord];
      if (s == null) {
        s = stats[ord] = new Stats();
      }
      if (values.encoding == Encoding.ORDINALS) {
        s.count += n;
        return;
      }
      long[] v = values.values;
      for (int i = 0; i < n; i++) {
        s.add(values.encoding.decode(v[i]));
      }
    }

    @Override
    AggPartial<?>[] build(int ords) {
      return Arrays.copyOf(stats, ords, AggPartial[].class);
    }
  }

  // ---- buckets ------------------------------------------------------------------------------------------------

  /**
   * A bucket aggregation: each bucket an ordinal, with its parent's ordinal, its key (a long) and its document
   * count. Keyed buckets find their ordinal in a hash of (parent, key), the last one found kept at hand. Built, each
   * parent's buckets are a {@code P} keyed by what each long key stands for.
   */
  abstract static class BucketAggregator<P extends AggPartial.Keyed<?, P>> extends Aggregator {
    long[] docCounts = new long[16];
    int[] parents = new int[16];
    long[] keys = new long[16];
    int ordCount;
    private OrdHash hash;
    private int lastParent = -1;
    private long lastKey;
    private int lastOrd;

    BucketAggregator(Aggregator[] subs) {
      super(subs);
    }

    /** A new bucket ordinal. */
    final int newOrd(int parent, long key) {
      if (ordCount == docCounts.length) {
        int size = ArrayUtil.oversize(ordCount + 1, Long.BYTES);
        docCounts = Arrays.copyOf(docCounts, size);
        parents = Arrays.copyOf(parents, size);
        keys = Arrays.copyOf(keys, size);
      }
      parents[ordCount] = parent;
      keys[ordCount] = key;
      return ordCount++;
    }

    /** The ordinal of the bucket with {@code key} under {@code parent}, made if new. */
    final int keyedOrd(int parent, long key) {
      if (parent == lastParent && key == lastKey) {
        return lastOrd;
      }
      if (hash == null) {
        hash = new OrdHash();
      }
      int ord = hash.get(parent, key);
      if (ord < 0) {
        ord = newOrd(parent, key);
        hash.put(parent, key, ord);
      }
      lastParent = parent;
      lastKey = key;
      lastOrd = ord;
      return ord;
    }

    /** The ordinal of bucket {@code index} of {@code n} fixed ones (ranges, filters) under {@code parent}. */
    final int fixedOrd(int parent, int index, int n) {
      int ord = parent * n + index;
      while (ordCount <= ord) {
        newOrd(ordCount / n, ordCount % n);
      }
      return ord;
    }

    final void collectBucket(int doc, int ord) throws IOException {
      docCounts[ord]++;
      for (Aggregator sub : subs) {
        sub.collect(doc, ord);
      }
    }

    /** A parent's buckets, empty. */
    abstract P newBuckets();

    /** Puts {@code bucket} into {@code buckets} under what its long {@code key} stands for. */
    abstract void put(P buckets, long key, Bucket bucket);

    @Override
    AggPartial<?>[] build(int ords) {
      AggPartial<?>[][] subParts = new AggPartial<?>[subs.length][];
      for (int i = 0; i < subs.length; i++) {
        subParts[i] = subs[i].build(ordCount);
      }
      List<P> byParent = new ArrayList<>(ords);
      for (int i = 0; i < ords; i++) {
        byParent.add(null);
      }
      for (int ord = 0; ord < ordCount; ord++) {
        int parent = parents[ord];
        if (parent >= ords) {
          continue;
        }
        P buckets = byParent.get(parent);
        if (buckets == null) {
          buckets = newBuckets();
          byParent.set(parent, buckets);
        }
        AggPartial<?>[] subsOfBucket = new AggPartial<?>[subs.length];
        for (int i = 0; i < subs.length; i++) {
          subsOfBucket[i] = subParts[i][ord];
        }
        put(buckets, keys[ord], new Bucket(docCounts[ord], subsOfBucket));
      }
      return byParent.toArray(AggPartial<?>[]::new);
    }
  }

  /** Open addressing from (parent ordinal, key) to a bucket ordinal. */
  static final class OrdHash {
    private int[] parents = new int[32];
    private long[] keys = new long[32];
    private int[] ords = filled(32);
    private int size;

    private static int[] filled(int n) {
      int[] a = new int[n];
      Arrays.fill(a, -1);
      return a;
    }

    private static int slot(int parent, long key, int mask) {
      long h = (key ^ (key >>> 32)) * 0x9E3779B97F4A7C15L + parent * 0xC2B2AE3D27D4EB4FL;
      return (int) (h ^ (h >>> 29)) & mask;
    }

    int get(int parent, long key) {
      int mask = ords.length - 1;
      for (int s = slot(parent, key, mask); ; s = (s + 1) & mask) {
        if (ords[s] < 0) {
          return -1;
        }
        if (keys[s] == key && parents[s] == parent) {
          return ords[s];
        }
      }
    }

    void put(int parent, long key, int ord) {
      if (2 * (size + 1) > ords.length) {
        int[] oldParents = parents;
        long[] oldKeys = keys;
        int[] oldOrds = ords;
        parents = new int[oldOrds.length * 2];
        keys = new long[oldOrds.length * 2];
        ords = filled(oldOrds.length * 2);
        size = 0;
        for (int i = 0; i < oldOrds.length; i++) {
          if (oldOrds[i] >= 0) {
            put(oldParents[i], oldKeys[i], oldOrds[i]);
          }
        }
      }
      int mask = ords.length - 1;
      int s = slot(parent, key, mask);
      while (ords[s] >= 0) {
        s = (s + 1) & mask;
      }
      parents[s] = parent;
      keys[s] = key;
      ords[s] = ord;
      size++;
    }
  }

  /**
   * Histogram buckets: a value's bucket index is computed arithmetically (fixed intervals, numeric histograms) or by
   * a {@link DateRounding} (whose last bucket is kept at hand: consecutive values mostly share it). Under parent 0
   * the ordinal of an index near the first one seen is found in an array, not a hash.
   */
  static final class Histogram extends BucketAggregator<HistogramBuckets> {
    /** The most dense slots before falling back to the hash. */
    private static final int DENSE_SLOTS = 1 << 16;
    private final FieldValues values;
    /** A date rounding, null for a numeric histogram. */
    private final DateRounding rounding;
    private final long dateInterval;
    private final long dateOrigin;
    private final double interval;
    private final double offset;
    private long lastStart = 1;
    private long lastEnd = 0;
    private boolean based;
    private long base;
    private int[] slotOrds = new int[0];

    Histogram(FieldValues values, DateRounding rounding, double interval, double offset, Aggregator[] subs) {
      super(subs);
      this.values = values;
      this.rounding = rounding;
      this.dateInterval = rounding == null ? 0 : rounding.interval();
      this.dateOrigin = rounding == null ? 0 : rounding.origin();
      this.interval = interval;
      this.offset = offset;
    }

    @Override
    void setLeaf(LeafReaderContext context) throws IOException {
      values.setLeaf(context.reader());
    }

    /** The bucket index of a value: arithmetic indices, or a date rounding's key. */
    private long index(long value) {
      if (dateInterval > 0) {
        return Math.floorDiv(value - dateOrigin, dateInterval);
      }
      if (rounding == null) {
        return (long) Math.floor((values.encoding.decode(value) - offset) / interval);
      }
      if (value >= lastStart && value < lastEnd) {
        return lastStart;
      }
      long key = rounding.round(value);
      lastStart = key;
      lastEnd = rounding.next(key);
      return key;
    }

    @Override
    void collect(int doc, int parent) throws IOException {
      int n = values.load(doc);
      long[] v = values.values;
      long previous = 0;
      for (int i = 0; i < n; i++) {
        long index = index(v[i]);
        if (i > 0 && index == previous) {
          continue; // a document counts once per bucket
        }
        previous = index;
        collectBucket(doc, parent == 0 && (rounding == null || dateInterval > 0) ? denseOrd(index)
            : keyedOrd(parent, index));
      }
    }

    private int denseOrd(long index) {
      if (!based) {
        based = true;
        base = index;
      }
      long d = index - base;
      long slot = d >= 0 ? 2 * d : -2 * d - 1;
      if (slot < 0 || slot >= DENSE_SLOTS) {
        return keyedOrd(0, index);
      }
      int s = (int) slot;
      if (s >= slotOrds.length) {
        slotOrds = ArrayUtil.grow(slotOrds, s + 1);
      }
      int ord = slotOrds[s] - 1;
      if (ord < 0) {
        ord = newOrd(0, index);
        slotOrds[s] = ord + 1;
      }
      return ord;
    }

    @Override
    HistogramBuckets newBuckets() {
      return new HistogramBuckets();
    }

    @Override
    void put(HistogramBuckets buckets, long index, Bucket bucket) {
      // a date's key, or a numeric index
      buckets.map.put(dateInterval > 0 ? index * dateInterval + dateOrigin : index, bucket);
    }
  }

  /**
   * Terms of a keyword field. Without sub-aggregations at the top level, counts by segment ordinal and turns the
   * counted ordinals into terms when the segment ends; otherwise each segment ordinal is given a slice-wide term id
   * the first time it is seen, and buckets are keyed by it.
   */
  static final class KeywordTerms extends BucketAggregator<StringTerms> {
    private final FieldValues values;
    private final boolean counting;
    private final BytesRef missingTerm;
    private final BytesRefHash terms = new BytesRefHash();
    private final BytesRef scratch = new BytesRef();
    private int[] segmentCounts;
    private long segmentMissing;
    private int[] segmentTerms;
    /** The counting path's runs, one per segment, and its documents without a value. */
    private final TermCounts counted = new TermCounts();
    private long missingCount;
    /** {@code min_doc_count: 0}: every term of every segment's terms dictionary has a bucket, 0 if nothing matched. */
    private final boolean everyTerm;

    KeywordTerms(FieldValues values, BytesRef missingTerm, boolean topLevel, boolean everyTerm, Aggregator[] subs) {
      super(subs);
      this.values = values;
      this.missingTerm = missingTerm;
      this.counting = topLevel && subs.length == 0;
      this.everyTerm = everyTerm;
    }

    @Override
    void setLeaf(LeafReaderContext context) throws IOException {
      values.setLeaf(context.reader());
      int valueCount = values.ordinals == null ? 0 : Math.toIntExact(values.ordinals.getValueCount());
      if (counting) {
        segmentCounts = new int[valueCount];
        segmentMissing = 0;
      } else {
        segmentTerms = new int[valueCount];
        if (everyTerm) {
          for (int ord = 0; ord < valueCount; ord++) {
            termId(ord); // known: a bucket under every parent when built
          }
        }
      }
    }

    @Override
    void collect(int doc, int parent) throws IOException {
      int n = values.load(doc);
      long[] v = values.values;
      if (counting) {
        for (int i = 0; i < n; i++) {
          if (v[i] < 0) {
            segmentMissing++;
          } else {
            segmentCounts[(int) v[i]]++;
          }
        }
        return;
      }
      for (int i = 0; i < n; i++) {
        collectBucket(doc, keyedOrd(parent, termId(v[i])));
      }
    }

    private int termId(long ord) throws IOException {
      if (ord < 0) {
        return id(terms.add(missingTerm));
      }
      int id = segmentTerms[(int) ord] - 1;
      if (id < 0) {
        id = id(terms.add(values.ordinals.lookupOrd(ord)));
        segmentTerms[(int) ord] = id + 1;
      }
      return id;
    }

    private static int id(int added) {
      return added < 0 ? -added - 1 : added;
    }

    @Override
    void finishLeaf() throws IOException {
      if (!counting || segmentCounts == null) {
        return;
      }
      int n = 0;
      for (int c : segmentCounts) {
        n += c > 0 || everyTerm ? 1 : 0;
      }
      BytesRef[] runTerms = new BytesRef[n];
      long[] runCounts = new long[n];
      int i = 0;
      for (int ord = 0; ord < segmentCounts.length; ord++) { // ascending: the terms dictionary is read forward once
        if (segmentCounts[ord] > 0 || everyTerm) {
          runTerms[i] = BytesRef.deepCopyOf(values.ordinals.lookupOrd(ord));
          runCounts[i++] = segmentCounts[ord];
        }
      }
      counted.addRun(runTerms, runCounts);
      missingCount += segmentMissing;
      segmentCounts = null;
    }

    @Override
    StringTerms newBuckets() {
      return new StringTerms();
    }

    @Override
    void put(StringTerms buckets, long termId, Bucket bucket) {
      buckets.map.put(terms.get((int) termId, scratch).utf8ToString(), bucket);
    }

    @Override
    AggPartial<?>[] build(int ords) {
      if (!counting) {
        if (everyTerm) {
          int known = terms.size();
          for (int parent = 0; parent < ords; parent++) {
            for (int id = 0; id < known; id++) {
              keyedOrd(parent, id);
            }
          }
        }
        return super.build(ords);
      }
      if (missingCount > 0) {
        counted.addRun(new BytesRef[] {missingTerm}, new long[] {missingCount});
        missingCount = 0;
      }
      AggPartial<?>[] out = new AggPartial<?>[ords];
      out[0] = counted;
      return out;
    }
  }

  /**
   * Terms of a numeric or date field, keyed by the value as its doc values hold it (doubles decoded at the end):
   * {@link LongTerms} or {@link DoubleTerms} by the field's encoding.
   */
  abstract static sealed class NumericTerms<P extends AggPartial.Keyed<?, P>> extends BucketAggregator<P>
      permits NumericTerms.Longs, NumericTerms.Doubles {
    final FieldValues values;
    /**
     * {@code min_doc_count: 0}: the values of every document of every segment, deleted ones too (as the node reads
     * them), each a bucket under every parent when built, 0 if nothing matched; else null.
     */
    private final Set<Long> everyValue;

    /** The terms aggregator of {@code values}' encoding. */
    static NumericTerms<?> of(FieldValues values, boolean everyValue, Aggregator[] subs) {
      return values.encoding == Encoding.LONG ? new Longs(values, everyValue, subs)
          : new Doubles(values, everyValue, subs);
    }

    NumericTerms(FieldValues values, boolean everyValue, Aggregator[] subs) {
      super(subs);
      this.values = values;
      this.everyValue = everyValue ? new HashSet<>() : null;
    }

    @Override
    void setLeaf(LeafReaderContext context) throws IOException {
      if (everyValue != null) {
        values.setLeaf(context.reader());
        for (int doc = 0; doc < context.reader().maxDoc(); doc++) {
          int n = values.load(doc);
          for (int i = 0; i < n; i++) {
            everyValue.add(values.values[i]);
          }
        }
      }
      values.setLeaf(context.reader()); // afresh: doc values go forward only
    }

    @Override
    AggPartial<?>[] build(int ords) {
      if (everyValue != null) {
        for (int parent = 0; parent < ords; parent++) {
          for (long value : everyValue) {
            keyedOrd(parent, value);
          }
        }
      }
      return super.build(ords);
    }

    @Override
    void collect(int doc, int parent) throws IOException {
      int n = values.load(doc);
      long[] v = values.values;
      for (int i = 0; i < n; i++) {
        if (i > 0 && v[i] == v[i - 1]) {
          continue; // a document counts once per term
        }
        collectBucket(doc, keyedOrd(parent, v[i]));
      }
    }

    /** Longs, integers, dates and booleans. */
    static final class Longs extends NumericTerms<LongTerms> {
      Longs(FieldValues values, boolean everyValue, Aggregator[] subs) {
        super(values, everyValue, subs);
      }

      @Override
      LongTerms newBuckets() {
        return new LongTerms();
      }

      @Override
      void put(LongTerms buckets, long value, Bucket bucket) {
        buckets.map.put(value, bucket);
      }
    }

    /** Doubles and floats, decoded. */
    static final class Doubles extends NumericTerms<DoubleTerms> {
      Doubles(FieldValues values, boolean everyValue, Aggregator[] subs) {
        super(values, everyValue, subs);
      }

      @Override
      DoubleTerms newBuckets() {
        return new DoubleTerms();
      }

      @Override
      void put(DoubleTerms buckets, long value, Bucket bucket) {
        buckets.map.put(values.encoding.decode(value), bucket);
      }
    }
  }

  /** Ranges {@code [from, to)} of a field's values; a document counts once per range it has a value in. */
  static final class Range extends BucketAggregator<RangeBuckets> {
    private final FieldValues values;
    private final double[] from;
    private final double[] to;
    private double[] decoded = new double[4];

    Range(FieldValues values, double[] from, double[] to, Aggregator[] subs) {
      super(subs);
      this.values = values;
      this.from = from;
      this.to = to;
    }

    @Override
    void setLeaf(LeafReaderContext context) throws IOException {
      values.setLeaf(context.reader());
    }

    @Override
    void collect(int doc, int parent) throws IOException {
      int n = values.load(doc);
      if (n == 0) {
        return;
      }
      if (n > decoded.length) {
        decoded = new double[ArrayUtil.oversize(n, Double.BYTES)];
      }
      for (int i = 0; i < n; i++) {
        decoded[i] = values.encoding.decode(values.values[i]);
      }
      for (int r = 0; r < from.length; r++) {
        for (int i = 0; i < n; i++) {
          if (decoded[i] >= from[r] && decoded[i] < to[r]) {
            collectBucket(doc, fixedOrd(parent, r, from.length));
            break;
          }
        }
      }
    }

    @Override
    RangeBuckets newBuckets() {
      return new RangeBuckets();
    }

    @Override
    void put(RangeBuckets buckets, long index, Bucket bucket) {
      buckets.map.put((int) index, bucket);
    }
  }

  /**
   * Documents matching each of some queries (a {@code filter} is one), and optionally those matching none. Each
   * query's weight is made once per slice, over the top-level reader of the segments.
   */
  static final class Filters extends BucketAggregator<FilterBuckets> {
    private final Query[] queries;
    private final boolean other;
    private final int n;
    private final Matcher[] matchers;
    private Weight[] weights;
    private IndexReaderContext top;

    Filters(Query[] queries, boolean other, Aggregator[] subs) {
      super(subs);
      this.queries = queries;
      this.other = other;
      this.n = queries.length + (other ? 1 : 0);
      this.matchers = new Matcher[queries.length];
    }

    @Override
    void setLeaf(LeafReaderContext context) throws IOException {
      IndexReaderContext topContext = ReaderUtil.getTopLevelContext(context);
      if (weights == null || top != topContext) {
        IndexSearcher searcher = new IndexSearcher(topContext);
        searcher.setQueryCache(null);
        weights = new Weight[queries.length];
        for (int i = 0; i < queries.length; i++) {
          weights[i] = searcher.createWeight(searcher.rewrite(queries[i]), ScoreMode.COMPLETE_NO_SCORES, 1f);
        }
        top = topContext;
      }
      for (int i = 0; i < queries.length; i++) {
        matchers[i] = new Matcher(weights[i].scorerSupplier(context));
      }
    }

    @Override
    void collect(int doc, int parent) throws IOException {
      boolean any = false;
      for (int i = 0; i < matchers.length; i++) {
        if (matchers[i].matches(doc)) {
          any = true;
          collectBucket(doc, fixedOrd(parent, i, n));
        }
      }
      if (other && !any) {
        collectBucket(doc, fixedOrd(parent, queries.length, n));
      }
    }

    @Override
    FilterBuckets newBuckets() {
      return new FilterBuckets();
    }

    @Override
    void put(FilterBuckets buckets, long index, Bucket bucket) {
      buckets.map.put((int) index, bucket);
    }
  }

  /** Whether documents of a segment, in increasing order, match a query. */
  static final class Matcher {
    private final DocIdSetIterator approximation;
    private final TwoPhaseIterator twoPhase;
    private int lastDoc = -1;
    private boolean lastMatch;

    Matcher(ScorerSupplier supplier) throws IOException {
      if (supplier == null) {
        approximation = null;
        twoPhase = null;
        return;
      }
      Scorer scorer = supplier.get(Long.MAX_VALUE);
      twoPhase = scorer.twoPhaseIterator();
      approximation = twoPhase == null ? scorer.iterator() : twoPhase.approximation();
    }

    boolean matches(int doc) throws IOException {
      if (doc == lastDoc) {
        return lastMatch;
      }
      lastDoc = doc;
      if (approximation == null) {
        return lastMatch = false;
      }
      int at = approximation.docID();
      if (at < doc) {
        at = approximation.advance(doc);
      }
      lastMatch = at == doc && (twoPhase == null || twoPhase.matches());
      return lastMatch;
    }
  }
}
