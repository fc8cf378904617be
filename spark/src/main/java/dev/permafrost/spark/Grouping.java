/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Puts small snapshots together into input partitions, so that thousands of tiny tenant snapshots make tens of tasks,
 * not thousands: snapshots are grouped by the executor {@link Affinity} prefers for them (so a group's preferred
 * location is that executor's, and its cache stays warm for all of them), then packed in name order into groups of at
 * most {@code maxBytes} bytes by their manifests' sizes. A snapshot larger than that stays alone; a size that is not
 * known counts as {@code maxBytes}; {@code maxBytes} of 0 gives every snapshot its own partition. Deterministic: the
 * same snapshots, sizes and executors give the same groups.
 */
final class Grouping {
  private Grouping() {}

  /**
   * The input partitions of a scan.
   *
   * @param snapshots the snapshots to search
   * @param sizes their bytes (missing or -1: unknown)
   * @param preferred each snapshot's preferred executors, best first (empty: no preference)
   * @param maxBytes the most bytes one partition searches, unless one snapshot alone is larger; 0: one each
   */
  static List<SnapshotPartition> group(List<String> snapshots, Map<String, Long> sizes,
      Map<String, List<String>> preferred, long maxBytes) {
    // by primary executor ("" for none), each executor's snapshots in name order
    Map<String, List<String>> byExecutor = new TreeMap<>();
    for (String s : snapshots) {
      List<String> locations = preferred.getOrDefault(s, List.of());
      byExecutor.computeIfAbsent(locations.isEmpty() ? "" : locations.get(0), k -> new ArrayList<>()).add(s);
    }
    List<SnapshotPartition> partitions = new ArrayList<>();
    for (List<String> same : byExecutor.values()) {
      same.sort(null);
      List<String> group = new ArrayList<>();
      long bytes = 0;
      for (String s : same) {
        long size = sizes.getOrDefault(s, -1L);
        long counted = size < 0 ? maxBytes : size;
        if (maxBytes > 0 && counted > maxBytes) {
          partitions.add(partition(List.of(s), preferred)); // alone, without cutting the group being filled
          continue;
        }
        if (!group.isEmpty() && (maxBytes == 0 || bytes + counted > maxBytes)) {
          partitions.add(partition(group, preferred));
          group = new ArrayList<>();
          bytes = 0;
        }
        group.add(s);
        bytes += counted;
      }
      if (!group.isEmpty()) {
        partitions.add(partition(group, preferred));
      }
    }
    return partitions;
  }

  /** A partition of {@code group}, preferring its first snapshot's executors (all of them share the first). */
  private static SnapshotPartition partition(List<String> group, Map<String, List<String>> preferred) {
    return new SnapshotPartition(group.toArray(String[]::new),
        preferred.getOrDefault(group.get(0), List.of()).toArray(String[]::new));
  }
}
