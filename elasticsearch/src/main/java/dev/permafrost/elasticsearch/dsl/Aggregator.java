/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.io.IOException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.util.ArrayUtil;
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
}
