/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.time.Duration;

/**
 * Prints durations for people, in messages and logs: {@code 350 µs}, {@code 12 ms}, {@code 1.2 s}, {@code 2 min 5 s},
 * {@code 3 h 20 min}. The unit is the largest that keeps the number at least 1:
 *
 * <ul>
 *   <li>under 1 ms: whole microseconds ({@code 0 µs}, {@code 999 µs});
 *   <li>under 1 s: whole milliseconds ({@code 1 ms}, {@code 999 ms});
 *   <li>under 1 min: seconds with one decimal ({@code 1.0 s}, {@code 59.9 s});
 *   <li>under 1 h: minutes, and the whole seconds unless there are none ({@code 1 min}, {@code 59 min 59 s});
 *   <li>from 1 h: hours, and the whole minutes unless there are none ({@code 1 h}, {@code 49 h 30 min}).
 * </ul>
 *
 * <p>What the unit cannot show is cut off, never rounded up, so a value never reaches its unit's upper bound: 999.9 ms
 * prints as {@code 999 ms}, 59.99 s as {@code 59.9 s}. A setting's value shown beside its name keeps the settings
 * syntax instead ({@code retry_time_limit=30s}), so that it can be copied; numbers for machines (JSON, metrics) stay
 * numbers.
 */
public final class Durations {
  private Durations() {}

  /**
   * Prints {@code d} by the rules above.
   *
   * @throws IllegalArgumentException if {@code d} is negative
   */
  public static String format(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("a duration to print must not be negative, got " + d);
    }
    long seconds = d.getSeconds();
    int nanos = d.getNano();
    if (seconds == 0) {
      return nanos < 1_000_000 ? nanos / 1_000 + " µs" : nanos / 1_000_000 + " ms";
    }
    if (seconds < 60) {
      return seconds + "." + nanos / 100_000_000 + " s";
    }
    if (seconds < 3600) {
      long rest = seconds % 60;
      return seconds / 60 + " min" + (rest == 0 ? "" : " " + rest + " s");
    }
    long minutes = seconds % 3600 / 60;
    return seconds / 3600 + " h" + (minutes == 0 ? "" : " " + minutes + " min");
  }

  /**
   * Prints {@code nanos} nanoseconds, such as a difference of two {@link System#nanoTime()}s, as {@link #format}.
   *
   * @throws IllegalArgumentException if {@code nanos} is negative
   */
  public static String formatNanos(long nanos) {
    return format(Duration.ofNanos(nanos));
  }
}
