/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.DatePrinter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.text.ParsePosition;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.SignStyle;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;
import java.time.temporal.TemporalAdjusters;
import java.time.temporal.TemporalQueries;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Elasticsearch's date formats and date math over epoch milliseconds: a format is one or more alternatives separated
 * by {@code ||}, each a built-in name ({@code strict_date_optional_time}, {@code date_optional_time},
 * {@code strict_date_time}, {@code date_time}, {@code epoch_millis}, {@code epoch_second}, {@code strict_date},
 * {@code date}, {@code basic_date}, {@code strict_date_hour_minute_second}, {@code date_hour_minute_second},
 * {@code strict_date_hour_minute}, {@code date_hour_minute}, {@code basic_date_time},
 * {@code basic_date_time_no_millis}) or a
 * java.time pattern such as {@code yyyy-MM-dd HH:mm:ss}. A date without an offset is in the given zone, and so, as
 * the node reads them, are epoch numbers (the local date-time they name in UTC). A date
 * missing its smaller units is their first instant, or rounded up to their last millisecond where asked (the upper
 * bound {@code lte} of a range). Date math ({@code now-1d/d}, {@code 2024-03-01||+1M}) adds and subtracts units
 * {@code y M w d h H m s} and rounds down to one, or up to its last millisecond.
 */
public final class DateFormats {
  /** The engines' format of a date field whose mapping names none, and of a date given without one. */
  public static final String DEFAULT_FORMAT = "strict_date_optional_time||epoch_millis";

  private DateFormats() {}

  /**
   * The epoch milliseconds {@code text} names in {@code format}, with date math.
   *
   * @param format one or more alternatives separated by {@code ||}, or null for {@link #DEFAULT_FORMAT}
   * @param zone the zone of a date without an offset, and of date-math rounding
   * @param roundUp whether missing units and rounding go to the last millisecond ({@code gt}, {@code lte}) rather
   *     than the first ({@code gte}, {@code lt})
   * @param now the current time in epoch milliseconds, for {@code now}
   * @throws DslException if the text is not a date in any of the format's alternatives, or its date math is invalid
   */
  public static long parse(String text, String format, ZoneId zone, boolean roundUp, LongSupplier now) {
    String fmt = format == null ? DEFAULT_FORMAT : format;
    ZoneId z = zone == null ? ZoneOffset.UTC : zone;
    String t = text.trim();
    long base;
    String math;
    if (t.startsWith("now")) {
      base = now.getAsLong();
      math = t.substring(3);
    } else {
      int i = t.indexOf("||");
      if (i < 0) {
        return parseDate(t, fmt, z, roundUp);
      }
      base = parseDate(t.substring(0, i), fmt, z, false);
      math = t.substring(i + 2);
    }
    return applyMath(text, base, math, z, roundUp);
  }

  /**
   * {@code epochMillis} printed in the first alternative of {@code format} in {@code zone}, as Elasticsearch prints
   * {@code key_as_string} and {@code value_as_string}: {@code 2024-03-01T00:00:00.000Z} for
   * {@code strict_date_optional_time} in UTC, {@code 2024-03-01T00:00:00.000+01:00} at an offset, the number for
   * {@code epoch_millis}.
   *
   * @param format one or more alternatives separated by {@code ||}, or null for {@link #DEFAULT_FORMAT}
   * @throws DslException if the format is not a built-in name or a valid pattern
   */
  public static String format(long epochMillis, String format, ZoneId zone) {
    try {
      return DatePrinter.print(epochMillis, format == null ? DEFAULT_FORMAT : format, zone);
    } catch (IllegalArgumentException e) {
      throw DslException.illegalArgument(e.getMessage());
    }
  }

  /**
   * The zone {@code timeZone} names: an offset ({@code +01:00}, {@code -05:00}, {@code Z}), {@code UTC} or a region
   * ({@code Europe/Berlin}).
   *
   * @throws DslException naming the zone if it is none of these
   */
  public static ZoneId zone(String timeZone) {
    try {
      return ZoneId.of(timeZone);
    } catch (DateTimeException e) {
      throw DslException.illegalArgument("unknown time zone [" + timeZone + "]: " + e.getMessage());
    }
  }

  /** The date {@code text} names in the first alternative of {@code format} it fits. */
  private static long parseDate(String text, String format, ZoneId zone, boolean roundUp) {
    for (String alternative : format.split("\\|\\|")) {
      String name = alternative.trim();
      Long millis = switch (name) {
        case "epoch_millis" -> inZone(epoch(text, 0), zone);
        case "epoch_second" -> inZone(epoch(text, 3), zone);
        default -> fields(text, formatter(name), zone, roundUp);
      };
      if (millis != null) {
        return millis;
      }
    }
    throw DslException.shard("parse_exception", "failed to parse date field [" + text + "] with format [" + format
        + "]"); // as the node: each shard fails to build its query
  }

