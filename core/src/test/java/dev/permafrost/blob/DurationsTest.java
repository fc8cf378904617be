/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The one reading of a duration (every unit, ISO-8601, signs, and what is refused) and the one human form: each unit at
 * its bounds, cut off rather than rounded up.
 */
class DurationsTest {
  @Test
  void underAMillisecondInWholeMicroseconds() {
    assertEquals("0 µs", Durations.format(Duration.ZERO));
    assertEquals("0 µs", Durations.formatNanos(999));
    assertEquals("1 µs", Durations.formatNanos(1_000));
    assertEquals("999 µs", Durations.formatNanos(999_999));
  }

  @Test
  void underASecondInWholeMilliseconds() {
    assertEquals("1 ms", Durations.format(Duration.ofMillis(1)));
    assertEquals("350 ms", Durations.formatNanos(350_400_000));
    assertEquals("999 ms", Durations.format(Duration.ofMillis(999)));
    assertEquals("999 ms", Durations.formatNanos(999_999_999));
  }

  @Test
  void underAMinuteInSecondsWithOneDecimal() {
    assertEquals("1.0 s", Durations.format(Duration.ofSeconds(1)));
    assertEquals("1.2 s", Durations.format(Duration.ofMillis(1_299)));
    assertEquals("59.9 s", Durations.format(Duration.ofMillis(59_900)));
    assertEquals("59.9 s", Durations.format(Duration.ofMillis(59_999)));
  }

  @Test
  void underAnHourInMinutesAndSeconds() {
    assertEquals("1 min", Durations.format(Duration.ofSeconds(60)));
    assertEquals("1 min", Durations.format(Duration.ofMillis(60_999)));
    assertEquals("2 min 5 s", Durations.format(Duration.ofSeconds(125)));
    assertEquals("59 min 59 s", Durations.format(Duration.ofSeconds(3599)));
  }

  @Test
  void fromAnHourInHoursAndMinutes() {
    assertEquals("1 h", Durations.format(Duration.ofHours(1)));
    assertEquals("1 h", Durations.format(Duration.ofSeconds(3659)));
    assertEquals("3 h 20 min", Durations.format(Duration.ofMinutes(200)));
    assertEquals("49 h 30 min", Durations.format(Duration.ofDays(2).plusMinutes(90)));
    assertEquals("2562047 h 47 min", Durations.formatNanos(Long.MAX_VALUE));
  }

