/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.util.BytesRef;

/**
 * The partial result of one aggregation over one slice's documents (in one parent bucket), merged across slices
 * before {@link AggSpec} renders it: one kind per aggregation kind, each merging only with its own kind ({@code P}),
 * possibly reusing either side. Partials of one aggregation are all of its kind, so a merge of two kinds is a bug
 * (a {@link ClassCastException}), never a wrong answer.
 *
 * @param <P> the kind itself
 */
sealed interface AggPartial<P extends AggPartial<P>>
    permits AggPartial.Stats, AggPartial.TermCounts, AggPartial.Keyed {
  /** This and {@code other} merged; may reuse either. */
  P merge(P other);

  /** {@code a} and {@code b} merged, either may be null (nothing collected); both of one aggregation's kind. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static AggPartial<?> merge(AggPartial<?> a, AggPartial<?> b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return ((AggPartial) a).merge(b); // the kind's merge casts b to its kind
  }

  // ---- metrics ------------------------------------------------------------------------------------------------

  /** A metric's values seen: count, compensated (Kahan) sum, min, max. */
  final class Stats implements AggPartial<Stats> {
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

    @Override
    public Stats merge(Stats other) {
      count += other.count;
      addToSum(other.sum);
      addToSum(-other.compensation);
      min = Math.min(min, other.min);
      max = Math.max(max, other.max);
      return this;
    }
  }

  // ---- terms counted by segment ---------------------------------------------------------------------------------

  /**
   * The counts of a top-level keyword {@code terms} without sub-aggregations: one run per segment of the terms its
   * matching documents hold, in term order, with their counts. Merged by putting runs together; the runs are merged
   * term by term only when the buckets are chosen ({@code TermsSpec}), where a term meets its counts in other
   * segments without hashing, and only the buckets shown become strings.
   */
  final class TermCounts implements AggPartial<TermCounts> {
    final List<BytesRef[]> terms = new ArrayList<>();
    final List<long[]> counts = new ArrayList<>();

    void addRun(BytesRef[] runTerms, long[] runCounts) {
      assert runTerms.length == runCounts.length;
      if (runTerms.length > 0) {
        terms.add(runTerms);
        counts.add(runCounts);
      }
    }

    @Override
    public TermCounts merge(TermCounts other) {
      terms.addAll(other.terms);
      counts.addAll(other.counts);
      return this;
    }
  }

  // ---- buckets --------------------------------------------------------------------------------------------------

  /** One bucket: its document count and its sub-aggregations' partials (null where nothing was collected). */
  final class Bucket {
    long docCount;
    final AggPartial<?>[] subs;

    Bucket(long docCount, AggPartial<?>[] subs) {
      this.docCount = docCount;
      this.subs = subs;
    }

    /** An empty bucket with {@code subs} sub-aggregations. */
    static Bucket empty(int subs) {
      return new Bucket(0, new AggPartial<?>[subs]);
    }

    /** {@code other}'s documents and sub-aggregations added to this bucket's. */
    Bucket merge(Bucket other) {
      assert subs.length == other.subs.length;
      docCount += other.docCount;
      for (int i = 0; i < subs.length; i++) {
        subs[i] = AggPartial.merge(subs[i], other.subs[i]);
      }
      return this;
    }
  }

  /**
   * The buckets of a multi-bucket aggregation by key; buckets of one key merge.
   *
   * @param <K> the key's type
   * @param <P> the kind itself
   */
  abstract sealed class Keyed<K, P extends Keyed<K, P>> implements AggPartial<P>
      permits HistogramBuckets, StringTerms, LongTerms, DoubleTerms, RangeBuckets, FilterBuckets {
    final Map<K, Bucket> map = new HashMap<>();

    @Override
    public final P merge(P other) {
      for (Map.Entry<K, Bucket> e : other.map.entrySet()) {
        map.merge(e.getKey(), e.getValue(), Bucket::merge);
      }
      return self();
    }

    abstract P self();
  }

  /** A {@code histogram}'s or {@code date_histogram}'s buckets: by bucket index, or by a date's key. */
  final class HistogramBuckets extends Keyed<Long, HistogramBuckets> {
    @Override
    HistogramBuckets self() {
      return this;
    }
  }

  /** A {@code terms} of a keyword: by term. */
  final class StringTerms extends Keyed<String, StringTerms> {
    @Override
    StringTerms self() {
      return this;
    }
  }

  /** A {@code terms} of a long, an integer, a date or a boolean: by value. */
  final class LongTerms extends Keyed<Long, LongTerms> {
    @Override
    LongTerms self() {
      return this;
    }
  }

  /** A {@code terms} of a double or a float: by value. */
  final class DoubleTerms extends Keyed<Double, DoubleTerms> {
    @Override
    DoubleTerms self() {
      return this;
    }
  }

  /** A {@code range}'s or {@code date_range}'s buckets: by the range's position in the request. */
  final class RangeBuckets extends Keyed<Integer, RangeBuckets> {
    @Override
    RangeBuckets self() {
      return this;
    }
  }

  /** A {@code filter}'s single bucket (position 0) or {@code filters}' buckets by position, other last. */
  final class FilterBuckets extends Keyed<Integer, FilterBuckets> {
    @Override
    FilterBuckets self() {
      return this;
    }
  }
}
