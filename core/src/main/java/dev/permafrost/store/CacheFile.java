/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The cache's view of one blob: its length, how it is cut into regions, and which slot holds each region.
 * Shared by every mounted index that uses the same blob (blobs are content-addressed).
 *
 * <p>A file is cut into full-size regions of {@code regionSize} bytes, and its tail (what is left after the last
 * full region, which for a small file is the whole file) into regions of {@code tailRegionSize} bytes taken from
 * the pool of small slots, so that a small file or a tail does not hold a whole large slot.
 */
final class CacheFile {
  final long id;
  final String key;
  final String blobName;
  final long length;
  final RegionPool fullPool;
  final RegionPool tailPool;
  private final int fullShift;
  private final int tailShift;
  private final int fullCount;
  private final long tailStart;
  /** The slot holding each region, or null. A stale entry (whose slot moved on) is cleared by whoever sees it. */
  final AtomicReferenceArray<Region> regions;
  /** How many directories use this file. Guarded by the cache's file table. */
  int refs;
  volatile boolean released;

  CacheFile(long id, String key, String blobName, long length, RegionPool fullPool, RegionPool tailPool) {
    this.id = id;
    this.key = key;
    this.blobName = blobName;
    this.length = length;
    this.fullPool = fullPool;
    this.tailPool = tailPool;
    this.fullShift = Integer.numberOfTrailingZeros(fullPool.slotSize);
    this.tailShift = Integer.numberOfTrailingZeros(tailPool.slotSize);
    this.fullCount = (int) (length >>> fullShift);
    this.tailStart = (long) fullCount << fullShift;
    long tail = length - tailStart;
    int tailCount = (int) ((tail + tailPool.slotSize - 1) >>> tailShift);
    this.regions = new AtomicReferenceArray<>(fullCount + tailCount);
  }

  int regionCount() {
    return regions.length();
  }

  int regionIndex(long position) {
    assert position >= 0 && position < length : position + " of " + length;
    return position < tailStart ? (int) (position >>> fullShift) : fullCount + (int) ((position - tailStart) >>> tailShift);
  }

  long regionStart(int index) {
    return index < fullCount ? (long) index << fullShift : tailStart + ((long) (index - fullCount) << tailShift);
  }

  int regionLength(int index) {
    RegionPool pool = poolOf(index);
    return (int) Math.min(pool.slotSize, length - regionStart(index));
  }

  RegionPool poolOf(int index) {
    return index < fullCount ? fullPool : tailPool;
  }

  @Override
  public String toString() {
    return "CacheFile(" + blobName + ", " + length + " bytes)";
  }
}
