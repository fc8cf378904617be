/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Reads durations as settings, parameters and options give them ({@link #parse}, and {@link #parseTimeValue} for
 * Elasticsearch's API), and prints them for people ({@link #format}).
 *
 * <p>Prints durations for people, in messages and logs: {@code 350 µs}, {@code 12 ms}, {@code 1.2 s}, {@code 2 min 5 s},
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
 * syntax instead ({@link #formatSetting}: {@code retry_time_limit=30s}), so that it can be copied; numbers for
 * machines (JSON, metrics) stay numbers.
 */
public final class Durations {
  /** The units {@link #parse} reads after a number, and Elasticsearch's time values all but {@code w}. */
  private enum Unit {
    NANOS("nanos", 1L),
    MICROS("micros", 1_000L),
    MILLIS("ms", 1_000_000L),
    SECONDS("s", 1_000_000_000L),
    MINUTES("m", 60 * 1_000_000_000L),
    HOURS("h", 3600 * 1_000_000_000L),
    DAYS("d", 86_400 * 1_000_000_000L),
    WEEKS("w", 7 * 86_400 * 1_000_000_000L);

    final String suffix;
    final long nanos;

    Unit(String suffix, long nanos) {
      this.suffix = suffix;
      this.nanos = nanos;
    }
  }

  /** The units, longest suffix first, so that {@code ms} is not read as {@code s}. */
  private static final Unit[] BY_SUFFIX = {
    Unit.NANOS, Unit.MICROS, Unit.MILLIS, Unit.SECONDS, Unit.MINUTES, Unit.HOURS, Unit.DAYS, Unit.WEEKS
  };

  private Durations() {}

  /**
   * Reads a duration: a whole number and a unit, {@code nanos}, {@code micros}, {@code ms}, {@code s}, {@code m}
   * (minutes), {@code h}, {@code d} or {@code w} ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 7d}; in any case,
   * blanks allowed around and between), or ISO-8601 ({@code PT30S}, {@code P1D}, {@code PT0.5S}). A sign may lead
   * ({@code -1h}, {@code +6h}, {@code -PT1H}): whether a negative or zero duration makes sense is the caller's to
   * say. Every duration read fits a {@code long} of nanoseconds (about 292 years), as deadlines are kept.
   *
   * @throws IllegalArgumentException naming {@code text} and what is wrong with it: no number, no unit or one not
   *     known, or out of range
   */
  public static Duration parse(String text) {
    return parse(text, false);
  }

  /**
   * Reads Elasticsearch's time value, as its API's {@code timeout}, {@code keep_alive} and {@code fixed_interval}
   * take one: a whole number and a unit of {@code nanos}, {@code micros}, {@code ms}, {@code s}, {@code m},
   * {@code h} and {@code d} in lower case right after the number (no {@code w}, no ISO-8601; {@code 1M}, a calendar
   * month, is not one), or the bare {@code 0} and {@code -1} (which the API reads as "none" where it has one).
   * Otherwise as {@link #parse}.
   *
   * @throws IllegalArgumentException as {@link #parse}
   */
  public static Duration parseTimeValue(String text) {
    return parse(text, true);
  }

  private static Duration parse(String text, boolean elasticsearch) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("a duration must not be blank");
    }
    // Elasticsearch's API reads a unit in lower case right after the number, and a calendar unit such as 1M (a month)
    // is not a time value there: its form is not folded
    String t = elasticsearch ? text.strip() : text.strip().toLowerCase(Locale.ROOT);
    if (elasticsearch && (t.equals("0") || t.equals("-1"))) {
      return Duration.ofMillis(Long.parseLong(t));
    }
    int signs = t.startsWith("-") || t.startsWith("+") ? 1 : 0;
    if (!elasticsearch && t.startsWith("p", signs)) {
      Duration d;
      try {
        d = Duration.parse(t.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("'" + text + "' is not an ISO-8601 duration such as PT30S or P1D", e);
      }
      return inRange(text, d);
    }
    for (Unit unit : BY_SUFFIX) {
      if (!t.endsWith(unit.suffix) || elasticsearch && unit == Unit.WEEKS) {
        continue;
      }
      String number = t.substring(0, t.length() - unit.suffix.length());
      number = elasticsearch ? number : number.strip();
      if (number.length() == signs || !number.substring(signs).chars().allMatch(c -> c >= '0' && c <= '9')) {
        break; // "1.5s", "s", "-ms", "5 x s": not a whole number before the unit
      }
      try {
        return Duration.ofNanos(Math.multiplyExact(Long.parseLong(number), unit.nanos));
      } catch (ArithmeticException | NumberFormatException e) {
        throw outOfRange(text, e);
      }
    }
    throw new IllegalArgumentException("'" + text + "' is not a duration: give a whole number and a unit ("
        + (elasticsearch ? "nanos, micros, ms, s, m, h, d" : "nanos, micros, ms, s, m, h, d, w; or ISO-8601 such as"
        + " PT30S") + ")");
  }

  private static Duration inRange(String text, Duration d) {
    try {
      d.toNanos();
      return d;
    } catch (ArithmeticException e) {
      throw outOfRange(text, e);
    }
  }

  private static IllegalArgumentException outOfRange(String text, RuntimeException cause) {
    return new IllegalArgumentException("'" + text + "' is out of range: a duration is at most "
        + Long.MAX_VALUE / Unit.DAYS.nanos + " days", cause);
  }

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
   * Prints {@code d} in the settings syntax that {@link #parse} reads back, for a setting's value shown beside its
   * name ({@code retry_time_limit=30s}): in the largest of {@code s}, {@code ms}, {@code micros} and {@code nanos}
   * that shows it whole ({@code 30s}, {@code 1500ms}, {@code 0s}).
   */
  public static String formatSetting(Duration d) {
    long nanos;
    try {
      nanos = d.toNanos();
    } catch (ArithmeticException e) {
      return d.getSeconds() + "s"; // beyond what parse reads: whole seconds are all that can be meant
    }
    for (Unit unit : new Unit[] {Unit.SECONDS, Unit.MILLIS, Unit.MICROS}) {
      if (nanos % unit.nanos == 0) {
        return nanos / unit.nanos + unit.suffix;
      }
    }
    return nanos + Unit.NANOS.suffix;
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
