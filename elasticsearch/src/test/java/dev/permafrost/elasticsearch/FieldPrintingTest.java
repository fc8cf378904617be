/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * {@link IpPrinter} and {@link DatePrinter} against what an Elasticsearch 9.3.3 node printed in a logsdb index's
 * synthetic {@code _source} for the same values (worked by hand, then checked on the node).
 */
class FieldPrintingTest {
  private static String ip(String literal) throws Exception {
    return IpPrinter.print(InetAddress.getByName(literal));
  }

  @Test
  void ipv6IsPrintedInRfc5952sCanonicalText() throws Exception {
    assertEquals("2001:db8::7c5", ip("2001:db8:0:0:0:0:0:7c5"));
    assertEquals("2001:db8::7c5", ip("2001:0DB8:0000:0000:0000:0000:0000:07C5"));
    assertEquals("2001:0:0:1::1", ip("2001:0:0:1:0:0:0:1")); // the longest run, not the first
    assertEquals("2001:db8::1:0:0:1", ip("2001:db8:0:0:1:0:0:1")); // the first of equal runs
    assertEquals("2001:db8:0:1:1:1:1:1", ip("2001:db8:0:1:1:1:1:1")); // one zero group stays
    assertEquals("::1", ip("0:0:0:0:0:0:0:1"));
    assertEquals("fe80::", ip("fe80:0:0:0:0:0:0:0"));
    assertEquals("::", ip("0:0:0:0:0:0:0:0"));
    assertEquals("1::", ip("1:0:0:0:0:0:0:0"));
    assertEquals("1:2:3:4:5:6:7:8", ip("1:2:3:4:5:6:7:8"));
  }

  @Test
  void ipv4AndIpv4MappedArePrintedDotted() throws Exception {
    assertEquals("10.1.2.3", ip("::ffff:10.1.2.3"));
    assertEquals("10.0.0.1", ip("10.0.0.1"));
    assertEquals("0.0.0.0", ip("0.0.0.0"));
  }

  @Test
  void aDateIsPrintedInTheFirstAlternativeOfItsFormat() {
    long t = Instant.parse("2024-03-14T20:00:16.123Z").toEpochMilli();
    long whole = Instant.parse("2024-03-14T20:00:16Z").toEpochMilli();
    assertEquals("2024-03-14 20:00:16", DatePrinter.print(whole, "yyyy-MM-dd HH:mm:ss||epoch_millis", ZoneOffset.UTC));
    assertEquals("2024-03-14T20:00:16.000Z", DatePrinter.print(whole, "strict_date_optional_time||epoch_millis",
        ZoneOffset.UTC));
    assertEquals("2024-03-14T21:00:16.123+01:00", DatePrinter.print(t, "strict_date_optional_time",
        ZoneId.of("Europe/Berlin")));
    assertEquals("1710446416123", DatePrinter.print(t, "epoch_millis", ZoneOffset.UTC));
    assertEquals("1710446416", DatePrinter.print(whole, "epoch_second", ZoneOffset.UTC));
    assertEquals("1710446416.5", DatePrinter.print(whole + 500, "epoch_second", ZoneOffset.UTC));
    assertEquals("2024-03-14", DatePrinter.print(t, "strict_date", ZoneOffset.UTC));
    assertEquals("2024-03-14T20:00:16Z", DatePrinter.print(t, "date_time_no_millis", ZoneOffset.UTC));
    // a sum and an average of dates, as the node printed them: past year 9999 with a sign, milliseconds truncated
    assertEquals("+56875-10-28T12:00:00.000Z", DatePrinter.print(1732660459200000L, "strict_date_optional_time",
        ZoneOffset.UTC));
    assertEquals("2024-06-20T18:46:25.714Z", DatePrinter.print((long) 1718909185714.2856, "strict_date_optional_time",
        ZoneOffset.UTC));
    assertThrows(IllegalArgumentException.class, () -> DatePrinter.print(t, "yyyy-MM-dd ppp", ZoneOffset.UTC));
  }

  @Test
  void aDateNanosPrintsAsManyDigitsAsItNeedsAndThreeAtLeast() {
    long whole = Instant.parse("2024-03-14T20:00:16Z").getEpochSecond() * 1_000_000_000L;
    assertEquals("2024-03-14T20:00:16.1234Z", DatePrinter.printNanos(whole + 123_400_000,
        DatePrinter.DEFAULT_NANOS_FORMAT, ZoneOffset.UTC));
    assertEquals("2024-03-14T20:00:16.000Z", DatePrinter.printNanos(whole, DatePrinter.DEFAULT_NANOS_FORMAT,
        ZoneOffset.UTC));
    assertEquals("2024-03-14T20:00:16.123456789Z", DatePrinter.printNanos(whole + 123_456_789,
        DatePrinter.DEFAULT_NANOS_FORMAT, ZoneOffset.UTC));
    // a date_nanos mapped with a millisecond format prints milliseconds
    assertEquals("2024-03-14T20:00:16.123Z", DatePrinter.printNanos(whole + 123_456_789, "strict_date_optional_time",
        ZoneOffset.UTC));
  }
}
