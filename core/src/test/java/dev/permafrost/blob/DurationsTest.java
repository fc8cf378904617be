/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one human form of a duration: each unit at its bounds, cut off rather than rounded up. */
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
}
