/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.search;

import dev.permafrost.blob.Durations;
import java.time.Duration;

/** The {@code interval} parameter of a histogram: a fixed duration, or {@code auto}. */
public final class Intervals {
  private static final long[] NICE = {
    1_000, 5_000, 10_000, 30_000, 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 3_600_000, 3 * 3_600_000,
    6 * 3_600_000, 12 * 3_600_000, 86_400_000, 7 * 86_400_000L, 30 * 86_400_000L, 365 * 86_400_000L
  };

  private Intervals() {}

  /**
   * The interval in milliseconds: a duration as {@link Durations#parse} reads it ({@code 30s}, {@code 5m},
   * {@code 1h}, {@code 1d}, {@code 1w}, {@code 500ms}, ISO-8601 {@code PT1H}); {@code auto} or blank picks the smallest of 1s, 5s, 10s, 30s, 1m, 5m, 10m, 30m, 1h, 3h,
   * 6h, 12h, 1d, 7d, 30d, 365d that cuts {@code spanMillis} into at most {@code targetBuckets}.
   *
   * @throws IllegalArgumentException naming the parameter if {@code text} is none of these
   */
  public static long parse(String text, long spanMillis, int targetBuckets) {
    if (text == null || text.isBlank() || text.trim().equalsIgnoreCase("auto")) {
      for (long nice : NICE) {
        if (spanMillis / nice < targetBuckets) {
          return nice;
        }
      }
      return NICE[NICE.length - 1];
    }
    try {
      return millis(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("'interval' must be auto or a positive duration such as 30s, 5m, 1h or 1d, got '"
          + text + "'");
    }
  }

  /**
   * The {@code timeout} parameter of a search: a positive duration as {@link #parse} reads it, or null if blank.
   *
   * @throws IllegalArgumentException naming the parameter if it is not one
   */
  public static Duration timeout(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return Duration.ofMillis(millis(text));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("'timeout' must be a positive duration such as 500ms, 5s or 1m, got '" + text + "'");
    }
  }

  /** A positive duration as {@link Durations#parse} reads it, in whole milliseconds (at least 1). */
  private static long millis(String text) {
    long millis = Durations.parse(text).toMillis();
    if (millis < 1) {
      throw new IllegalArgumentException("not a positive number of milliseconds: " + text);
    }
    return millis;
  }
}
