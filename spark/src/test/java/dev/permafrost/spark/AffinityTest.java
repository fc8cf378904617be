/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Rendezvous hashing with bounded loads: stable, spread, and moving little when executors come and go. */
class AffinityTest {
  private static List<String> snapshots(int n) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      names.add("logs-" + i);
    }
    return names;
  }

  private static List<String> executors(int n) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      names.add(ExecutorLocations.location("10.0.0." + i, String.valueOf(i)));
    }
    return names;
  }

  private static Map<String, String> primaries(List<String> snapshots, List<String> executors) {
    Map<String, String> primary = new HashMap<>();
    Affinity.assign(snapshots, executors, 1).forEach((s, e) -> primary.put(s, e.get(0)));
    return primary;
  }

  @Test
  void theSameInputsGiveTheSameExecutors() {
    assertEquals(Affinity.assign(snapshots(100), executors(5), 2), Affinity.assign(snapshots(100), executors(5), 2));
  }

  @Test
  void everyExecutorStaysUnderTheBound() {
    Map<String, Integer> load = new HashMap<>();
    primaries(snapshots(1000), executors(8)).values().forEach(e -> load.merge(e, 1, Integer::sum));
    assertEquals(8, load.size());
    load.values().forEach(n -> assertTrue(n <= Math.ceil(1.25 * 1000 / 8), "load " + load));
  }

  @Test
  void twoSnapshotsOverTwoExecutorsAreSpread() {
    for (int i = 0; i < 50; i++) {
      List<String> two = List.of("a-" + i, "b-" + i);
      Map<String, String> p = primaries(two, executors(2));
      assertNotEquals(p.get(two.get(0)), p.get(two.get(1)));
    }
  }

  @Test
  void anExecutorLeavingMovesLittleMoreThanItsOwnSnapshots() {
    List<String> all = executors(10);
    Map<String, String> before = primaries(snapshots(1000), all);
    List<String> fewer = new ArrayList<>(all);
    String gone = fewer.remove(3);
    Map<String, String> after = primaries(snapshots(1000), fewer);
    int moved = 0;
    int orphaned = 0;
    for (String s : before.keySet()) {
      if (before.get(s).equals(gone)) {
        orphaned++;
      } else if (!before.get(s).equals(after.get(s))) {
        moved++;
      }
    }
    assertTrue(orphaned > 50, "the executor held " + orphaned);
    assertTrue(moved <= 100, moved + " snapshots of live executors moved (out of " + (1000 - orphaned) + ")");
  }

  @Test
  void replicasFollowTheRanking() {
    Map<String, List<String>> chosen = Affinity.assign(snapshots(20), executors(4), 2);
    chosen.values().forEach(e -> {
      assertEquals(2, e.size());
      assertNotEquals(e.get(0), e.get(1));
    });
    assertTrue(Affinity.assign(snapshots(3), List.of(), 2).values().stream().allMatch(List::isEmpty));
  }
}
