/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Small snapshots share partitions by size, only with snapshots that prefer the same executor. */
class GroupingTest {
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void groupsKeepAffinityRespectTheSizeAndCoverEverySnapshotOnce() {
    Random random = new Random(seed);
    List<String> executors = List.of("executor_a_1", "executor_b_2", "executor_c_3");
    List<String> snapshots = new ArrayList<>();
    Map<String, Long> sizes = new HashMap<>();
    for (int i = 0; i < 1000; i++) {
      String name = "tenant-" + i;
      snapshots.add(name);
      sizes.put(name, random.nextInt(10) == 0 ? 300L << 20 : (long) random.nextInt(2 << 20)); // a few over the limit
    }
    Map<String, List<String>> preferred = Affinity.assign(snapshots, executors, 1);
    long max = 64L << 20;
    List<SnapshotPartition> partitions = Grouping.group(snapshots, sizes, preferred, max);
    Set<String> seen = new HashSet<>();
    for (SnapshotPartition p : partitions) {
      long bytes = 0;
      for (String s : p.snapshots()) {
        assertTrue(seen.add(s), "seed " + seed + ": " + s + " twice");
        assertEquals(preferred.get(s).get(0), p.locations()[0], "seed " + seed + ": " + s + " grouped away from its executor");
        bytes += sizes.get(s);
      }
      assertTrue(bytes <= max || p.snapshots().length == 1, "seed " + seed + ": " + bytes + " bytes in " + p.snapshots().length);
    }
    assertEquals(new HashSet<>(snapshots), seen);
    // next fit: two partitions in a row of one executor hold more than the limit, unless one snapshot is over it alone
    long oversized = sizes.values().stream().filter(v -> v > max).count();
    Map<String, Long> smallBytes = new HashMap<>();
    sizes.forEach((s, v) -> {
      if (v <= max) {
        smallBytes.merge(preferred.get(s).get(0), v, Long::sum);
      }
    });
    long bound = oversized + smallBytes.values().stream().mapToLong(b -> 2 * b / max + 1).sum();
    assertTrue(partitions.size() <= bound && partitions.size() < 1000 / 3,
        "seed " + seed + ": 1,000 snapshots in " + partitions.size() + " partitions, over the bound " + bound);
    assertEquals(partitions.stream().map(p -> Arrays.asList(p.snapshots())).toList(),
        Grouping.group(snapshots, sizes, preferred, max).stream().map(p -> Arrays.asList(p.snapshots())).toList(),
        "deterministic");
  }

  @Test
  void zeroGivesEachSnapshotItsOwnPartitionAndAnUnknownSizeCountsAsFull() {
    Map<String, List<String>> none = Map.of();
    assertEquals(3, Grouping.group(List.of("a", "b", "c"), Map.of("a", 1L, "b", 1L, "c", 1L), none, 0).size());
    assertEquals(1, Grouping.group(List.of("a", "b", "c"), Map.of("a", 1L, "b", 1L, "c", 1L), none, 10).size());
    assertEquals(3, Grouping.group(List.of("a", "b", "c"), Map.of(), none, 10).size(), "unknown sizes fill a partition each");
    assertEquals(List.of("a", "b"), Arrays.asList(
        Grouping.group(List.of("b", "a", "c"), Map.of("a", 4L, "b", 6L, "c", 1L), none, 10).get(0).snapshots()));
  }
}