  /**
   * Epoch milliseconds read in a zone as the node reads them: as the local date-time they are in UTC, placed in the
   * zone ({@code 1711307379113} at {@code +01:00} is an hour earlier). A 9.3.3 node answers a range
   * {@code {"lte": 1711307379113, "time_zone": "+01:00"}} so, whatever its format; null stays null.
   */
  private static Long inZone(Long epochMillis, ZoneId zone) {
    if (epochMillis == null || zone.normalized().equals(ZoneOffset.UTC)) {
      return epochMillis;
    }
    try {
      return LocalDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC).atZone(zone).toInstant()
          .toEpochMilli();
    } catch (DateTimeException | ArithmeticException e) {
      return null;
    }
  }

  /** A number of seconds ({@code shift} 3) or milliseconds (0), maybe with a fraction, as milliseconds; else null. */
  private static Long epoch(String text, int shift) {
    if (!text.matches("-?\\d+(\\.\\d+)?")) {
      return null;
    }
    try {
      BigDecimal millis = new BigDecimal(text).movePointRight(shift);
      return millis.setScale(0, RoundingMode.FLOOR).longValueExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }

  /** The parser of a built-in format name or a pattern. */
  private static DateTimeFormatter formatter(String name) {
    return switch (name) {
      case "strict_date_optional_time", "strict_date_optional_time_nanos" -> optionalTime(true);
      case "date_optional_time" -> optionalTime(false);
      case "strict_date_time" -> dateTime(true, true, true);
      case "date_time" -> dateTime(false, true, true);
      case "strict_date_hour_minute_second" -> dateTime(true, false, false);
      case "date_hour_minute_second" -> dateTime(false, false, false);
      case "strict_date" -> date(true).toFormatter(Locale.ROOT);
      case "date" -> date(false).toFormatter(Locale.ROOT);
      case "basic_date" -> new DateTimeFormatterBuilder().appendValue(ChronoField.YEAR, 4)
          .appendValue(ChronoField.MONTH_OF_YEAR, 2).appendValue(ChronoField.DAY_OF_MONTH, 2).toFormatter(Locale.ROOT);
      case "strict_date_hour_minute", "date_hour_minute" -> {
        DateTimeFormatterBuilder b = date(name.startsWith("strict")).appendLiteral('T');
        value(b, ChronoField.HOUR_OF_DAY, name.startsWith("strict"));
        b.appendLiteral(':');
        value(b, ChronoField.MINUTE_OF_HOUR, name.startsWith("strict"));
        yield b.toFormatter(Locale.ROOT);
      }
      case "basic_date_time", "basic_date_time_no_millis" -> {
        DateTimeFormatterBuilder b = new DateTimeFormatterBuilder().appendValue(ChronoField.YEAR, 4)
            .appendValue(ChronoField.MONTH_OF_YEAR, 2).appendValue(ChronoField.DAY_OF_MONTH, 2).appendLiteral('T')
            .appendValue(ChronoField.HOUR_OF_DAY, 2).appendValue(ChronoField.MINUTE_OF_HOUR, 2)
            .appendValue(ChronoField.SECOND_OF_MINUTE, 2);
        if (name.equals("basic_date_time")) {
          b.appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true);
        }
        offset(b);
        yield b.toFormatter(Locale.ROOT);
      }
      default -> pattern(name);
    };
  }

  private static DateTimeFormatter pattern(String pattern) {
    try {
      return DatePrinter.pattern(pattern);
    } catch (IllegalArgumentException e) {
      throw DslException.illegalArgument(e.getMessage());
    }
  }

  private static DateTimeFormatterBuilder date(boolean strict) {
    DateTimeFormatterBuilder b = new DateTimeFormatterBuilder();
    if (strict) {
      b.appendValue(ChronoField.YEAR, 4, 9, SignStyle.EXCEEDS_PAD).appendLiteral('-')
          .appendValue(ChronoField.MONTH_OF_YEAR, 2).appendLiteral('-').appendValue(ChronoField.DAY_OF_MONTH, 2);
    } else {
      b.appendValue(ChronoField.YEAR, 1, 9, SignStyle.NORMAL).appendLiteral('-')
          .appendValue(ChronoField.MONTH_OF_YEAR, 1, 2, SignStyle.NOT_NEGATIVE).appendLiteral('-')
          .appendValue(ChronoField.DAY_OF_MONTH, 1, 2, SignStyle.NOT_NEGATIVE);
    }
    return b;
  }

  private static void value(DateTimeFormatterBuilder b, ChronoField field, boolean strict) {
    if (strict) {
      b.appendValue(field, 2);
    } else {
      b.appendValue(field, 1, 2, SignStyle.NOT_NEGATIVE);
    }
  }

  /** An offset: {@code Z}, {@code +01:00}, {@code +0100} or {@code +01}. */
  private static void offset(DateTimeFormatterBuilder b) {
    b.optionalStart().appendOffset("+HH:MM", "Z").optionalEnd()
        .optionalStart().appendOffset("+HHMM", "Z").optionalEnd()
        .optionalStart().appendOffset("+HH", "Z").optionalEnd();
  }

  /** {@code yyyy[-MM[-dd['T'HH[:mm[:ss[.S]]]]]][offset]}. */
  private static DateTimeFormatter optionalTime(boolean strict) {
    DateTimeFormatterBuilder b = new DateTimeFormatterBuilder();
    if (strict) {
      b.appendValue(ChronoField.YEAR, 4, 9, SignStyle.EXCEEDS_PAD);
    } else {
      b.appendValue(ChronoField.YEAR, 1, 9, SignStyle.NORMAL);
    }
    b.optionalStart().appendLiteral('-');
    value(b, ChronoField.MONTH_OF_YEAR, strict);
    b.optionalStart().appendLiteral('-');
    value(b, ChronoField.DAY_OF_MONTH, strict);
    b.optionalStart().appendLiteral('T');
    value(b, ChronoField.HOUR_OF_DAY, strict);
    b.optionalStart().appendLiteral(':');
    value(b, ChronoField.MINUTE_OF_HOUR, strict);
    b.optionalStart().appendLiteral(':');
    value(b, ChronoField.SECOND_OF_MINUTE, strict);
    b.optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd();
    b.optionalStart().appendLiteral(',').appendValue(ChronoField.NANO_OF_SECOND, 1, 9, SignStyle.NOT_NEGATIVE)
        .optionalEnd();
    b.optionalEnd().optionalEnd(); // seconds, minutes
    offset(b);
    b.optionalEnd().optionalEnd().optionalEnd(); // hours, days, months
    return b.toFormatter(Locale.ROOT);
  }

  /** {@code yyyy-MM-dd'T'HH:mm:ss}, then a fraction and an offset where asked. */
  private static DateTimeFormatter dateTime(boolean strict, boolean fraction, boolean offset) {
    DateTimeFormatterBuilder b = date(strict).appendLiteral('T');
    value(b, ChronoField.HOUR_OF_DAY, strict);
    b.appendLiteral(':');
    value(b, ChronoField.MINUTE_OF_HOUR, strict);
    b.appendLiteral(':');
    value(b, ChronoField.SECOND_OF_MINUTE, strict);
    if (fraction) {
      b.appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true);
    }
    if (offset) {
      b.optionalStart().appendOffset("+HH:MM", "Z").optionalEnd()
          .optionalStart().appendOffset("+HHMM", "Z").optionalEnd();
    }
    return b.toFormatter(Locale.ROOT);
  }

  /**
   * The whole of {@code text} parsed by {@code formatter}, the units it lacks filled with their first value (or last,
   * {@code roundUp}), in its own offset or zone if it has one, else in {@code zone}; null if it does not parse.
   */
  private static Long fields(String text, DateTimeFormatter formatter, ZoneId zone, boolean roundUp) {
    ParsePosition position = new ParsePosition(0);
    TemporalAccessor parsed;
    try {
      parsed = formatter.parseUnresolved(text, position);
    } catch (RuntimeException e) {
      return null;
    }
    if (parsed == null || position.getErrorIndex() >= 0 || position.getIndex() != text.length()) {
      return null;
    }
    try {
      int year;
      if (parsed.isSupported(ChronoField.YEAR)) {
        year = (int) parsed.getLong(ChronoField.YEAR);
      } else if (parsed.isSupported(ChronoField.YEAR_OF_ERA)) {
        long yoe = parsed.getLong(ChronoField.YEAR_OF_ERA);
        year = (int) (parsed.isSupported(ChronoField.ERA) && parsed.getLong(ChronoField.ERA) == 0 ? 1 - yoe : yoe);
      } else {
        year = 1970;
      }
      // as Elasticsearch fills in missing components: month and day are the first even rounding up (lte "2024-03"
      // is 2024-03-01T23:59:59.999), only the time of day goes to its last millisecond
      int month = (int) get(parsed, ChronoField.MONTH_OF_YEAR, 1, 1, roundUp);
      int day = (int) get(parsed, ChronoField.DAY_OF_MONTH, 1, 1, roundUp);
      int hour;
      if (parsed.isSupported(ChronoField.HOUR_OF_DAY)) {
        hour = (int) parsed.getLong(ChronoField.HOUR_OF_DAY);
      } else if (parsed.isSupported(ChronoField.CLOCK_HOUR_OF_AMPM) || parsed.isSupported(ChronoField.HOUR_OF_AMPM)) {
        int h = parsed.isSupported(ChronoField.HOUR_OF_AMPM) ? (int) parsed.getLong(ChronoField.HOUR_OF_AMPM)
            : (int) parsed.getLong(ChronoField.CLOCK_HOUR_OF_AMPM) % 12;
        hour = h + (parsed.isSupported(ChronoField.AMPM_OF_DAY) ? 12 * (int) parsed.getLong(ChronoField.AMPM_OF_DAY) : 0);
      } else {
        hour = roundUp ? 23 : 0;
      }
      int minute = (int) get(parsed, ChronoField.MINUTE_OF_HOUR, 0, 59, roundUp);
      int second = (int) get(parsed, ChronoField.SECOND_OF_MINUTE, 0, 59, roundUp);
      int nano;
      if (parsed.isSupported(ChronoField.NANO_OF_SECOND)) {
        nano = (int) parsed.getLong(ChronoField.NANO_OF_SECOND);
      } else if (parsed.isSupported(ChronoField.MILLI_OF_SECOND)) {
        nano = (int) parsed.getLong(ChronoField.MILLI_OF_SECOND) * 1_000_000;
      } else {
        nano = roundUp ? 999_999_999 : 0;
      }
      LocalDateTime local = LocalDateTime.of(year, month, day, hour, minute, second, nano);
      ZoneId at = zone;
      if (parsed.isSupported(ChronoField.OFFSET_SECONDS)) {
        at = ZoneOffset.ofTotalSeconds((int) parsed.getLong(ChronoField.OFFSET_SECONDS));
      } else if (parsed.query(TemporalQueries.zoneId()) != null) {
        at = parsed.query(TemporalQueries.zoneId());
      }
      return local.atZone(at).toInstant().toEpochMilli();
    } catch (DateTimeException | ArithmeticException e) {
      return null;
    }
  }

  private static long get(TemporalAccessor parsed, ChronoField field, long first, long last, boolean roundUp) {
    return parsed.isSupported(field) ? parsed.getLong(field) : roundUp ? last : first;
  }

  /** {@code base} with date math {@code math} ({@code +1d}, {@code -2h}, {@code /d} ...) applied in {@code zone}. */
  private static long applyMath(String text, long base, String math, ZoneId zone, boolean roundUp) {
    ZonedDateTime time = Instant.ofEpochMilli(base).atZone(zone);
    int i = 0;
    while (i < math.length()) {
      char op = math.charAt(i++);
      if (op != '+' && op != '-' && op != '/') {
        throw mathError(text, "operator [" + op + "] is not one of + - /");
      }
      int amount = 1;
      if (op != '/') {
        int start = i;
        while (i < math.length() && Character.isDigit(math.charAt(i))) {
          i++;
        }
        if (i > start) {
          try {
            amount = Integer.parseInt(math.substring(start, i));
          } catch (NumberFormatException e) {
            throw mathError(text, "the amount " + math.substring(start, i) + " is too large");
          }
        }
      }
      if (i >= math.length()) {
        throw mathError(text, "a unit is missing");
      }
      char unit = math.charAt(i++);
      ChronoUnit chrono = switch (unit) {
        case 'y' -> ChronoUnit.YEARS;
        case 'M' -> ChronoUnit.MONTHS;
        case 'w' -> ChronoUnit.WEEKS;
        case 'd' -> ChronoUnit.DAYS;
        case 'h', 'H' -> ChronoUnit.HOURS;
        case 'm' -> ChronoUnit.MINUTES;
        case 's' -> ChronoUnit.SECONDS;
        default -> throw mathError(text, "unit [" + unit + "] is not one of y M w d h H m s");
      };
      if (op == '/') {
        ZonedDateTime start = roundDown(time, chrono, zone);
        time = roundUp ? start.plus(1, chrono).minus(1, ChronoUnit.MILLIS) : start;
      } else {
        time = op == '+' ? time.plus(amount, chrono) : time.minus(amount, chrono);
      }
    }
    return time.toInstant().toEpochMilli();
  }

  private static ZonedDateTime roundDown(ZonedDateTime time, ChronoUnit unit, ZoneId zone) {
    return switch (unit) {
      case YEARS -> time.toLocalDate().withDayOfYear(1).atStartOfDay(zone);
      case MONTHS -> time.toLocalDate().withDayOfMonth(1).atStartOfDay(zone);
      case WEEKS -> time.toLocalDate().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).atStartOfDay(zone);
      case DAYS -> time.toLocalDate().atStartOfDay(zone);
      default -> time.truncatedTo(unit);
    };
  }

  private static DslException mathError(String text, String why) {
    return new DslException(400, "parse_exception", "operator or unit of date math [" + text + "] is invalid: " + why);
  }
}
