/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 3 h {@code fixed_interval} in {@code America/New_York} with an {@code offset}, across the change to daylight
 * saving time (10 March 2024) and back (3 November 2024), against an Elasticsearch 9.3.3 node's buckets over one
 * document every 10 minutes from 12:00 UTC of the day before to the end of the day: each key and count, and each key
 * the one after the last ({@link DateRounding#next}). The offset shifts the buckets in absolute time.
 */
class DateRoundingTest {
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

  @ParameterizedTest
  @ValueSource(strings = {
      "+1d|1709982000000:12 1709992800000:18 1710003600000:18 1710014400000:18 1710025200000:18 1710036000000:18 1710046800000:18 1710057600000:18 1710068400000:18 1710079200000:18 1710090000000:18 1710100800000:18 1710111600000:6",
      "+1d|1730541600000:6 1730552400000:18 1730563200000:18 1730574000000:18 1730584800000:18 1730595600000:18 1730606400000:18 1730617200000:18 1730628000000:18 1730638800000:18 1730649600000:18 1730660400000:18 1730671200000:12",
      "+1h|1709985600000:18 1709996400000:18 1710007200000:18 1710018000000:18 1710028800000:18 1710039600000:18 1710050400000:12 1710057600000:18 1710068400000:18 1710079200000:18 1710090000000:18 1710100800000:18 1710111600000:6",
      "+1h|1730545200000:12 1730556000000:18 1730566800000:18 1730577600000:18 1730588400000:18 1730599200000:18 1730610000000:24 1730624400000:18 1730635200000:18 1730646000000:18 1730656800000:18 1730667600000:18",
      "+30m|1709983800000:15 1709994600000:18 1710005400000:18 1710016200000:18 1710027000000:18 1710037800000:18 1710048600000:12 1710055800000:18 1710066600000:18 1710077400000:18 1710088200000:18 1710099000000:18 1710109800000:9",
      "+30m|1730543400000:9 1730554200000:18 1730565000000:18 1730575800000:18 1730586600000:18 1730597400000:18 1730608200000:24 1730622600000:18 1730633400000:18 1730644200000:18 1730655000000:18 1730665800000:18 1730676600000:3",
      "-1h|1709978400000:6 1709989200000:18 1710000000000:18 1710010800000:18 1710021600000:18 1710032400000:18 1710043200000:12 1710050400000:18 1710061200000:18 1710072000000:18 1710082800000:18 1710093600000:18 1710104400000:18",
      "-1h|1730548800000:18 1730559600000:18 1730570400000:18 1730581200000:18 1730592000000:18 1730602800000:24 1730617200000:18 1730628000000:18 1730638800000:18 1730649600000:18 1730660400000:18 1730671200000:12",
      "+2h|1709978400000:6 1709989200000:18 1710000000000:18 1710010800000:18 1710021600000:18 1710032400000:18 1710043200000:18 1710054000000:12 1710061200000:18 1710072000000:18 1710082800000:18 1710093600000:18 1710104400000:18",
      "+2h|1730548800000:18 1730559600000:18 1730570400000:18 1730581200000:18 1730592000000:18 1730602800000:18 1730613600000:24 1730628000000:18 1730638800000:18 1730649600000:18 1730660400000:18 1730671200000:12",
      "+5h|1709978400000:6 1709989200000:18 1710000000000:18 1710010800000:18 1710021600000:18 1710032400000:18 1710043200000:18 1710054000000:18 1710064800000:12 1710072000000:18 1710082800000:18 1710093600000:18 1710104400000:18",
      "+5h|1730548800000:18 1730559600000:18 1730570400000:18 1730581200000:18 1730592000000:18 1730602800000:18 1730613600000:18 1730624400000:24 1730638800000:18 1730649600000:18 1730660400000:18 1730671200000:12",
      "0|1709982000000:12 1709992800000:18 1710003600000:18 1710014400000:18 1710025200000:18 1710036000000:18 1710046800000:12 1710054000000:18 1710064800000:18 1710075600000:18 1710086400000:18 1710097200000:18 1710108000000:12",
      "0|1730541600000:6 1730552400000:18 1730563200000:18 1730574000000:18 1730584800000:18 1730595600000:18 1730606400000:24 1730620800000:18 1730631600000:18 1730642400000:18 1730653200000:18 1730664000000:18 1730674800000:6",
  })
  void fixedIntervalsWithAnOffsetInAZoneAreTheNodes(String answer) {
    String[] parts = answer.split("\\|");
    long offset = switch (parts[0]) {
      case "+1d" -> DateRounding.DAY;
      case "+1h" -> DateRounding.HOUR;
      case "+30m" -> 30 * DateRounding.MINUTE;
      case "-1h" -> -DateRounding.HOUR;
      case "+2h" -> 2 * DateRounding.HOUR;
      case "+5h" -> 5 * DateRounding.HOUR;
      case "0" -> 0;
      default -> throw new IllegalArgumentException(parts[0]);
    };
    Map<Long, Long> node = new LinkedHashMap<>();
    for (String bucket : parts[1].split(" ")) {
      String[] kv = bucket.split(":");
      node.put(Long.parseLong(kv[0]), Long.parseLong(kv[1]));
    }
    long first = node.keySet().iterator().next();
    long from = Instant.parse(first < Instant.parse("2024-06-01T00:00:00Z").toEpochMilli() ? "2024-03-09T12:00:00Z"
        : "2024-11-02T12:00:00Z").toEpochMilli();
    DateRounding rounding = DateRounding.fixed(3 * DateRounding.HOUR, NEW_YORK, offset);
    Map<Long, Long> ours = new LinkedHashMap<>();
    for (long t = from; t < from + 36 * DateRounding.HOUR; t += 10 * DateRounding.MINUTE) {
      ours.merge(rounding.round(t), 1L, Long::sum);
    }
    assertEquals(node, ours, parts[0]);
    List<Long> keys = new ArrayList<>(node.keySet());
    for (int i = 0; i + 1 < keys.size(); i++) {
      assertEquals(keys.get(i + 1), rounding.next(keys.get(i)), parts[0] + " after " + Instant.ofEpochMilli(keys.get(i)));
    }
  }

  /**
   * A calendar day in {@code America/New_York} with an {@code offset}, over one document every 10 minutes of the three
   * days from 9 March and from 2 November 2024 (UTC), against the same node: the offset shifts in absolute time here
   * too.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "+6h|1709895600000:66 1709982000000:144 1710068400000:138 1710151200000:84",
      "+6h|1730455200000:60 1730541600000:144 1730628000000:150 1730718000000:78",
      "-3h|1709863200000:12 1709949600000:144 1710036000000:138 1710118800000:138",
      "-3h|1730422800000:6 1730509200000:144 1730595600000:150 1730685600000:132",
      "+1d|1709874000000:30 1709960400000:144 1710046800000:144 1710133200000:114",
      "+1d|1730433600000:24 1730520000000:144 1730606400000:144 1730692800000:120",
  })
  void calendarDaysWithAnOffsetInAZoneAreTheNodes(String answer) {
    String[] parts = answer.split("\\|");
    long offset = switch (parts[0]) {
      case "+6h" -> 6 * DateRounding.HOUR;
      case "-3h" -> -3 * DateRounding.HOUR;
      case "+1d" -> DateRounding.DAY;
      default -> throw new IllegalArgumentException(parts[0]);
    };
    Map<Long, Long> node = new LinkedHashMap<>();
    for (String bucket : parts[1].split(" ")) {
      String[] kv = bucket.split(":");
      node.put(Long.parseLong(kv[0]), Long.parseLong(kv[1]));
    }
    long first = node.keySet().iterator().next();
    long from = Instant.parse(first < Instant.parse("2024-06-01T00:00:00Z").toEpochMilli() ? "2024-03-09T00:00:00Z"
        : "2024-11-02T00:00:00Z").toEpochMilli();
    DateRounding rounding = DateRounding.calendar(DateRounding.Unit.DAY, NEW_YORK, offset);
    Map<Long, Long> ours = new LinkedHashMap<>();
    for (long t = from; t < from + 3 * DateRounding.DAY; t += 10 * DateRounding.MINUTE) {
      ours.merge(rounding.round(t), 1L, Long::sum);
    }
    assertEquals(node, ours, parts[0]);
    List<Long> keys = new ArrayList<>(node.keySet());
    for (int i = 0; i + 1 < keys.size(); i++) {
      assertEquals(keys.get(i + 1), rounding.next(keys.get(i)), parts[0] + " after " + Instant.ofEpochMilli(keys.get(i)));
    }
  }
}
