/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The API's time values read through the one duration reader: the node's units (no {@code w}, no ISO-8601), its
 * {@code -1} for none, and the error text the differential tests compare.
 */
class TimeValuesTest {
  @Test
  void aTimeoutHasTheNodesUnits() {
    assertEquals(Duration.ofNanos(500), SearchBody.timeout("500nanos"));
    assertEquals(Duration.ofNanos(3_000), SearchBody.timeout("3micros"));
    assertEquals(Duration.ofMillis(500), SearchBody.timeout("500ms"));
    assertEquals(Duration.ofSeconds(10), SearchBody.timeout("10s"));
    assertEquals(Duration.ofMinutes(1), SearchBody.timeout(" 1m "));
    assertEquals(Duration.ofDays(2), SearchBody.timeout("2d"));
  }

  @Test
  void minusOneOrBlankIsNoneAndZeroTheShortest() {
    assertNull(SearchBody.timeout(null));
    assertNull(SearchBody.timeout(" "));
    assertNull(SearchBody.timeout("-1"));
    assertNull(SearchBody.timeout("-1ms"));
    assertEquals(Duration.ofNanos(1), SearchBody.timeout("0"));
    assertEquals(Duration.ofNanos(1), SearchBody.timeout("0s"));
  }

  @Test
  void whatTheNodeRefusesIsRefusedWithItsText() {
    for (String bad : new String[] {"1w", "PT5S", "5", "soon", "1.5s", "-5s", "-2", "10S", "1 s",
        "99999999999999999999d"}) {
      DslException e = assertThrows(DslException.class, () -> SearchBody.timeout(bad), bad);
      assertEquals("failed to parse setting [timeout] with value [" + bad + "] as a time value: give a number and a"
          + " unit (d, h, m, s, ms, micros, nanos)", e.getMessage());
    }
  }

  @Test
  void anAggregationsTimeValueIsSignedMillisecondsOrNull() {
    assertEquals(6 * 3_600_000L, AggParams.timeValue("+6h"));
    assertEquals(-3_600_000L, AggParams.timeValue("-1h"));
    assertEquals(86_400_000L, AggParams.timeValue("1d"));
    assertEquals(0L, AggParams.timeValue("500micros"), "under a millisecond: no interval, refused by its caller");
    assertNull(AggParams.timeValue("1w"));
    assertNull(AggParams.timeValue("1M"), "a calendar month is not a time value");
    assertNull(AggParams.timeValue("P1D"));
    assertNull(AggParams.timeValue("h"));
  }
}
