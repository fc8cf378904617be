/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Random;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** Dates parsed and printed as Elasticsearch does, checked against java.time computations. */
class DateFormatsTest {
  private static final ZoneId UTC = ZoneOffset.UTC;
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final long NOW = Instant.parse("2024-03-14T15:09:26.535Z").toEpochMilli();
  private static final LongSupplier CLOCK = () -> NOW;

  private static long parse(String text, String format, ZoneId zone, boolean roundUp) {
    return DateFormats.parse(text, format, zone, roundUp, CLOCK);
  }

  private static long ms(ZonedDateTime t) {
    return t.toInstant().toEpochMilli();
  }

  private static long startOfDay(LocalDate d, ZoneId z) {
    return ms(d.atStartOfDay(z));
  }

  @Test
  void defaultFormatReadsInstantsDatesAndEpochMillis() {
    assertEquals(Instant.parse("2024-03-01T10:15:30Z").toEpochMilli(), parse("2024-03-01T10:15:30Z", null, UTC, false));
    assertEquals(OffsetDateTime.parse("2024-03-01T10:15:30.123+01:00").toInstant().toEpochMilli(),
        parse("2024-03-01T10:15:30.123+01:00", null, BERLIN, false));
    assertEquals(Instant.parse("2024-03-01T10:15:30.500Z").toEpochMilli(), parse("2024-03-01T10:15:30.5", null, UTC, false));
    assertEquals(1709251200000L, parse("1709251200000", null, UTC, false));
    assertEquals(1709251200000L, parse("1709251200000", "epoch_millis", UTC, true)); // epoch: no rounding
    // in a zone, the local date-time the number names in UTC, as a 9.3.3 node reads it (epochNumbersAreReadInTheZone)
    assertEquals(1709251200000L - 3_600_000L, parse("1709251200000", "epoch_millis", BERLIN, true));
    assertEquals(1709251200000L, parse("1709251200", "epoch_second", UTC, false));
    assertEquals(-1000L, parse("-1000", "epoch_millis", UTC, false));
  }

  /** A partial date is its first millisecond, or rounded up its last (lte, gt), in the zone. */
  @Test
  void partialDatesRoundUpToTheirLastMillisecond() {
    LocalDate d = LocalDate.of(2024, 3, 1);
    for (ZoneId z : new ZoneId[] {UTC, BERLIN, ZoneId.of("-05:00"), ZoneId.of("America/New_York")}) {
      assertEquals(startOfDay(d, z), parse("2024-03-01", null, z, false));
      assertEquals(startOfDay(d.plusDays(1), z) - 1, parse("2024-03-01", null, z, true));
      assertEquals(startOfDay(d.withDayOfMonth(1), z), parse("2024-03", null, z, false));
      // Elasticsearch's missing components: month and day are the first, the time of day its last millisecond
      assertEquals(startOfDay(LocalDate.of(2024, 3, 2), z) - 1, parse("2024-03", null, z, true));
      assertEquals(startOfDay(LocalDate.of(2024, 1, 2), z) - 1, parse("2024", null, z, true));
      assertEquals(ms(LocalDateTime.of(2024, 3, 1, 10, 59, 59, 999_000_000).atZone(z)),
          parse("2024-03-01T10", null, z, true));
      assertEquals(ms(LocalDateTime.of(2024, 3, 1, 10, 15, 59, 999_000_000).atZone(z)),
          parse("2024-03-01T10:15", "strict_date_optional_time", z, true));
      assertEquals(ms(LocalDateTime.of(2024, 3, 1, 10, 15, 30, 999_000_000).atZone(z)),
          parse("2024-03-01T10:15:30", null, z, true));
    }
    // a DST change in the day: Berlin's 2024-03-31 has 23 hours
    assertEquals(startOfDay(LocalDate.of(2024, 4, 1), BERLIN) - 1, parse("2024-03-31", null, BERLIN, true));
  }

