/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Least frequently used with decay, after Elasticsearch's shared blob cache: each region has a frequency,
 * bumped by each access up to a cap; every {@code decayInterval} accesses all frequencies drop by one; a miss
 * evicts the least recently used region of the lowest frequency present. New regions enter at frequency 1, so a
 * scan evicts mostly what an earlier scan brought in, unless the hot set has decayed to frequency 1 as well.
 *
 * <p>Elasticsearch decays on wall time (every 60 s by default); a trace has no time, so decay is counted in
 * accesses (default: twice the capacity, one decay per two cache turn-overs).
 */
public final class DecayedLfuPolicy implements EvictionPolicy {
  private final int capacity;
  private final int maxFrequency;
  private final long decayInterval;
  private final Map<Long, Integer> frequency = new HashMap<>();
  private final LinkedHashSet<Long>[] buckets;
  private long accesses;

  /** Decay every {@code 2 * capacity} accesses, frequencies capped at 16. */
  public DecayedLfuPolicy(int capacity) {
    this(capacity, 16, 2L * capacity);
  }

  @SuppressWarnings("unchecked")
  public DecayedLfuPolicy(int capacity, int maxFrequency, long decayInterval) {
    if (capacity < 1 || maxFrequency < 1 || decayInterval < 1) {
      throw new IllegalArgumentException("capacity, max frequency and decay interval must be positive");
    }
    this.capacity = capacity;
    this.maxFrequency = maxFrequency;
    this.decayInterval = decayInterval;
    buckets = new LinkedHashSet[maxFrequency + 1];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = new LinkedHashSet<>();
    }
  }

  @Override
  public String name() {
    return "decayed LFU";
  }

  @Override
  public boolean access(long key) {
    if (++accesses % decayInterval == 0) {
      decay();
    }
    Integer f = frequency.get(key);
    if (f != null) {
      int next = Math.min(maxFrequency, f + 1);
      buckets[f].remove(key);
      buckets[next].add(key);
      frequency.put(key, next);
      return true;
    }
    if (frequency.size() >= capacity) {
      evict();
    }
    frequency.put(key, 1);
    buckets[1].add(key);
    return false;
  }

  private void evict() {
    for (LinkedHashSet<Long> bucket : buckets) {
      if (!bucket.isEmpty()) {
        Long victim = bucket.iterator().next();
        bucket.remove(victim);
        frequency.remove(victim);
        return;
      }
    }
  }

  /** Every frequency drops by one (not below 0), keeping recency order within each bucket. */
  private void decay() {
    for (int f = 1; f < buckets.length; f++) {
      for (Long key : buckets[f]) {
        buckets[f - 1].add(key);
        frequency.put(key, f - 1);
      }
      buckets[f].clear();
    }
  }
}
