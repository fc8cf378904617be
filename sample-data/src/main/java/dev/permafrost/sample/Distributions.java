/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.sample;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Samplers for the skewed distributions of the access-log generator. All draw from a caller's random source. */
final class Distributions {
  private Distributions() {}

  /**
   * Picks index {@code i} of {@code n} with probability proportional to {@code 1 / (i + 1)^exponent}: a Zipf law,
   * so a few values (rank 0 first) take most of the draws and a long tail takes the rest.
   */
  static final class Zipf {
    private final double[] cumulative;

    Zipf(int n, double exponent) {
      if (n < 1) {
        throw new IllegalArgumentException("a Zipf distribution needs at least one value, got " + n);
      }
      cumulative = new double[n];
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += 1.0 / Math.pow(i + 1, exponent);
        cumulative[i] = sum;
      }
      for (int i = 0; i < n; i++) {
        cumulative[i] /= sum;
      }
    }

    int sample(SplittableRandom random) {
      int i = Arrays.binarySearch(cumulative, random.nextDouble());
      int index = i >= 0 ? i : -i - 1;
      return Math.min(index, cumulative.length - 1);
    }

    int size() {
      return cumulative.length;
    }
  }

  /** Picks one of a fixed set of values with given weights (they need not add up to anything in particular). */
  static final class Weighted<T> {
    private final T[] values;
    private final double[] cumulative;

    @SafeVarargs
    Weighted(double[] weights, T... values) {
      if (weights.length != values.length || values.length == 0) {
        throw new IllegalArgumentException("need as many weights as values, and at least one");
      }
      this.values = values;
      this.cumulative = new double[weights.length];
      double sum = 0;
      for (int i = 0; i < weights.length; i++) {
        sum += weights[i];
        cumulative[i] = sum;
      }
      for (int i = 0; i < weights.length; i++) {
        cumulative[i] /= sum;
      }
    }

    T sample(SplittableRandom random) {
      int i = Arrays.binarySearch(cumulative, random.nextDouble());
      int index = i >= 0 ? i : -i - 1;
      return values[Math.min(index, values.length - 1)];
    }
  }
}