  @Test
  void builtInAndCustomFormats() {
    assertEquals(startOfDay(LocalDate.of(2024, 3, 1), UTC), parse("20240301", "basic_date", UTC, false));
    assertEquals(startOfDay(LocalDate.of(2024, 3, 1), BERLIN), parse("2024-03-01", "strict_date", BERLIN, false));
    assertEquals(startOfDay(LocalDate.of(2024, 3, 1), UTC), parse("2024-3-1", "date", UTC, false));
    assertEquals(startOfDay(LocalDate.of(2024, 3, 1), UTC), parse("2024-3-1", "date_optional_time", UTC, false));
    assertThrows(DslException.class, () -> parse("2024-3-1", "strict_date_optional_time", UTC, false));
    assertEquals(ms(LocalDateTime.of(2024, 3, 1, 10, 0, 5).atZone(UTC)),
        parse("2024-03-01T10:00:05", "strict_date_hour_minute_second", UTC, false));
    assertEquals(Instant.parse("2024-03-01T10:00:05.250Z").toEpochMilli(),
        parse("2024-03-01T10:00:05.250Z", "strict_date_time", BERLIN, false));
    assertEquals(ms(LocalDateTime.of(2024, 3, 10, 7, 30).atZone(UTC)),
        parse("2024-03-10T07:30", "strict_date_hour_minute", UTC, false));
    assertEquals(Instant.parse("2024-03-10T00:00:00.000Z").toEpochMilli(),
        parse("20240310T000000.000Z", "basic_date_time||basic_date_time_no_millis", BERLIN, false));
    assertEquals(Instant.parse("2024-03-11T23:00:00Z").toEpochMilli(),
        parse("20240312T000000+01:00", "basic_date_time||basic_date_time_no_millis", UTC, false));
    assertEquals(ms(LocalDateTime.of(2024, 3, 1, 10, 0, 5).atZone(BERLIN)),
        parse("2024-03-01 10:00:05", "yyyy-MM-dd HH:mm:ss", BERLIN, false));
    assertEquals(startOfDay(LocalDate.of(2024, 3, 2), UTC) - 1, parse("01/03/2024", "dd/MM/yyyy", UTC, true));
    assertEquals(startOfDay(LocalDate.of(2024, 3, 1), UTC), parse("01/03/2024", "yyyy-MM-dd||dd/MM/yyyy", UTC, false));
    // in a DST gap (Berlin 2024-03-31 02:30 does not exist) and overlap, as java.time places them
    assertEquals(ms(LocalDateTime.of(2024, 3, 31, 2, 30).atZone(BERLIN)),
        parse("2024-03-31 02:30:00", "yyyy-MM-dd HH:mm:ss", BERLIN, false));
    assertEquals(ms(LocalDateTime.of(2024, 10, 27, 2, 30).atZone(BERLIN)),
        parse("2024-10-27T02:30:00", null, BERLIN, false));
    DslException e = assertThrows(DslException.class, () -> parse("yesterday", null, UTC, false));
    assertEquals(400, e.status());
    assertTrue(e.getMessage().contains("yesterday"), e.getMessage());
  }

