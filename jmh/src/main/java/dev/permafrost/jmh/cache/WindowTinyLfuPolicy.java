/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * W-TinyLFU, as in Caffeine: a small LRU window (1% of the capacity) takes every new region; what falls out of
 * the window competes, by {@link FrequencySketch} estimate, with the victim of the main space, a segmented LRU
 * (80% protected, 20% probation). The window lets a burst of new regions get hits before it must prove itself;
 * the admission filter keeps scans out of the main space.
 */
public final class WindowTinyLfuPolicy implements EvictionPolicy {
  private final int windowCapacity;
  private final int protectedCapacity;
  private final int mainCapacity;
  private final FrequencySketch sketch;
  private final LinkedHashMap<Long, Boolean> window = new LinkedHashMap<>(16, 0.75f, true);
  private final LinkedHashMap<Long, Boolean> probation = new LinkedHashMap<>(16, 0.75f, true);
  private final LinkedHashMap<Long, Boolean> protectedSegment = new LinkedHashMap<>(16, 0.75f, true);

  public WindowTinyLfuPolicy(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1 region, got " + capacity);
    }
    windowCapacity = capacity < 3 ? (capacity == 1 ? 0 : 1) : Math.max(1, capacity / 100);
    mainCapacity = capacity - windowCapacity;
    protectedCapacity = (int) (mainCapacity * 0.8);
    sketch = new FrequencySketch(capacity);
  }

  @Override
  public String name() {
    return "W-TinyLFU";
  }

  @Override
  public boolean access(long key) {
    sketch.increment(key);
    if (window.get(key) != null) {
      return true;
    }
    if (protectedSegment.get(key) != null) {
      return true;
    }
    if (probation.remove(key) != null) {
      protectedSegment.put(key, Boolean.TRUE);
      if (protectedSegment.size() > protectedCapacity) {
        Iterator<Long> it = protectedSegment.keySet().iterator();
        Long demoted = it.next();
        it.remove();
        probation.put(demoted, Boolean.TRUE);
      }
      return true;
    }
    if (windowCapacity == 0) {
      admitToMain(key);
      return false;
    }
    window.put(key, Boolean.TRUE);
    if (window.size() > windowCapacity) {
      Iterator<Long> it = window.keySet().iterator();
      Long candidate = it.next();
      it.remove();
      admitToMain(candidate);
    }
    return false;
  }

  /** Puts {@code candidate} in probation if there is room or if it is more frequent than probation's victim. */
  private void admitToMain(Long candidate) {
    if (probation.size() + protectedSegment.size() < mainCapacity) {
      probation.put(candidate, Boolean.TRUE);
      return;
    }
    LinkedHashMap<Long, Boolean> victims = probation.isEmpty() ? protectedSegment : probation;
    Iterator<Long> it = victims.keySet().iterator();
    Long victim = it.next();
    if (sketch.frequency(candidate) > sketch.frequency(victim)) {
      it.remove();
      probation.put(candidate, Boolean.TRUE);
    }
  }
}
