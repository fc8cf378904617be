/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.search;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * A time range in milliseconds since the epoch, {@code from} inclusive and {@code to} exclusive; either end may be
 * open ({@link Long#MIN_VALUE}, {@link Long#MAX_VALUE}).
 *
 * @param from the first millisecond in the range
 * @param to the first millisecond after it
 */
public record TimeRange(long from, long to) {
  /** No bound at all. */
  public static final TimeRange ALL = new TimeRange(Long.MIN_VALUE, Long.MAX_VALUE);

  /**
   * Parses the {@code from} and {@code to} parameters: an instant ({@code 2024-02-03T10:00:00Z}), a date-time in UTC
   * ({@code 2024-02-03T10:00}), a day in UTC ({@code 2024-02-03}, its start), or milliseconds since the epoch. Blank
   * or null is an open end.
   *
   * @throws IllegalArgumentException naming the parameter if one cannot be read, or {@code from} is not before
   *     {@code to}
   */
  public static TimeRange parse(String from, String to) {
    long start = from == null || from.isBlank() ? Long.MIN_VALUE : instant("from", from.trim());
    long end = to == null || to.isBlank() ? Long.MAX_VALUE : instant("to", to.trim());
    if (start >= end) {
      throw new IllegalArgumentException("'from' (" + from + ") must be before 'to' (" + to + ")");
    }
    return new TimeRange(start, end);
  }

  /** Whether both ends are open. */
  public boolean isAll() {
    return from == Long.MIN_VALUE && to == Long.MAX_VALUE;
  }

  private static long instant(String parameter, String text) {
    if (text.chars().allMatch(Character::isDigit) && text.length() <= 18) {
      return Long.parseLong(text);
    }
    try {
      if (text.length() == 10) {
        return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
      }
      if (text.endsWith("Z") || text.matches(".*[+-]\\d\\d:\\d\\d$")) {
        return Instant.parse(text).toEpochMilli();
      }
      return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("'" + parameter + "' must be an ISO-8601 instant (2024-02-03T10:00:00Z), a day"
          + " (2024-02-03) or milliseconds since the epoch, got '" + text + "'");
    }
  }
}
