/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.ArrayList;
import java.util.List;

/** Replays an {@link AccessTrace} against eviction policies and reports hit ratios. */
public final class PolicySimulator {
  /** The policies compared: LRU, Elasticsearch's decayed LFU, LRU with TinyLFU admission, and W-TinyLFU. */
  public static final List<EvictionPolicy.Factory> POLICIES =
      List.of(
          EvictionPolicy.Factory.of("LRU", LruPolicy::new),
          EvictionPolicy.Factory.of("decayed LFU", DecayedLfuPolicy::new),
          EvictionPolicy.Factory.of("TinyLFU", TinyLfuPolicy::new),
          EvictionPolicy.Factory.of("W-TinyLFU", WindowTinyLfuPolicy::new));

  /** The name under which Belady's optimum is reported. */
  public static final String OPTIMAL = "optimal (Belady)";

  private PolicySimulator() {}

  /**
   * What one policy got on one trace.
   *
   * @param policy the policy's name
   * @param capacity the cache's size in regions
   * @param accesses accesses in the trace
   * @param hits accesses that hit
   * @param distinct distinct regions in the trace (the compulsory misses)
   */
  public record Outcome(String policy, int capacity, long accesses, long hits, long distinct) {
    public double hitRatio() {
      return accesses == 0 ? 0 : (double) hits / accesses;
    }

    /** The best hit ratio any cache could reach: every access but the first to each region hits. */
    public double ceiling() {
      return accesses == 0 ? 0 : (double) (accesses - distinct) / accesses;
    }

    /** Requests to the store: one per miss. */
    public long requests() {
      return accesses - hits;
    }
  }

  /** Replays {@code trace} against one policy (closed after, if it holds resources). */
  public static Outcome run(AccessTrace trace, EvictionPolicy.Factory factory, int capacity) {
    long[] keys = trace.keys();
    EvictionPolicy policy = factory.create(capacity);
    long hits = 0;
    try {
      for (long key : keys) {
        if (policy.access(key)) {
          hits++;
        }
      }
    } finally {
      if (policy instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception e) {
          throw new IllegalStateException(policy.name() + " failed to close", e);
        }
      }
    }
    return new Outcome(factory.name(), capacity, keys.length, hits, trace.distinctRegions());
  }

  /** Replays {@code trace} against every policy in {@link #POLICIES}, then Belady's optimum. */
  public static List<Outcome> runAll(AccessTrace trace, int capacity) {
    return runAll(trace, capacity, List.of());
  }

  /** Replays {@code trace} against {@code first} (the product, say), every policy in {@link #POLICIES}, then Belady's optimum. */
  public static List<Outcome> runAll(AccessTrace trace, int capacity, List<EvictionPolicy.Factory> first) {
    List<Outcome> out = new ArrayList<>();
    for (EvictionPolicy.Factory factory : first) {
      out.add(run(trace, factory, capacity));
    }
    for (EvictionPolicy.Factory factory : POLICIES) {
      out.add(run(trace, factory, capacity));
    }
    long[] keys = trace.keys();
    out.add(new Outcome(OPTIMAL, capacity, keys.length, OptimalPolicy.hits(keys, capacity), trace.distinctRegions()));
    return out;
  }
}
