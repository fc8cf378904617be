/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.jmh.cache.AccessTrace;
import dev.permafrost.jmh.cache.EvictionPolicy;
import dev.permafrost.jmh.cache.OptimalPolicy;
import dev.permafrost.jmh.cache.PolicySimulator;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Sanity of the eviction policy simulator on traces whose answers are known. */
class PolicySimulatorTest {
  private static AccessTrace loop(int regions, int times) {
    long[] keys = new long[regions * times];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i % regions;
    }
    return AccessTrace.ofKeys(1 << 20, keys);
  }

  @Test
  void lruNeverHitsALoopBiggerThanTheCache() {
    PolicySimulator.Outcome lru = PolicySimulator.run(loop(100, 10), PolicySimulator.POLICIES.getFirst(), 50);
    assertEquals("LRU", lru.policy());
    assertEquals(0, lru.hits());
  }

  @Test
  void admissionPoliciesKeepPartOfALoopBiggerThanTheCache() {
    // Decayed LFU is not checked: on a pure loop no region is hit before it is evicted, so all sit at frequency 1
    // and it evicts in LRU order, like LRU.
    AccessTrace trace = loop(100, 20);
    for (PolicySimulator.Outcome o : PolicySimulator.runAll(trace, 50)) {
      if (o.policy().contains("TinyLFU") || o.policy().startsWith("optimal")) {
        assertTrue(o.hitRatio() > 0.1, o.toString());
      }
    }
    // Belady (with bypass) keeps the first 50 regions for good: 50 hits per pass after the first.
    assertEquals(50L * 19, OptimalPolicy.hits(trace.keys(), 50));
  }

  @Test
  void everyPolicyReachesTheCeilingWhenTheCacheHoldsEverything() {
    Random random = new Random(3);
    long[] keys = new long[5000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = random.nextInt(300);
    }
    AccessTrace trace = AccessTrace.ofKeys(1 << 20, keys);
    for (PolicySimulator.Outcome o : PolicySimulator.runAll(trace, 300)) {
      assertEquals(o.ceiling(), o.hitRatio(), 1e-9, o.toString());
      assertEquals(300, o.distinct());
    }
  }

  @Test
  void noPolicyBeatsBelady() {
    Random random = new Random(5);
    long[] keys = new long[20_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = (long) Math.floor(Math.pow(random.nextDouble(), 3) * 2000); // skewed towards small keys
    }
    AccessTrace trace = AccessTrace.ofKeys(1 << 20, keys);
    long optimal = OptimalPolicy.hits(keys, 100);
    for (EvictionPolicy.Factory f : PolicySimulator.POLICIES) {
      long hits = PolicySimulator.run(trace, f, 100).hits();
      assertTrue(hits > 0 && hits <= optimal, f.name() + ": " + hits + " vs optimal " + optimal);
    }
  }
}
