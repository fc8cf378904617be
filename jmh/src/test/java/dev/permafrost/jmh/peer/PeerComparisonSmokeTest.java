/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peer comparison at smoke size, against a real two-node OpenSearch 3.2 cluster, MinIO and Toxiproxy (the test
 * servers): OpenSearch indexes 2 days of 2,000 events, snapshots them into S3 and serves them as
 * {@code remote_snapshot} indices; Permafrost mounts the same snapshot; every answer of each workload (totals, the
 * hits' {@code _id}s and sort values, the dashboard's histogram) must be the other's, or the run fails. The peer is an
 * oracle, so the comparison cannot rot.
 */
class PeerComparisonSmokeTest {
  @TempDir Path work;

  @Test
  void bothEnginesGiveTheSameAnswers() throws Exception {
    PeerComparison comparison = new PeerComparison(Map.of("days", "2", "events", "2000", "runs", "1",
        "smallCache", "false", "work", work.toString()));
    comparison.run(); // throws where the engines disagree
    Map<String, PeerWorkloads.Answer> answers = comparison.agreedAnswers();
    assertEquals(PeerWorkloads.NAMES, List.copyOf(answers.keySet()));
    PeerWorkloads.Answer needle = answers.get("needle");
    assertTrue(needle.total() >= 2 && needle.ids().size() == needle.total(), "the needle: one hit a day, " + needle);
    PeerWorkloads.Answer discover = answers.get("discover");
    assertEquals(500, discover.ids().size(), "discover returns its 500 newest");
    assertTrue(discover.total() > 500);
    PeerWorkloads.Answer dashboard = answers.get("dashboard");
    assertEquals(dashboard.total(), dashboard.histogram().values().stream().mapToLong(Long::longValue).sum(),
        "every 404 in the range is in one hourly bucket");
    for (String engine : List.of("OpenSearch", "Permafrost")) {
      for (String w : PeerWorkloads.NAMES) {
        for (String phase : List.of("cold", "warm")) {
          assertNotNull(comparison.median(engine, phase, w), engine + " " + phase + " " + w + " measured");
        }
      }
      double[] warm = comparison.median(engine, "warm", "needle");
      assertEquals(0, warm[1], engine + "'s warm needle asks the store for nothing");
    }
    assertTrue(comparison.median("Permafrost", "first answer", "needle")[1] > 0, "a first answer reads the store");
  }

  @Test
  void answersThatDifferAreToldApart() {
    PeerWorkloads.Answer a = new PeerWorkloads.Answer(3, List.of("x", "y", "z"), List.of(30L, 20L, 10L), new TreeMap<>());
    assertNull(a.differenceFrom(new PeerWorkloads.Answer(3, List.of("x", "y", "w"), List.of(30L, 20L, 10L),
        new TreeMap<>())), "hits at the last sort value may be cut at different ones of equal values");
    assertNotNull(a.differenceFrom(new PeerWorkloads.Answer(4, List.of("x", "y", "z"), List.of(30L, 20L, 10L),
        new TreeMap<>())), "another total");
    assertNotNull(a.differenceFrom(new PeerWorkloads.Answer(3, List.of("y", "x", "z"), List.of(30L, 20L, 10L),
        new TreeMap<>())), "other hits at the same places");
    assertNotNull(a.differenceFrom(new PeerWorkloads.Answer(3, List.of("x", "y", "z"), List.of(30L, 21L, 10L),
        new TreeMap<>())), "other sort values");
    TreeMap<Long, Long> histogram = new TreeMap<>(Map.of(0L, 1L));
    assertNotNull(a.differenceFrom(new PeerWorkloads.Answer(3, new ArrayList<>(a.ids()), a.sortValues(), histogram)),
        "another histogram");
  }
}
