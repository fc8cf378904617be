/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * Prints a date as the engines print a date field's value: in the first of its format's {@code ||} alternatives (a
 * synthetic {@code _source}, {@code key_as_string}, {@code value_as_string}). {@code strict_date_optional_time} and
 * its kin print milliseconds always ({@code 2024-03-14T20:00:16.000Z}); {@code strict_date_optional_time_nanos}, a
 * {@code date_nanos} field's default, prints 3 to 9 digits of fraction, as many as the value needs
 * ({@code 2024-03-14T20:00:16.1234Z}); {@code epoch_millis} and {@code epoch_second} print the number, with a
 * fraction where the value has one ({@code 1710446416.5}); any other alternative is a java.time pattern
 * ({@code yyyy-MM-dd HH:mm:ss}). One home for the rule, which the search API's {@code DateFormats} and
 * {@link EngineDocuments} share.
 */
public final class DatePrinter {
  /** A {@code date_nanos} field's format when its mapping names none. */
  public static final String DEFAULT_NANOS_FORMAT = "strict_date_optional_time_nanos||epoch_millis";

  private static final DateTimeFormatter MILLIS = new DateTimeFormatterBuilder()
      .appendPattern("uuuu-MM-dd'T'HH:mm:ss").appendFraction(ChronoField.NANO_OF_SECOND, 3, 3, true)
      .appendOffset("+HH:MM", "Z").toFormatter(Locale.ROOT);
  private static final DateTimeFormatter NANOS = new DateTimeFormatterBuilder()
      .appendPattern("uuuu-MM-dd'T'HH:mm:ss").appendFraction(ChronoField.NANO_OF_SECOND, 3, 9, true)
      .appendOffset("+HH:MM", "Z").toFormatter(Locale.ROOT);
  private static final DateTimeFormatter NO_MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX",
      Locale.ROOT);

  private DatePrinter() {}

  /**
   * {@code epochMillis} printed in the first alternative of {@code format}, in {@code zone}.
   *
   * @throws IllegalArgumentException naming the format if it is neither a built-in name nor a valid pattern
   */
  public static String print(long epochMillis, String format, ZoneId zone) {
    return print(Instant.ofEpochMilli(epochMillis), format, zone);
  }

  /** {@code epochNanos} (a {@code date_nanos} doc value) printed as {@link #print(long, String, ZoneId)} does. */
  public static String printNanos(long epochNanos, String format, ZoneId zone) {
    return print(Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L),
        Math.floorMod(epochNanos, 1_000_000_000L)), format, zone);
  }

  /** The first of a format's {@code ||} alternatives. */
  public static String first(String format) {
    int i = format.indexOf("||");
    return (i < 0 ? format : format.substring(0, i)).trim();
  }

  private static String print(Instant instant, String format, ZoneId zone) {
    String first = first(format);
    ZonedDateTime time = instant.atZone(zone == null ? ZoneOffset.UTC : zone);
    return switch (first) {
      case "epoch_millis" -> decimal(instant, 3);
      case "epoch_second" -> decimal(instant, 0);
      case "strict_date_optional_time", "date_optional_time", "strict_date_time", "date_time" -> MILLIS.format(time);
      case "strict_date_optional_time_nanos" -> NANOS.format(time);
      case "strict_date_time_no_millis", "date_time_no_millis" -> NO_MILLIS.format(time);
      case "strict_date", "date" -> pattern("uuuu-MM-dd").format(time);
      case "basic_date" -> pattern("uuuuMMdd").format(time);
      case "strict_date_hour_minute_second", "date_hour_minute_second" ->
          pattern("uuuu-MM-dd'T'HH:mm:ss").format(time);
      case "strict_date_hour_minute", "date_hour_minute" -> pattern("uuuu-MM-dd'T'HH:mm").format(time);
      case "basic_date_time" -> pattern("uuuuMMdd'T'HHmmss.SSSXXX").format(time); // 20240301T000000.000+01:00
      case "basic_date_time_no_millis" -> pattern("uuuuMMdd'T'HHmmssXXX").format(time);
      default -> pattern(first).format(time);
    };
  }

  /** The instant as a number of seconds ({@code shift} 0) or milliseconds (3), its fraction only where it has one. */
  private static String decimal(Instant instant, int shift) {
    BigDecimal seconds = BigDecimal.valueOf(instant.getEpochSecond())
        .add(BigDecimal.valueOf(instant.getNano(), 9));
    BigDecimal value = seconds.movePointRight(shift).stripTrailingZeros();
    return value.scale() < 0 ? value.setScale(0).toPlainString() : value.toPlainString();
  }

  /**
   * The formatter of a java.time pattern.
   *
   * @throws IllegalArgumentException naming the pattern if it is not a valid one
   */
  public static DateTimeFormatter pattern(String pattern) {
    try {
      return DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid date format [" + pattern + "]: " + e.getMessage(), e);
    }
  }
}
