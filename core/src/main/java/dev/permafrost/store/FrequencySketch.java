/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/**
 * An approximate, ageing count of how often each region of each file is used, including regions that are not in
 * the cache: a count-min sketch of small counters, halved every {@code sampleSize} increments that grew a count, so
 * that old popularity fades (the TinyLFU admission filter). Updates race benignly: a lost increment only makes a count
 * a little low.
 */
final class FrequencySketch {
  private static final int MAX = 15;
  private static final long[] SEEDS = {0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L, 0xD6E8FEB86659FD93L};
  private final byte[] counters;
  private final int mask;
  private final int sampleSize;
  private int additions;

  FrequencySketch(int regions) {
    int width = Integer.highestOneBit(Math.max(64, regions * 16 - 1)) << 1;
    this.counters = new byte[width];
    this.mask = width - 1;
    this.sampleSize = Math.max(64, regions * 10);
  }

  static long key(long fileId, int index) {
    return (fileId << 24) ^ index;
  }

  private int slot(long key, int row) {
    long h = (key + SEEDS[row]) * SEEDS[(row + 1) & 3];
    h ^= h >>> 29;
    return (int) h & mask;
  }

  /** The estimated count of {@code key}. */
  int frequency(long key) {
    int min = MAX;
    for (int row = 0; row < SEEDS.length; row++) {
      min = Math.min(min, counters[slot(key, row)]);
    }
    return min;
  }

  /** Counts one use of {@code key}. */
  void increment(long key) {
    int s0 = slot(key, 0);
    int s1 = slot(key, 1);
    int s2 = slot(key, 2);
    int s3 = slot(key, 3);
    int f = Math.min(Math.min(counters[s0], counters[s1]), Math.min(counters[s2], counters[s3]));
    if (f < MAX) { // conservative update: only the smallest counters grow
      byte next = (byte) (f + 1);
      if (counters[s0] == f) counters[s0] = next;
      if (counters[s1] == f) counters[s1] = next;
      if (counters[s2] == f) counters[s2] = next;
      if (counters[s3] == f) counters[s3] = next;
      // Only a use that grew a count counts towards ageing (as Caffeine's sketch does): a use of a region at the
      // ceiling writes nothing, so threads reading hot regions do not pass this field's cache line between cores.
      if (++additions >= sampleSize) { // racy on purpose: a lost count only delays ageing a little
        age();
      }
    }
  }

  private synchronized void age() {
    if (additions < sampleSize) {
      return;
    }
    for (int i = 0; i < counters.length; i++) {
      counters[i] = (byte) (counters[i] >>> 1);
    }
    additions = 0;
  }
}
