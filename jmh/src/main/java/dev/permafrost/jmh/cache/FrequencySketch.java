/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

/**
 * An approximate count of how often each key was seen recently: a count-min sketch of four rows of small
 * counters (capped at 15), all halved once {@code 10 x width} increments have been made, so that old popularity
 * fades. The estimate of a key is the smallest of its four counters. This is the TinyLFU "history" of Einziger,
 * Friedman and Manes.
 */
final class FrequencySketch {
  private static final int MAX = 15;
  private final int[][] rows;
  private final int mask;
  private final long sampleSize;
  private long additions;

  FrequencySketch(int capacity) {
    int width = Integer.highestOneBit(Math.max(16, capacity) * 2 - 1);
    rows = new int[4][width];
    mask = width - 1;
    sampleSize = 10L * width;
  }

  private static int index(long key, int row, int mask) {
    long h = (key + row * 0x9E3779B97F4A7C15L) * 0xBF58476D1CE4E5B9L;
    h ^= h >>> 31;
    h *= 0x94D049BB133111EBL;
    h ^= h >>> 29;
    return (int) h & mask;
  }

  /** Counts one more sighting of {@code key}. */
  void increment(long key) {
    boolean added = false;
    for (int r = 0; r < rows.length; r++) {
      int i = index(key, r, mask);
      if (rows[r][i] < MAX) {
        rows[r][i]++;
        added = true;
      }
    }
    if (added && ++additions >= sampleSize) {
      for (int[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          row[i] >>>= 1;
        }
      }
      additions /= 2;
    }
  }

  /** The estimated recent count of {@code key}. */
  int frequency(long key) {
    int min = MAX;
    for (int r = 0; r < rows.length; r++) {
      min = Math.min(min, rows[r][index(key, r, mask)]);
    }
    return min;
  }
}
