/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.search;

import java.time.Duration;
import java.util.Locale;

/** The {@code interval} parameter of a histogram: a fixed duration, or {@code auto}. */
public final class Intervals {
  private static final long[] NICE = {
    1_000, 5_000, 10_000, 30_000, 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 3_600_000, 3 * 3_600_000,
    6 * 3_600_000, 12 * 3_600_000, 86_400_000, 7 * 86_400_000L, 30 * 86_400_000L, 365 * 86_400_000L
  };

  private Intervals() {}

  /**
   * The interval in milliseconds: {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}, {@code 7d}, {@code 500ms} or
   * ISO-8601 ({@code PT1H}); {@code auto} or blank picks the smallest of 1s, 5s, 10s, 30s, 1m, 5m, 10m, 30m, 1h, 3h,
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

  private static long millis(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    {
      long millis;
      if (s.startsWith("p")) {
        millis = Duration.parse(s.toUpperCase(Locale.ROOT)).toMillis();
      } else if (s.endsWith("ms")) {
        millis = Long.parseLong(s.substring(0, s.length() - 2));
      } else {
        long n = Long.parseLong(s.substring(0, s.length() - 1));
        millis = switch (s.charAt(s.length() - 1)) {
          case 's' -> n * 1_000;
          case 'm' -> n * 60_000;
          case 'h' -> n * 3_600_000;
          case 'd' -> n * 86_400_000;
          case 'w' -> n * 7 * 86_400_000;
          default -> throw new NumberFormatException();
        };
      }
      if (millis < 1) {
        throw new NumberFormatException();
      }
      return millis;
    }
  }
}
