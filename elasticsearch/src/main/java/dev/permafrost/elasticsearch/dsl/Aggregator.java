/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 * mergeable partial results ({@link Stats}, {@link Bucket}, {@link Buckets}) that the reduce {@link #merge merges}
 * across slices and {@link AggSpec} renders.
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
  abstract Object[] build(int ords);

  // ---- partial results --------------------------------------------------------------------------------------

  /** Values seen: count, compensated (Kahan) sum, min, max. */
  static final class Stats {
    long count;
    double sum;
    double compensation;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;

    void add(double value) {
      count++;
      addToSum(value);
      min = Math.min(min, value);
      max = Math.max(max, value);
    }

    private void addToSum(double value) {
      if (!Double.isFinite(value) || !Double.isFinite(sum)) {
        sum += value;
        return;
      }
      double corrected = value - compensation;
      double next = sum + corrected;
      compensation = (next - sum) - corrected;
      sum = next;
    }

    void merge(Stats other) {
      count += other.count;
      addToSum(other.sum);
      addToSum(-other.compensation);
      min = Math.min(min, other.min);
      max = Math.max(max, other.max);
    }
  }

  /** One bucket: its document count and its sub-aggregations' partials. */
  static final class Bucket {
    long docCount;
    final Object[] subs;

    Bucket(long docCount, Object[] subs) {
      this.docCount = docCount;
      this.subs = subs;
    }
  }

  /**
   * The buckets of a multi-bucket aggregation by key: a {@code Long} (a date key, a histogram's bucket index, a long
   * term), a {@code Double} (a double term), a {@code String} (a keyword term) or an {@code Integer} (a range or
   * filter by position).
   */
  static final class Buckets {
    final Map<Object, Bucket> map = new HashMap<>();
  }

  /**
   * The counts of a top-level keyword {@code terms} without sub-aggregations: one run per segment of the terms its
   * matching documents hold, in term order, with their counts. Merged by putting runs together; the runs are merged
   * term by term only when the buckets are chosen ({@code AggSpec.TermsSpec}), where a term meets its counts in other
   * segments without hashing, and only the buckets shown become strings.
   */
  static final class TermCounts {
    final List<BytesRef[]> terms = new ArrayList<>();
    final List<long[]> counts = new ArrayList<>();

    void addRun(BytesRef[] runTerms, long[] runCounts) {
      assert runTerms.length == runCounts.length;
      if (runTerms.length > 0) {
        terms.add(runTerms);
        counts.add(runCounts);
      }
    }

    void add(TermCounts other) {
      terms.addAll(other.terms);
      counts.addAll(other.counts);
    }
  }

  /** {@code a} and {@code b} merged (either may be null); may reuse either. */
  static Object merge(Object a, Object b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    if (a instanceof Stats stats) {
      stats.merge((Stats) b);
    } else if (a instanceof TermCounts counts) {
      counts.add((TermCounts) b);
    } else if (a instanceof Bucket bucket) {
      mergeBucket(bucket, (Bucket) b);
    } else {
      Map<Object, Bucket> into = ((Buckets) a).map;
      for (Map.Entry<Object, Bucket> e : ((Buckets) b).map.entrySet()) {
        into.merge(e.getKey(), e.getValue(), (x, y) -> {
          mergeBucket(x, y);
          return x;
        });
      }
    }
    return a;
  }

  private static void mergeBucket(Bucket into, Bucket other) {
    into.docCount += other.docCount;
    for (int i = 0; i < into.subs.length; i++) {
      into.subs[i] = merge(into.subs[i], other.subs[i]);
    }
  }

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
    Object[] build(int ords) {
      return Arrays.copyOf(stats, ords, Object[].class);
    }
  }

  // ---- buckets ------------------------------------------------------------------------------------------------

  /**
   * A bucket aggregation: each bucket an ordinal, with its parent's ordinal, its key (a long) and its document
   * count. Keyed buckets find their ordinal in a hash of (parent, key), the last one found kept at hand.
   */
  abstract static class BucketAggregator extends Aggregator {
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

    /** The partial key of a bucket's long key. */
    Object key(long key) {
      return key;
    }

    @Override
    Object[] build(int ords) {
      Object[][] subParts = new Object[subs.length][];
      for (int i = 0; i < subs.length; i++) {
        subParts[i] = subs[i].build(ordCount);
      }
      Object[] out = new Object[ords];
      for (int ord = 0; ord < ordCount; ord++) {
        int parent = parents[ord];
        if (parent >= ords) {
          continue;
        }
        Buckets buckets = (Buckets) out[parent];
        if (buckets == null) {
          out[parent] = buckets = new Buckets();
        }
        Object[] subsOfBucket = new Object[subs.length];
        for (int i = 0; i < subs.length; i++) {
          subsOfBucket[i] = subParts[i][ord];
        }
        buckets.map.put(key(keys[ord]), new Bucket(docCounts[ord], subsOfBucket));
      }
      return out;
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
  static final class Histogram extends BucketAggregator {
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
    Object key(long index) {
      return dateInterval > 0 ? index * dateInterval + dateOrigin : index; // a date's key, or a numeric index
    }
  }

  /**
   * Terms of a keyword field. Without sub-aggregations at the top level, counts by segment ordinal and turns the
   * counted ordinals into terms when the segment ends; otherwise each segment ordinal is given a slice-wide term id
   * the first time it is seen, and buckets are keyed by it.
   */
  static final class KeywordTerms extends BucketAggregator {
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
    Object key(long termId) {
      return terms.get((int) termId, scratch).utf8ToString();
    }

    @Override
    Object[] build(int ords) {
      if (!counting) {
        if (everyTerm) {
          if (missingTerm != null) {
            terms.add(missingTerm); // the missing value is a term of the field as the node reads it: a bucket, 0 if none
          }
          int known = terms.size();
          for (int parent = 0; parent < ords; parent++) {
            for (int id = 0; id < known; id++) {
              keyedOrd(parent, id);
            }
          }
        }
        return super.build(ords);
      }
      if (missingCount > 0 || everyTerm && missingTerm != null) { // as a term of the field with min_doc_count 0
        counted.addRun(new BytesRef[] {missingTerm}, new long[] {missingCount});
        missingCount = 0;
      }
      Object[] out = new Object[ords];
      out[0] = counted;
      return out;
    }
  }

  /** Terms of a numeric or date field, keyed by the value as its doc values hold it (doubles decoded at the end). */
  static final class NumericTerms extends BucketAggregator {
    private final FieldValues values;
    /**
     * {@code min_doc_count: 0}: the values of every document of every segment, deleted ones too (as the node reads
     * them), each a bucket under every parent when built, 0 if nothing matched; else null.
     */
    private final Set<Long> everyValue;

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
    Object[] build(int ords) {
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

    @Override
    Object key(long value) {
      return values.encoding == Encoding.LONG ? (Object) value : (Object) values.encoding.decode(value);
    }
  }

  /** Ranges {@code [from, to)} of a field's values; a document counts once per range it has a value in. */
  static final class Range extends BucketAggregator {
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
    Object key(long index) {
      return (int) index;
    }
  }

  /**
   * Documents matching each of some queries (a {@code filter} is one), and optionally those matching none. Each
   * query's weight is made once per slice, over the top-level reader of the segments.
   */
  static final class Filters extends BucketAggregator {
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
    Object key(long index) {
      return (int) index;
    }

    @Override
    Object[] build(int ords) {
      if (ords > 0) { // every filter's bucket under every parent, so that an empty one's sub-aggregations answer as
        fixedOrd(ords - 1, n - 1, n); // the node's do (a terms' min_doc_count 0 lists every term; issue 54)
      }
      return super.build(ords);
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