  @Test
  void dateMath() {
    ZonedDateTime now = Instant.ofEpochMilli(NOW).atZone(UTC);
    assertEquals(NOW, parse("now", null, UTC, false));
    assertEquals(ms(now.minusDays(1)), parse("now-1d", null, UTC, false));
    assertEquals(ms(now.plusHours(3).minusMinutes(2)), parse("now+3h-2m", null, UTC, false));
    assertEquals(ms(now.truncatedTo(ChronoUnit.DAYS)), parse("now/d", null, UTC, false));
    assertEquals(ms(now.truncatedTo(ChronoUnit.DAYS).plusDays(1)) - 1, parse("now/d", null, UTC, true));
    ZonedDateTime berlin = Instant.ofEpochMilli(NOW).atZone(BERLIN);
    assertEquals(ms(berlin.minusDays(7).toLocalDate().atStartOfDay(BERLIN)), parse("now-7d/d", null, BERLIN, false));
    assertEquals(ms(berlin.toLocalDate().withDayOfMonth(1).atStartOfDay(BERLIN)), parse("now/M", null, BERLIN, false));
    assertEquals(ms(berlin.toLocalDate().withDayOfYear(1).plusYears(1).atStartOfDay(BERLIN)) - 1,
        parse("now/y", null, BERLIN, true));
    assertEquals(ms(now.toLocalDate().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).atStartOfDay(UTC)),
        parse("now/w", null, UTC, false));
    assertEquals(ms(now.truncatedTo(ChronoUnit.HOURS)), parse("now/h", null, UTC, false));
    assertEquals(ms(now.truncatedTo(ChronoUnit.HOURS)), parse("now/H", null, UTC, false));
    assertEquals(ms(now.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1)) - 1, parse("now/m", null, UTC, true));
    assertEquals(ms(now.truncatedTo(ChronoUnit.SECONDS)), parse("now/s", null, UTC, false));
    assertEquals(startOfDay(LocalDate.of(2024, 4, 1), UTC), parse("2024-03-01||+1M", null, UTC, false));
    assertEquals(startOfDay(LocalDate.of(2024, 4, 1), UTC) - 1, parse("2024-03-15||/M", null, UTC, true));
    assertEquals(startOfDay(LocalDate.of(2023, 3, 1), UTC), parse("2024-03-01||-1y", null, UTC, false));
    DslException e = assertThrows(DslException.class, () -> parse("now-1x", null, UTC, false));
    assertTrue(e.getMessage().contains("now-1x"), e.getMessage());
  }

  /** Epoch numbers in a zone, as a 9.3.3 node reads them: the local date-time they name in UTC, in the zone. */
  @Test
  void epochNumbersAreReadInTheZone() {
    long t = 1711307379113L;
    assertEquals(t - 3_600_000L, parse(Long.toString(t), null, ZoneId.of("+01:00"), true));
    assertEquals(t + 3 * 3_600_000L, parse(Long.toString(t), "epoch_millis", ZoneId.of("-03:00"), false));
    assertEquals(1711307379000L - 3_600_000L, parse("1711307379", "epoch_second", BERLIN, false)); // CET in March
    assertEquals(t, parse(Long.toString(t), null, UTC, false));
  }

  @Test
  void zones() {
    assertEquals(ZoneId.of("+01:00"), DateFormats.zone("+01:00"));
    assertEquals(ZoneId.of("-05:00"), DateFormats.zone("-05:00"));
    assertEquals(ZoneOffset.UTC, DateFormats.zone("Z"));
    assertEquals(ZoneId.of("UTC"), DateFormats.zone("UTC"));
    assertEquals(BERLIN, DateFormats.zone("Europe/Berlin"));
    DslException e = assertThrows(DslException.class, () -> DateFormats.zone("Mars/Olympus"));
    assertEquals(400, e.status());
    assertTrue(e.getMessage().contains("Mars/Olympus"), e.getMessage());
  }

  @Test
  void formatsWithTheFirstAlternative() {
    long t = Instant.parse("2024-03-01T00:00:00Z").toEpochMilli();
    assertEquals("2024-03-01T00:00:00.000Z", DateFormats.format(t, null, UTC));
    assertEquals("2024-03-01T00:00:00.000Z", DateFormats.format(t, "strict_date_optional_time", ZoneId.of("UTC")));
    assertEquals("2024-03-01T01:00:00.000+01:00", DateFormats.format(t, null, ZoneId.of("+01:00")));
    assertEquals("2024-03-01T01:00:00.000+01:00", DateFormats.format(t, null, BERLIN));
    assertEquals(Long.toString(t), DateFormats.format(t, "epoch_millis||strict_date_optional_time", UTC));
    assertEquals("1709251200", DateFormats.format(t, "epoch_second", UTC));
    assertEquals("2024-03-01", DateFormats.format(t, "yyyy-MM-dd||epoch_millis", UTC));
    assertEquals("2024-03-01 00:00:00", DateFormats.format(t, "yyyy-MM-dd HH:mm:ss", UTC));
    // built-in names a 9.3.3 node prints so (issue 54)
    assertEquals("2024-03-01T00:00", DateFormats.format(t, "strict_date_hour_minute", UTC));
    assertEquals("20240301T000000.000Z", DateFormats.format(t, "basic_date_time", UTC));
    assertEquals("20240301T010000.000+01:00", DateFormats.format(t, "basic_date_time", ZoneId.of("+01:00")));
    assertEquals("20240301T000000Z", DateFormats.format(t + 999, "basic_date_time_no_millis", UTC));
  }

  /** Random instants and zones: what is printed parses back to the same millisecond. */
  @Test
  void printedDatesParseBack() {
    Random random = new Random(20240301L);
    String[] zones = {"UTC", "Europe/Berlin", "America/New_York", "+05:30", "-08:00", "Australia/Lord_Howe"};
    for (int i = 0; i < 2000; i++) {
      long t = random.nextLong(-2_000_000_000_000L, 4_000_000_000_000L);
      ZoneId z = DateFormats.zone(zones[random.nextInt(zones.length)]);
      String printed = DateFormats.format(t, null, z);
      assertEquals(t, DateFormats.parse(printed, null, UTC, random.nextBoolean(), CLOCK), printed);
      String expected = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX").format(Instant.ofEpochMilli(t).atZone(z));
      assertEquals(expected, printed);
      String day = DateFormats.format(t, "yyyy-MM-dd", z);
      LocalDate d = Instant.ofEpochMilli(t).atZone(z).toLocalDate();
      assertEquals(startOfDay(d, z), DateFormats.parse(day, "yyyy-MM-dd", z, false, CLOCK));
      assertEquals(startOfDay(d.plusDays(1), z) - 1, DateFormats.parse(day, "yyyy-MM-dd", z, true, CLOCK));
    }
  }
}
