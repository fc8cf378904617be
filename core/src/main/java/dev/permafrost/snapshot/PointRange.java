/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.util.Arrays;

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
