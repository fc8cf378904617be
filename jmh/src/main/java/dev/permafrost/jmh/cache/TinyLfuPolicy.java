/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * LRU with TinyLFU admission: every access is counted in a {@link FrequencySketch}; a missed region is admitted
 * only if it was seen more often recently than the LRU victim it would replace. A one-off scan is counted but
 * not admitted over a hot set.
 */
public final class TinyLfuPolicy implements EvictionPolicy {
  private final int capacity;
  private final FrequencySketch sketch;
  private final LinkedHashMap<Long, Boolean> entries = new LinkedHashMap<>(16, 0.75f, true);

  public TinyLfuPolicy(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1 region, got " + capacity);
    }
    this.capacity = capacity;
    this.sketch = new FrequencySketch(capacity);
  }

  @Override
  public String name() {
    return "TinyLFU (LRU + admission)";
  }

  @Override
  public boolean access(long key) {
    sketch.increment(key);
    if (entries.get(key) != null) {
      return true;
    }
    if (entries.size() < capacity) {
      entries.put(key, Boolean.TRUE);
      return false;
    }
    Iterator<Long> lru = entries.keySet().iterator();
    Long victim = lru.next();
    if (sketch.frequency(key) > sketch.frequency(victim)) {
      lru.remove();
      entries.put(key, Boolean.TRUE);
    }
    return false;
  }
}