  @Test
  void aNegativeDurationIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> Durations.format(Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class, () -> Durations.formatNanos(-1));
  }

  @Test
  void everyUnitReadsAsItsNumberOfNanoseconds() {
    assertEquals(Duration.ofNanos(7), Durations.parse("7nanos"));
    assertEquals(Duration.ofNanos(7_000), Durations.parse("7micros"));
    assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
    assertEquals(Duration.ofSeconds(30), Durations.parse("30s"));
    assertEquals(Duration.ofMinutes(2), Durations.parse("2m"));
    assertEquals(Duration.ofHours(3), Durations.parse("3h"));
    assertEquals(Duration.ofDays(1), Durations.parse("1d"));
    assertEquals(Duration.ofDays(14), Durations.parse("2w"));
  }

  @Test
  void caseAndBlanksDoNotMatterAndASignMayLead() {
    assertEquals(Duration.ofMillis(500), Durations.parse(" 500 MS "));
    assertEquals(Duration.ofSeconds(30), Durations.parse("30S"));
    assertEquals(Duration.ofHours(-1), Durations.parse("-1h"));
    assertEquals(Duration.ofHours(6), Durations.parse("+6h"));
    assertEquals(Duration.ZERO, Durations.parse("0s"));
    assertEquals(Duration.ZERO, Durations.parse("-0ms"));
  }

  @Test
  void isoEightySixHundredToo() {
    assertEquals(Duration.ofSeconds(30), Durations.parse("PT30S"));
    assertEquals(Duration.ofSeconds(30), Durations.parse("pt30s"));
    assertEquals(Duration.ofDays(1), Durations.parse("P1D"));
    assertEquals(Duration.ofMillis(500), Durations.parse("PT0.5S"));
    assertEquals(Duration.ofHours(-1), Durations.parse("-PT1H"));
    assertEquals(Duration.ZERO, Durations.parse("PT0S"));
    refused("P", "ISO-8601");
    refused("PT", "ISO-8601");
    refused("P1Y", "ISO-8601"); // years and months are calendar lengths, not durations
    refused("PT1X", "ISO-8601");
  }

  @Test
  void noNumberNoUnitOrAnUnknownOneIsRefusedNamingTheText() {
    refused("", "blank");
    refused("   ", "blank");
    refused("30", "a whole number and a unit");
    refused("s", "a whole number and a unit");
    refused("-ms", "a whole number and a unit");
    refused("1.5s", "a whole number and a unit");
    refused("5y", "a whole number and a unit");
    refused("5 mins", "a whole number and a unit");
    refused("5 x s", "a whole number and a unit");
    refused("soon", "a whole number and a unit");
    refused("--5s", "a whole number and a unit");
    refused("0x10s", "a whole number and a unit");
    assertThrows(IllegalArgumentException.class, () -> Durations.parse(null));
  }

  @Test
  void whatOverflowsALongOfNanosecondsIsOutOfRange() {
    assertEquals(Duration.ofNanos(Long.MAX_VALUE), Durations.parse(Long.MAX_VALUE + "nanos"));
    assertEquals(Duration.ofDays(106_751), Durations.parse("106751d"));
    refused("106752d", "out of range");
    refused("9223372036854775808nanos", "out of range");
    refused(Long.MAX_VALUE + "w", "out of range");
    refused("99999999999999999999999s", "out of range");
    refused("PT2562048H", "out of range");
    assertEquals(Duration.ofNanos(Long.MIN_VALUE), Durations.parse(Long.MIN_VALUE + "nanos"));
    refused("-106752d", "out of range");
  }

  @Test
  void elasticsearchTimeValuesHaveTheNodesUnitsAndTheBareZeroAndMinusOne() {
    assertEquals(Duration.ofNanos(5), Durations.parseTimeValue("5nanos"));
    assertEquals(Duration.ofNanos(5_000), Durations.parseTimeValue("5micros"));
    assertEquals(Duration.ofMillis(500), Durations.parseTimeValue("500ms"));
    assertEquals(Duration.ofDays(2), Durations.parseTimeValue(" 2d "));
    assertThrows(IllegalArgumentException.class, () -> Durations.parseTimeValue("2D"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parseTimeValue("1M"), "a month, not a minute");
    assertThrows(IllegalArgumentException.class, () -> Durations.parseTimeValue("2 d"));
    assertEquals(Duration.ZERO, Durations.parseTimeValue("0"));
    assertEquals(Duration.ofMillis(-1), Durations.parseTimeValue("-1"));
    assertEquals(Duration.ofHours(-6), Durations.parseTimeValue("-6h"));
    IllegalArgumentException weeks = assertThrows(IllegalArgumentException.class, () -> Durations.parseTimeValue("1w"));
    assertTrue(weeks.getMessage().contains("nanos, micros, ms, s, m, h, d)"), weeks.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Durations.parseTimeValue("PT30S"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parseTimeValue("1"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parseTimeValue("-2"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parse("0")); // bare only in Elasticsearch's form
  }

  @Test
  void whatIsReadPrintsBackInTheHumanForm() {
    assertEquals("1.5 s", Durations.format(Durations.parse("1500ms")));
    assertEquals("2 min 5 s", Durations.format(Durations.parse("PT2M5S")));
    assertEquals("49 h 30 min", Durations.format(Durations.parse("2970m")));
  }

  @Test
  void aSettingPrintsInTheLargestUnitThatShowsItWholeAndReadsBack() {
    assertEquals("30s", Durations.formatSetting(Duration.ofSeconds(30)));
    assertEquals("0s", Durations.formatSetting(Duration.ZERO));
    assertEquals("1500ms", Durations.formatSetting(Duration.ofMillis(1500)));
    assertEquals("1001micros", Durations.formatSetting(Duration.ofNanos(1_001_000)));
    assertEquals("7nanos", Durations.formatSetting(Duration.ofNanos(7)));
    assertEquals("-5s", Durations.formatSetting(Duration.ofSeconds(-5)));
    assertEquals("3600s", Durations.formatSetting(Duration.ofHours(1)));
    for (Duration d : new Duration[] {Duration.ofMillis(1), Duration.ofNanos(Long.MAX_VALUE), Duration.ofMillis(-250),
        Duration.ofNanos(Long.MIN_VALUE), Duration.ofDays(3).plusNanos(1)}) {
      assertEquals(d, Durations.parse(Durations.formatSetting(d)), d.toString());
    }
  }

  private static void refused(String text, String saying) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text), text);
    assertTrue(e.getMessage().contains(saying), e.getMessage());
    assertTrue(text.isBlank() || e.getMessage().contains("'" + text + "'"), "names the text: " + e.getMessage());
  }
}
