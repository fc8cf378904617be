/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The slots of one size. A slot is taken from the free list while there is one; after that a new region is
 * admitted only if it is used more often than the eviction victim (TinyLFU): the victim is the least frequently
 * used of a few slots sampled at random, skipping slots being filled. A one-off scan therefore cannot push out
 * regions that are read again and again.
 */
final class SlotPool {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SlotPool.class);
  private static final int SAMPLE = 8;
  final int slotSize;
  final Slot[] slots;
  private final ConcurrentLinkedQueue<Slot> free = new ConcurrentLinkedQueue<>();
  /** Regions taken from one blob to give to another. */
  final LongAdder evictions = new LongAdder();

  SlotPool(int slotSize, int count, long firstOffset, int pageSize) {
    this.slotSize = slotSize;
    this.slots = new Slot[count];
    for (int i = 0; i < count; i++) {
      slots[i] = new Slot(this, i, firstOffset + (long) i * slotSize, slotSize, Math.min(pageSize, slotSize));
      free.add(slots[i]);
    }
  }

  long bytes() {
    return (long) slotSize * slots.length;
  }

  /** A free slot, or null. The caller has it to itself until it assigns it or gives it back. */
  Slot pollFree() {
    return free.poll();
  }

  void giveBack(Slot slot) {
    assert slot.owner == null;
    free.add(slot);
  }

  /**
   * Takes and returns the slot of a region used less often than {@code candidateFrequency}, or null if every
   * sampled slot is busy or more popular (the new region is then not admitted).
   */
  Slot evictFor(int candidateFrequency, FrequencySketch sketch) {
    if (slots.length == 0) {
      return null;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 3; attempt++) {
      Slot victim = null;
      int victimFrequency = Integer.MAX_VALUE;
      for (int i = 0; i < Math.min(SAMPLE, slots.length); i++) {
        Slot s = slots[random.nextInt(slots.length)];
        CachedBlob owner = s.owner;
        if (owner == null) {
          continue;
        }
        int f = sketch.frequency(FrequencySketch.key(owner.id, s.index));
        if (f < victimFrequency) {
          victim = s;
          victimFrequency = f;
        }
      }
      if (victim == null) {
        Slot s = pollFree();
        if (s != null) {
          return s;
        }
        continue;
      }
      if (candidateFrequency <= victimFrequency) {
        return null;
      }
      CachedBlob evicted = victim.owner;
      int evictedIndex = victim.index;
      if (victim.tryTake(null)) {
        evictions.increment();
        if (log.isDebugEnabled()) {
          log.debug("evicted region {} of {} (frequency {}) from slot {} for a region of frequency {}", evictedIndex,
              evicted == null ? "?" : evicted.blobName, victimFrequency, victim.number, candidateFrequency);
        }
        return victim;
      }
      // freed or being filled since it was sampled: sample again
    }
    return null;
  }
}
