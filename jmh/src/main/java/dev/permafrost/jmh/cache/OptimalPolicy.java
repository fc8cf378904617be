/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Belady's optimal replacement, which knows the future: on a miss with a full cache it evicts the region needed
 * again furthest ahead (or never), and it does not admit a region needed later than everything it holds. No real
 * policy can beat it, so it bounds what choosing a policy can win. Works on a whole trace at once.
 */
public final class OptimalPolicy {
  private OptimalPolicy() {}

  /** The hits Belady's policy gets on {@code keys} with {@code capacity} regions. */
  public static long hits(long[] keys, int capacity) {
    int n = keys.length;
    int[] next = new int[n];
    Map<Long, Integer> seen = new HashMap<>();
    for (int i = n - 1; i >= 0; i--) {
      Integer j = seen.put(keys[i], i);
      next[i] = j == null ? Integer.MAX_VALUE : j;
    }
    // The cache, ordered by next use; entries are {nextUse, key}, distinct because positions are distinct (ties
    // only at "never", broken by key).
    TreeSet<long[]> byNextUse =
        new TreeSet<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    Map<Long, long[]> cached = new HashMap<>();
    long hits = 0;
    for (int i = 0; i < n; i++) {
      long key = keys[i];
      long[] entry = cached.remove(key);
      if (entry != null) {
        hits++;
        byNextUse.remove(entry);
      } else if (cached.size() >= capacity) {
        long[] furthest = byNextUse.last();
        if (furthest[0] <= next[i]) {
          continue; // the newcomer is needed later than anything held: do not admit it
        }
        byNextUse.pollLast();
        cached.remove(furthest[1]);
      }
      long[] updated = {next[i], key};
      byNextUse.add(updated);
      cached.put(key, updated);
    }
    return hits;
  }
}
