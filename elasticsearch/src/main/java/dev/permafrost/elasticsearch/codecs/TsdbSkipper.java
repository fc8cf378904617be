/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.IndexInput;

/**
 * A field's doc-values skipper of the TSDB formats (in {@code .dvs} from version 5, before in {@code .dvd}), Lucene's
 * own skip-index layout: one record per
 * interval of documents (4,096 at level 0), each a byte of levels {@code n} (1 to 4) and, from level {@code n - 1}
 * down to 0, that level's max doc, min doc, max value, min value (longs) and doc count; a level-{@code k} entry
 * covers the intervals up to its max doc. Records are read one after another (the jumps Lucene's reader takes over
 * a level's intervals are an optimisation of the same reading).
 */
final class TsdbSkipper extends DocValuesSkipper {
  private static final int MAX_LEVELS = 4;
  /** A skipper entry's largest count of values in a document where the file does not record it and it may be more than 1. */
  static final int UNKNOWN_VALUE_COUNT = -1;

  private final Entry entry;
  private final IndexInput input;
  private final int[] minDocID = new int[MAX_LEVELS];
  private final int[] maxDocID = new int[MAX_LEVELS];
  private final long[] minValue = new long[MAX_LEVELS];
  private final long[] maxValue = new long[MAX_LEVELS];
  private final int[] docCount = new int[MAX_LEVELS];
  private int levels = 1;

  /**
   * A field's skipper as the metadata file records it: where its records lie, and the field's bounds over the
   * segment.
   *
   * @param maxDocId the last document with a value, -1 if none
   * @param maxValueCount the most values one document has (recorded from version 7; before, 1 where a document has
   *     one value at most, 0 without documents, else {@link #UNKNOWN_VALUE_COUNT})
   */
  record Entry(long offset, long length, long maxValue, long minValue, int docCount, int maxDocId,
      int maxValueCount) {}

  TsdbSkipper(Entry entry, IndexInput input) {
    this.entry = entry;
    this.input = input;
    Arrays.fill(minDocID, -1);
    Arrays.fill(maxDocID, -1);
  }

  @Override
  public void advance(int target) throws IOException {
    if (target > entry.maxDocId() || input.getFilePointer() >= input.length() && target > maxDocID[0]) {
      Arrays.fill(minDocID, DocIdSetIterator.NO_MORE_DOCS);
      Arrays.fill(maxDocID, DocIdSetIterator.NO_MORE_DOCS);
      return;
    }
    while (maxDocID[0] < target) {
      int n = input.readByte();
      if (n < 1 || n > MAX_LEVELS) {
        throw new CorruptIndexException("a skipper interval of " + n + " levels", input);
      }
      for (int level = n - 1; level >= 0; level--) {
        maxDocID[level] = input.readInt();
        minDocID[level] = input.readInt();
        maxValue[level] = input.readLong();
        minValue[level] = input.readLong();
        docCount[level] = input.readInt();
      }
      levels = n;
    }
    // the higher levels read before still cover the target
    while (levels < MAX_LEVELS && maxDocID[levels] >= target) {
      levels++;
    }
  }

  @Override
  public int numLevels() {
    return levels;
  }

  @Override
  public int minDocID(int level) {
    return minDocID[level];
  }

  @Override
  public int maxDocID(int level) {
    return maxDocID[level];
  }

  @Override
  public long minValue(int level) {
    return minValue[level];
  }

  @Override
  public long maxValue(int level) {
    return maxValue[level];
  }

  @Override
  public int docCount(int level) {
    return docCount[level];
  }

  @Override
  public long minValue() {
    return entry.minValue();
  }

  @Override
  public long maxValue() {
    return entry.maxValue();
  }

  @Override
  public int docCount() {
    return entry.docCount();
  }

  /**
   * The most values one document has, or -1 if unknown: Lucene 10.6's method (not annotated as an override, so that
   * this compiles on Lucene 10.3 too, which never asks).
   */
  public int maxValueCount() {
    return entry.maxValueCount();
  }
}
