/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Chooses the executors whose caches should hold each snapshot: rendezvous (highest random weight) hashing of the
 * snapshot's name over the live executors, so that an executor joining or leaving moves only the snapshots it gains
 * or held, with a bound on each executor's share of one scan's snapshots (at most a quarter above an even share, and
 * never all of them when there are two or more executors), so that Spark's delay scheduling, which waits for a task's
 * preferred executor, cannot pile a scan's tasks on one executor while the others idle (SPARK-18886).
 *
 * <p>Each snapshot goes to the first executor in its own ranking that is under the bound, visiting snapshots in name
 * order, so the same snapshots over the same executors always get the same executors. With {@code replicas} above
 * one, the next executors of its ranking follow as fallbacks.
 */
final class Affinity {
  private static final double LOAD_FACTOR = 1.25;

  private Affinity() {}

  /**
   * The preferred executors of each snapshot, best first.
   *
   * @param snapshots the snapshots of one scan
   * @param executors the live executors' locations ({@code executor_<host>_<id>})
   * @param replicas how many executors to name per snapshot (at most the executors there are)
   */
  static Map<String, List<String>> assign(List<String> snapshots, List<String> executors, int replicas) {
    Map<String, List<String>> result = new LinkedHashMap<>();
    if (executors.isEmpty()) {
      snapshots.forEach(s -> result.put(s, List.of()));
      return result;
    }
    int n = snapshots.size();
    int e = executors.size();
    int bound = (int) Math.ceil(LOAD_FACTOR * n / e);
    if (e >= 2 && n >= 2) {
      bound = Math.min(bound, n - 1);
    }
    Map<String, Integer> load = new HashMap<>();
    List<String> sorted = new ArrayList<>(snapshots);
    sorted.sort(Comparator.naturalOrder());
    for (String snapshot : sorted) {
      List<String> ranking = rank(snapshot, executors);
      String primary = ranking.get(0);
      for (String candidate : ranking) {
        if (load.getOrDefault(candidate, 0) < bound) {
          primary = candidate;
          break;
        }
      }
      load.merge(primary, 1, Integer::sum);
      List<String> chosen = new ArrayList<>();
      chosen.add(primary);
      for (String candidate : ranking) {
        if (chosen.size() >= Math.min(replicas, e)) {
          break;
        }
        if (!candidate.equals(primary)) {
          chosen.add(candidate);
        }
      }
      result.put(snapshot, List.copyOf(chosen));
    }
    return result;
  }

  /** The executors in the snapshot's order of preference: by weight, highest first. */
  static List<String> rank(String snapshot, List<String> executors) {
    List<String> ranking = new ArrayList<>(executors);
    Map<String, Long> weights = new HashMap<>();
    for (String executor : executors) {
      weights.put(executor, weight(snapshot, executor));
    }
    ranking.sort(Comparator.comparing((String x) -> weights.get(x)).reversed().thenComparing(Comparator.naturalOrder()));
    return ranking;
  }

  /** A well-mixed 64-bit hash of the pair (FNV-1a, then MurmurHash3's finalizer). */
  static long weight(String snapshot, String executor) {
    long h = 0xcbf29ce484222325L;
    for (byte b : (snapshot + '\u0000' + executor).getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
