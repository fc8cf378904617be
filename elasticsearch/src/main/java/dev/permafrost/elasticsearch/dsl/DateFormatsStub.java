/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A stand-in for {@code DateFormats} until it lands: the same three signatures, covering
 * {@code strict_date_optional_time} (and {@code date_optional_time}), {@code epoch_millis}, {@code epoch_second} and
 * plain {@link DateTimeFormatter} patterns, without date math beyond a bare {@code now}.
 */
final class DateFormatsStub {
  private static final DateTimeFormatter PRINT = new DateTimeFormatterBuilder()
      .appendPattern("uuuu-MM-dd'T'HH:mm:ss.SSS")
      .appendOffset("+HH:MM", "Z")
      .toFormatter(Locale.ROOT);
  private static final DateTimeFormatter PARSE = new DateTimeFormatterBuilder()
      .append(DateTimeFormatter.ISO_LOCAL_DATE)
      .optionalStart()
      .appendLiteral('T')
      .appendValue(ChronoField.HOUR_OF_DAY, 2)
      .optionalStart()
      .appendLiteral(':')
      .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
      .optionalStart()
      .appendLiteral(':')
      .appendValue(ChronoField.SECOND_OF_MINUTE, 2)
      .optionalStart()
      .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
      .optionalEnd()
      .optionalEnd()
      .optionalEnd()
      .optionalStart()
      .appendOffset("+HH:MM", "Z")
      .optionalEnd()
      .optionalEnd()
      .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
      .parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0)
      .parseDefaulting(ChronoField.SECOND_OF_MINUTE, 0)
      .toFormatter(Locale.ROOT);

  private DateFormatsStub() {}

  /** {@code epochMillis} in the first {@code ||} alternative of {@code format}, in {@code zone}. */
  static String format(long epochMillis, String format, ZoneId zone) {
    String first = format.split("\\|\\|", 2)[0].trim();
    ZonedDateTime time = Instant.ofEpochMilli(epochMillis).atZone(zone);
    return switch (first) {
      case "epoch_millis" -> Long.toString(epochMillis);
      case "epoch_second" -> Long.toString(Math.floorDiv(epochMillis, 1000L));
      case "strict_date_optional_time", "date_optional_time", "strict_date_time", "date_time" -> PRINT.format(time);
      case "strict_date", "date" -> DateTimeFormatter.ISO_LOCAL_DATE.format(time);
      default -> {
        try {
          yield DateTimeFormatter.ofPattern(first, Locale.ROOT).format(time);
        } catch (IllegalArgumentException | DateTimeException e) {
          throw DslException.illegalArgument("Invalid format: [" + format + "]: " + e.getMessage());
        }
      }
    };
  }

  /** The zone of a {@code time_zone} parameter: an offset ({@code +01:00}) or a region id ({@code Europe/Berlin}). */
  static ZoneId zone(String timeZone) {
    if (timeZone == null || timeZone.equals("Z") || timeZone.equalsIgnoreCase("UTC")) {
      return ZoneOffset.UTC;
    }
    try {
      return ZoneId.of(timeZone).normalized();
    } catch (DateTimeException e) {
      throw DslException.illegalArgument("unknown time zone [" + timeZone + "]");
    }
  }

  /** Parses {@code text} with the first alternative of {@code format} that accepts it, into epoch milliseconds. */
  static long parse(String text, String format, ZoneId zone, boolean roundUp, LongSupplier now) {
    if ("now".equals(text)) {
      return now.getAsLong();
    }
    for (String alternative : format.split("\\|\\|")) {
      String f = alternative.trim();
      try {
        switch (f) {
          case "epoch_millis":
            if (text.matches("-?\\d+")) {
              return Long.parseLong(text);
            }
            break;
          case "epoch_second":
            if (text.matches("-?\\d+")) {
              return Math.multiplyExact(Long.parseLong(text), 1000L);
            }
            break;
          case "strict_date_optional_time", "date_optional_time", "strict_date_time", "date_time", "strict_date",
              "date": {
            TemporalAccessor parsed = PARSE.parse(text);
            LocalDateTime local = LocalDateTime.from(parsed);
            if (parsed.isSupported(ChronoField.OFFSET_SECONDS)) {
              return local.toInstant(ZoneOffset.ofTotalSeconds(parsed.get(ChronoField.OFFSET_SECONDS))).toEpochMilli();
            }
            return local.atZone(zone).toInstant().toEpochMilli();
          }
          default: {
            TemporalAccessor parsed = DateTimeFormatter.ofPattern(f, Locale.ROOT).parse(text);
            return LocalDateTime.from(parsed).atZone(zone).toInstant().toEpochMilli();
          }
        }
      } catch (DateTimeException | IllegalArgumentException | ArithmeticException e) {
        // the next alternative
      }
    }
    throw DslException.parsing("failed to parse date field [" + text + "] with format [" + format + "]");
  }
}
