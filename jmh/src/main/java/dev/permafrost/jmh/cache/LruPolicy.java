/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.LinkedHashMap;
import java.util.Map;

/** Least recently used: admits every miss and evicts the region unused for longest. Any loop bigger than it misses always. */
public final class LruPolicy implements EvictionPolicy {
  private final LinkedHashMap<Long, Boolean> entries;

  public LruPolicy(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1 region, got " + capacity);
    }
    entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > capacity;
          }
        };
  }

  @Override
  public String name() {
    return "LRU";
  }

  @Override
  public boolean access(long key) {
    if (entries.get(key) != null) {
      return true;
    }
    entries.put(key, Boolean.TRUE);
    return false;
  }
}
