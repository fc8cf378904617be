/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * A sequence of cache-region accesses: each is a (file, region index) pair packed in a {@code long} key, the file
 * in the high 24 bits and the region in the low 40. Traces are recorded by {@link TraceRecordingDirectory} and
 * replayed against eviction policies by {@link PolicySimulator}. Appending is thread-safe.
 */
public final class AccessTrace {
  private static final int REGION_BITS = 40;
  private final long regionSize;
  private final Map<String, Integer> fileIds = new HashMap<>();
  private final List<String> files = new ArrayList<>();
  private long[] keys = new long[1024];
  private int size;

  /** An empty trace of regions of {@code regionSize} bytes. */
  public AccessTrace(long regionSize) {
    if (regionSize <= 0) {
      throw new IllegalArgumentException("region size must be positive, got " + regionSize);
    }
    this.regionSize = regionSize;
  }

  public long regionSize() {
    return regionSize;
  }

  /** The key of a file, by name (the caller makes names unique across indices), and a region index. */
  public synchronized long key(String file, long region) {
    Integer id = fileIds.get(file);
    if (id == null) {
      id = files.size();
      fileIds.put(file, id);
      files.add(file);
    }
    return ((long) id << REGION_BITS) | region;
  }

  /** Appends an access. */
  public synchronized void add(long key) {
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, keys.length * 2);
    }
    keys[size++] = key;
  }

  /** Appends an access to region {@code region} of {@code file}. */
  public void add(String file, long region) {
    add(key(file, region));
  }

  /** Appends all of {@code other}'s accesses (which must use the same region size), mapping its files by name. */
  public void addAll(AccessTrace other) {
    if (other.regionSize != regionSize) {
      throw new IllegalArgumentException("region sizes differ: " + other.regionSize + " vs " + regionSize);
    }
    long[] theirs = other.keys();
    for (long k : theirs) {
      add(other.fileOf(k), k & ((1L << REGION_BITS) - 1));
    }
  }

  /** The accesses, in order. */
  public synchronized long[] keys() {
    return Arrays.copyOf(keys, size);
  }

  public synchronized int size() {
    return size;
  }

  /** How many different regions the trace touches: the compulsory misses of any cache. */
  public long distinctRegions() {
    return Arrays.stream(keys()).distinct().count();
  }

  /** The file name of a key. */
  public synchronized String fileOf(long key) {
    return files.get((int) (key >>> REGION_BITS));
  }

  /**
   * This trace with each region kept at its first access only: what one run of a query asks of a cache once its
   * own repeated reads (hits in any cache that holds its working set) are left out.
   */
  public AccessTrace firstTouches() {
    AccessTrace out = new AccessTrace(regionSize);
    Set<Long> seen = new HashSet<>();
    for (long k : keys()) {
      if (seen.add(k)) {
        out.add(fileOf(k), k & ((1L << REGION_BITS) - 1));
      }
    }
    return out;
  }

  /** This trace without the accesses whose key {@code drop} accepts. */
  public AccessTrace without(LongPredicate drop) {
    AccessTrace out = new AccessTrace(regionSize);
    for (long k : keys()) {
      if (!drop.test(k)) {
        out.add(fileOf(k), k & ((1L << REGION_BITS) - 1));
      }
    }
    return out;
  }

  /** A trace that is this one {@code times} times over (e.g. a dashboard refreshed). */
  public AccessTrace repeat(int times) {
    AccessTrace out = new AccessTrace(regionSize);
    for (int i = 0; i < times; i++) {
      out.addAll(this);
    }
    return out;
  }

  /** A trace of raw keys; for tests and synthetic traces. */
  public static AccessTrace ofKeys(long regionSize, long... keys) {
    AccessTrace t = new AccessTrace(regionSize);
    for (long k : keys) {
      t.add("f", k);
    }
    return t;
  }
}
