/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.util.NumericUtils;

/**
 * Undoes {@code ES95TSDB}'s ALP stage: a block of doubles written as integers {@code n} with one exponent {@code e}
 * and factor {@code f}, each double {@code n * (10^f * 10^-e)} (the two powers multiplied once, then each value by
 * their product: one rounding each, as the writer's decoder does), then turned to the sortable long Lucene stores a
 * double as ({@link NumericUtils#doubleToSortableLong}); the values ALP could not write exactly (NaN, infinities,
 * {@code -0.0}, too many digits) come after as exceptions holding their sortable long, overwritten last.
 *
 * <p>The powers are the doubles nearest to {@code 10^i} and {@code 10^-i}, the literals {@code 1e0} to {@code 1e18}
 * and {@code 1e-0} to {@code 1e-18}: what {@code Math.pow(10, ±i)} gives on the writer's JVMs, where
 * {@code StrictMath.pow} differs for {@code 10^-5}, {@code 10^-11} and {@code 10^-17}.
 */
final class Es95Alp {
  /** The largest exponent or factor. */
  static final int MAX_EXPONENT = 18;

  /** {@code 10^i}, correctly rounded. */
  private static final double[] POWERS = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
      1e14, 1e15, 1e16, 1e17, 1e18};
  /** {@code 10^-i}, correctly rounded. */
  private static final double[] INVERSE_POWERS = {1e-0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10,
      1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18};

  private Es95Alp() {}

  /**
   * Turns the first {@code count} integers of {@code values} into the sortable longs of their doubles.
   *
   * @param exponent {@code e}, 0 to 18
   * @param factor {@code f}, 0 to 18
   */
  static void decode(long[] values, int count, int exponent, int factor) {
    assert exponent >= 0 && exponent <= MAX_EXPONENT && factor >= 0 && factor <= MAX_EXPONENT : exponent + " " + factor;
    double multiplier = POWERS[factor] * INVERSE_POWERS[exponent];
    for (int i = 0; i < count; i++) {
      values[i] = NumericUtils.doubleToSortableLong((double) values[i] * multiplier);
    }
  }
}
