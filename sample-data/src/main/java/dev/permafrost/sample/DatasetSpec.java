/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.sample;

import java.time.LocalDate;
import java.util.Locale;

/**
 * How big a generated access-log data set is: {@code days} daily indices of {@code eventsPerDay} events each,
 * drawn with {@code seed}, starting on {@code firstDay}. An event takes roughly 400 bytes of index, so
 * {@code 3x20000} makes about 24 MB and {@code 30x2000000} about 24 GB.
 */
public record DatasetSpec(int days, int eventsPerDay, long seed, LocalDate firstDay) {
  /** The first day of every generated data set. */
  public static final LocalDate FIRST_DAY = LocalDate.of(2024, 2, 1);
  public static final long DEFAULT_SEED = 42;

  public DatasetSpec {
    if (days < 1 || days > 3650) {
      throw new IllegalArgumentException("days must be between 1 and 3650, got " + days);
    }
    if (eventsPerDay < 1) {
      throw new IllegalArgumentException("eventsPerDay must be positive, got " + eventsPerDay);
    }
  }

  /**
   * Parses a scale: a preset name ({@code tiny} 2x5000 for tests, {@code smoke} 3x20000, {@code small}
   * 7x200000, {@code medium} 30x1000000, {@code large} 30x10000000) or {@code DAYSxEVENTS}, such as
   * {@code 5x100000}.
   */
  public static DatasetSpec parse(String scale) {
    String s = scale.trim().toLowerCase(Locale.ROOT);
    return switch (s) {
      case "tiny" -> of(2, 5_000);
      case "smoke" -> of(3, 20_000);
      case "small" -> of(7, 200_000);
      case "medium" -> of(30, 1_000_000);
      case "large" -> of(30, 10_000_000);
      default -> {
        int x = s.indexOf('x');
        if (x <= 0) {
          throw new IllegalArgumentException(
              "unknown scale '" + scale + "': use tiny, smoke, small, medium, large or DAYSxEVENTS (e.g. 3x20000)");
        }
        yield of(Integer.parseInt(s.substring(0, x)), Integer.parseInt(s.substring(x + 1).replace("_", "")));
      }
    };
  }

  public static DatasetSpec of(int days, int eventsPerDay) {
    return new DatasetSpec(days, eventsPerDay, DEFAULT_SEED, FIRST_DAY);
  }

  /** A name that identifies the data set on disk. */
  public String id() {
    return "access-logs-" + days + "x" + eventsPerDay + "-seed" + seed + "-" + firstDay;
  }

  /** The day of index {@code i}. */
  public LocalDate day(int i) {
    return firstDay.plusDays(i);
  }

  /** The name of index (and snapshot) {@code i}, as Elasticsearch names daily indices. */
  public String indexName(int i) {
    LocalDate d = day(i);
    return String.format(Locale.ROOT, "logs-nginx-%04d.%02d.%02d", d.getYear(), d.getMonthValue(), d.getDayOfMonth());
  }

  /** Milliseconds since the epoch at the start of the first day. */
  public long startMillis() {
    return AccessLogGenerator.dayStart(firstDay);
  }

  /** Milliseconds since the epoch at the end (exclusive) of the last day. */
  public long endMillis() {
    return AccessLogGenerator.dayStart(firstDay.plusDays(days));
  }
}
