/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.SortedNumericSortField;

/**
 * A range query sorted by its own field (the newest events of a time span, the question a log viewer asks first),
 * answered from the points before any document is collected. The top {@code size} of a range [lo, hi] by the field
 * descending all lie in [v, hi], where v is the {@code size}-th largest value in range; the points tree finds v by
 * walking one path down from the right (inner nodes count their points), so the collector visits about {@code size}
 * documents instead of every match. Documents arrive in index order, which for logs is time order: sorted newest
 * first, every one of them stays competitive until late in the segment, and Lucene's own skipping by points waits
 * for the competitive range to shrink eightfold before it narrows the iteration.
 *
 * <p>Exact, not approximate: the narrowed query matches a superset of the top hits (every document whose value ties
 * with v too), so the same hits come back in the same order. Where it cannot be told cheaply that this is so, the
 * query is left as it is: a field with more than one value in a document (points count values, not documents),
 * anything but a {@code long} sort on the range's own field, or fewer points in range than the size plus the
 * segment's deleted documents (whose points still count). As Lucene's own sort optimization does, it takes a
 * field's points and its doc values to hold the same values. The narrowed query's count is not the original's: the
 * caller counts the original.
 */
final class RangeSortedByItself {
  private RangeSortedByItself() {}

  /**
   * The query that finds the same top {@code size} hits of {@code query} by {@code sort} in {@code reader} while
   * collecting fewer documents, or {@code query} itself.
   */
  static Query narrow(IndexReader reader, Query query, Sort sort, int size) throws IOException {
    if (sort == null || size <= 0) {
      return query;
    }
    PointRangeQuery range = range(query);
    SortField first = sort.getSort()[0];
    if (range == null || range.getNumDims() != 1 || range.getBytesPerDim() != Long.BYTES
        || !range.getField().equals(first.getField()) || !sortsLongs(first)) {
      return query;
    }
    long lo = LongPoint.decodeDimension(range.getLowerPoint(), 0);
    long hi = LongPoint.decodeDimension(range.getUpperPoint(), 0);
    boolean newestFirst = first.getReverse();
    long bound = newestFirst ? hi : lo; // the bound that narrows: the loosest of every segment's
    boolean narrowed = false;
    for (LeafReaderContext leaf : reader.leaves()) {
      PointValues points = leaf.reader().getPointValues(range.getField());
      if (points == null) {
        continue; // no document of this segment has the field: none matches
      }
      if (points.size() != points.getDocCount()) {
        return query; // several values in some document
      }
      long need = (long) size + leaf.reader().numDeletedDocs();
      Long v = nth(points.getPointTree(), lo, hi, need, newestFirst);
      if (v == null) {
        return query; // this segment's top is all of its range
      }
      bound = newestFirst ? Math.min(bound, v) : Math.max(bound, v);
      narrowed = true;
    }
    if (!narrowed || bound == (newestFirst ? lo : hi)) {
      return query;
    }
    return newestFirst ? LongPoint.newRangeQuery(range.getField(), bound, hi)
        : LongPoint.newRangeQuery(range.getField(), lo, bound);
  }

  /** The range that is the whole query, through the wrappers that do not change what matches; or null. */
  private static PointRangeQuery range(Query query) {
    while (true) {
      if (query instanceof PointRangeQuery p) {
        return p;
      } else if (query instanceof IndexOrDocValuesQuery io) {
        query = io.getIndexQuery();
      } else if (query instanceof ConstantScoreQuery cs) {
        query = cs.getQuery();
      } else if (query instanceof BoostQuery b) {
        query = b.getQuery();
      } else {
        return null;
      }
    }
  }

  /** A sort by a field's single long value: a plain long sort, or a sorted-numeric one by its min or max. */
  private static boolean sortsLongs(SortField field) {
    if (field instanceof SortedNumericSortField s) {
      return s.getNumericType() == SortField.Type.LONG
          && (s.getSelector() == SortedNumericSelector.Type.MIN || s.getSelector() == SortedNumericSelector.Type.MAX);
    }
    return field.getType() == SortField.Type.LONG && field.getClass() == SortField.class;
  }

  /**
   * The {@code n}-th largest value in [lo, hi] (the {@code n}-th smallest if not {@code largest}) among the tree's
   * points, or null if fewer than {@code n} lie in range. Walks from the wanted end: a node wholly in range whose
   * points are fewer than those still wanted is counted whole and passed.
   */
  static Long nth(PointValues.PointTree tree, long lo, long hi, long n, boolean largest) throws IOException {
    long[] remaining = {n};
    return nth(tree, lo, hi, remaining, largest);
  }

  private static Long nth(PointValues.PointTree node, long lo, long hi, long[] remaining, boolean largest)
      throws IOException {
    long min = LongPoint.decodeDimension(node.getMinPackedValue(), 0);
    long max = LongPoint.decodeDimension(node.getMaxPackedValue(), 0);
    if (max < lo || min > hi) {
      return null;
    }
    if (min >= lo && max <= hi && node.size() < remaining[0]) {
      remaining[0] -= node.size();
      return null;
    }
    if (node.moveToChild()) {
      // children in order of value; visit them from the wanted end
      List<PointValues.PointTree> children = new ArrayList<>(2);
      do {
        children.add(node.clone());
      } while (node.moveToSibling());
      node.moveToParent();
      for (int i = 0; i < children.size(); i++) {
        Long v = nth(children.get(largest ? children.size() - 1 - i : i), lo, hi, remaining, largest);
        if (v != null) {
          return v;
        }
      }
      return null;
    }
    LongCollector values = new LongCollector(lo, hi);
    node.visitDocValues(values);
    if (values.size < remaining[0]) {
      remaining[0] -= values.size;
      return null;
    }
    Arrays.sort(values.values, 0, values.size);
    int index = (int) (largest ? values.size - remaining[0] : remaining[0] - 1);
    remaining[0] = 0;
    return values.values[index];
  }

  /** A leaf's values in [lo, hi]. */
  private static final class LongCollector implements PointValues.IntersectVisitor {
    private final long lo;
    private final long hi;
    long[] values = new long[64];
    int size;

    LongCollector(long lo, long hi) {
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    public void visit(int docID) {
      throw new AssertionError("a leaf's values are visited one by one");
    }

    @Override
    public void visit(int docID, byte[] packedValue) {
      long v = LongPoint.decodeDimension(packedValue, 0);
      if (v >= lo && v <= hi) {
        if (size == values.length) {
          values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
      }
    }

    @Override
    public PointValues.Relation compare(byte[] minPackedValue, byte[] maxPackedValue) {
      return PointValues.Relation.CELL_CROSSES_QUERY;
    }
  }
}
