/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;

/**
 * The smallest and largest packed values of a point field over a whole snapshot, recorded so that a search can
 * skip an index whose range cannot match without opening it (e.g. a {@code @timestamp} range).
 *
 * @param field the point field
 * @param numDimensions the field's number of index dimensions
 * @param bytesPerDimension bytes per dimension
 * @param minPackedValue the minimum per dimension, packed as Lucene packs points
 * @param maxPackedValue the maximum per dimension, packed as Lucene packs points
 * @param docCount how many documents have a value for the field
 */
public record PointRange(
    String field, int numDimensions, int bytesPerDimension, byte[] minPackedValue, byte[] maxPackedValue, long docCount) {

  /**
   * The range of {@code field}'s points over every segment of {@code reader}, deleted documents' too (as Lucene's own
   * range queries weigh a segment), or null if no segment has a point of it. Read from the points' index metadata,
   * which a reader holds in memory: no read.
   */
  public static PointRange of(IndexReader reader, String field) throws IOException {
    byte[] min = null;
    byte[] max = null;
    int numDims = 0;
    int bytesPerDim = 0;
    long docCount = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      PointValues values = leaf.reader().getPointValues(field);
      if (values == null) {
        continue;
      }
      numDims = values.getNumIndexDimensions();
      bytesPerDim = values.getBytesPerDimension();
      byte[] leafMin = values.getMinPackedValue();
      byte[] leafMax = values.getMaxPackedValue();
      docCount += values.getDocCount();
      if (min == null) {
        min = leafMin.clone();
        max = leafMax.clone();
        continue;
      }
      for (int d = 0; d < numDims; d++) {
        int from = d * bytesPerDim;
        int to = from + bytesPerDim;
        if (Arrays.compareUnsigned(leafMin, from, to, min, from, to) < 0) {
          System.arraycopy(leafMin, from, min, from, bytesPerDim);
        }
        if (Arrays.compareUnsigned(leafMax, from, to, max, from, to) > 0) {
          System.arraycopy(leafMax, from, max, from, bytesPerDim);
        }
      }
    }
    return min == null ? null : new PointRange(field, numDims, bytesPerDim, min, max, docCount);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PointRange p
        && p.field.equals(field)
        && p.numDimensions == numDimensions
        && p.bytesPerDimension == bytesPerDimension
        && Arrays.equals(p.minPackedValue, minPackedValue)
        && Arrays.equals(p.maxPackedValue, maxPackedValue)
        && p.docCount == docCount;
  }

  @Override
  public int hashCode() {
    return field.hashCode() * 31 + Arrays.hashCode(minPackedValue) * 17 + Arrays.hashCode(maxPackedValue);
  }

  @Override
  public String toString() {
    return field + "[" + Arrays.toString(minPackedValue) + " .. " + Arrays.toString(maxPackedValue) + "]";
  }
}
