/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The slots of one size. A slot is taken from the free list while there is one; after that a new region is
 * admitted only if it is used more often than the eviction victim (TinyLFU): the victim is the least frequently
 * used of a few slots sampled at random, skipping slots being filled. A one-off scan therefore cannot push out
 * regions that are read again and again.
 */
final class RegionPool {
  private static final int SAMPLE = 8;
  final String name;
  final int slotSize;
  final Region[] slots;
  private final ConcurrentLinkedQueue<Region> free = new ConcurrentLinkedQueue<>();

  RegionPool(String name, int slotSize, int count, long firstOffset, int pageSize) {
    this.name = name;
    this.slotSize = slotSize;
    this.slots = new Region[count];
    for (int i = 0; i < count; i++) {
      slots[i] = new Region(this, i, firstOffset + (long) i * slotSize, slotSize, Math.min(pageSize, slotSize));
      free.add(slots[i]);
    }
  }

  long bytes() {
    return (long) slotSize * slots.length;
  }

  /** A free slot, or null. The caller owns it exclusively until it assigns it or gives it back. */
  Region pollFree() {
    return free.poll();
  }

  void giveBack(Region region) {
    assert region.owner == null;
    free.add(region);
  }

  /**
   * Frees and returns the slot of a region that is used less often than {@code candidateFrequency}, or returns
   * null if every sampled slot is busy or more popular (the new region is then not admitted).
   */
  Region evictFor(int candidateFrequency, FrequencySketch sketch, CacheStatsCounter stats) {
    if (slots.length == 0) {
      return null;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 3; attempt++) {
      Region victim = null;
      int victimFrequency = Integer.MAX_VALUE;
      for (int i = 0; i < Math.min(SAMPLE, slots.length); i++) {
        Region r = slots[random.nextInt(slots.length)];
        CacheFile owner = r.owner;
        if (owner == null) {
          continue;
        }
        int f = sketch.frequency(FrequencySketch.key(owner.id, r.index));
        if (f < victimFrequency) {
          victim = r;
          victimFrequency = f;
        }
      }
      if (victim == null) {
        Region r = pollFree();
        if (r != null) {
          return r;
        }
        continue;
      }
      if (candidateFrequency <= victimFrequency) {
        return null;
      }
      CacheFile oldOwner;
      int oldIndex;
      synchronized (victim) {
        oldOwner = victim.owner;
        oldIndex = victim.index;
        if (oldOwner == null || !victim.fills.isEmpty()) {
          continue; // freed or being filled since it was sampled
        }
        victim.free();
      }
      oldOwner.regions.compareAndSet(oldIndex, victim, null);
      stats.evictions.increment();
      return victim;
    }
    return null;
  }
}
