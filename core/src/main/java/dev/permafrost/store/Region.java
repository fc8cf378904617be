/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.ArrayList;
import java.util.List;

/**
 * One slot of the cache file: {@code size} bytes at {@code cacheOffset}, lent to one region of one cached file
 * at a time. Which bytes of that region are filled is tracked per page.
 *
 * <p>Readers that serve bytes from a slot without a lock remember its {@link #generation} when they look the
 * slot up and check it again after copying: the generation changes whenever the slot is taken from one file
 * region and given to another (or freed), so a reader can never return bytes of another file (seqlock style).
 * All other state is guarded by the slot's monitor, which fills also notify when pages arrive.
 */
final class Region {
  /** A region that never changes owner: windows over heap bytes validate against it. */
  static final Region HEAP = new Region(null, -1, 0, 0, 1);

  final RegionPool pool;
  final int slot;
  final long cacheOffset;
  final int size;
  final int pageSize;
  private final int pageShift;

  /**
   * Bumped twice (under the monitor) whenever the slot changes hands: odd while the change is in progress, even
   * when it is done. A reader that saw an even value, read the slot's fields or bytes, and sees the same value
   * again, read a consistent state.
   */
  volatile int generation;
  /** Whether every page of the region is filled: such a region can be read without taking the monitor. */
  volatile boolean complete;
  /** The file whose region this slot holds, or null when free. Written under the monitor. */
  volatile CacheFile owner;
  /** Written under the monitor; read racily only to choose eviction candidates. */
  volatile int index = -1;
  /** The file offset of the region's first byte. Guarded by this. */
  long fileStart;
  /** How many bytes of the slot the region uses (less than {@link #size} at the end of a file). Guarded by this. */
  int length;
  /** Guarded by this. */
  private final long[] filled;
  /** Fills writing into this slot now. Guarded by this; a slot with fills is never evicted. */
  final List<Fill> fills = new ArrayList<>(2);

  Region(RegionPool pool, int slot, long cacheOffset, int size, int pageSize) {
    assert Integer.bitCount(pageSize) == 1 && size % pageSize == 0;
    this.pool = pool;
    this.slot = slot;
    this.cacheOffset = cacheOffset;
    this.size = size;
    this.pageSize = pageSize;
    this.pageShift = Integer.numberOfTrailingZeros(pageSize);
    this.filled = new long[Math.max(1, ((size >> pageShift) + 63) >>> 6)];
  }

  int pageOf(long regionOffset) {
    return (int) (regionOffset >>> pageShift);
  }

  /** Gives the free slot to region {@code index} of {@code file}. Caller holds the monitor. */
  void assign(CacheFile file, int index) {
    assert Thread.holdsLock(this);
    assert owner == null && fills.isEmpty();
    generation++;
    this.complete = false;
    this.fileStart = file.regionStart(index);
    this.length = file.regionLength(index);
    assert length > 0 && length <= size;
    this.index = index;
    this.owner = file;
    java.util.Arrays.fill(filled, 0L);
    generation++;
    assert (generation & 1) == 0;
  }

  /** Takes the slot back from its file. Caller holds the monitor and has checked that no fill is running. */
  void free() {
    assert Thread.holdsLock(this);
    assert fills.isEmpty();
    generation++;
    complete = false;
    owner = null;
    index = -1;
    java.util.Arrays.fill(filled, 0L);
    generation++;
    assert (generation & 1) == 0;
  }

  boolean isFilled(int page) {
    assert Thread.holdsLock(this);
    return (filled[page >>> 6] & (1L << page)) != 0;
  }

  /** Marks the pages wholly inside [from, to) as filled, and the last page too if {@code to} is the region's end. */
  void markFilled(long from, long to) {
    assert Thread.holdsLock(this);
    int first = (int) ((from + pageSize - 1) >>> pageShift);
    int end = to >= length ? pageOf(length - 1) + 1 : (int) (to >>> pageShift);
    for (int p = first; p < end; p++) {
      filled[p >>> 6] |= 1L << p;
    }
    if (end > first && filledBytes() >= ((long) pages() << pageShift)) {
      complete = true;
    }
  }

  int pages() {
    return pageOf(length - 1) + 1;
  }

  /** The start (inclusive) of the run of filled pages that contains {@code page}, in bytes. */
  long filledRunStart(int page) {
    assert isFilled(page);
    int p = page;
    while (p > 0 && isFilled(p - 1)) {
      p--;
    }
    return (long) p << pageShift;
  }

  /** The end (exclusive) of the run of filled pages that contains {@code page}, in bytes, at most {@link #length}. */
  long filledRunEnd(int page) {
    assert isFilled(page);
    int p = page + 1;
    int pages = pages();
    while (p < pages && isFilled(p)) {
      p++;
    }
    return Math.min(length, (long) p << pageShift);
  }

  /** The fill already fetching {@code page}, if any. */
  Fill fillCovering(int page) {
    assert Thread.holdsLock(this);
    long offset = (long) page << pageShift;
    for (Fill f : fills) {
      if (offset >= f.start && offset < f.end) {
        return f;
      }
    }
    return null;
  }

  /**
   * The end of a new fill starting at page {@code page} that may grow to {@code maxBytes}: it stops before the
   * first page that is filled or being fetched, and at the region's end.
   */
  long fillEnd(int page, long maxBytes) {
    assert Thread.holdsLock(this);
    long start = (long) page << pageShift;
    long wanted = start + Math.max(pageSize, maxBytes);
    // a fill ends on a page boundary (or the region's end): pages are the unit of "filled"
    long limit = Math.min(length, (wanted + pageSize - 1) & -(long) pageSize);
    int p = page + 1;
    while (((long) p << pageShift) < limit && !isFilled(p) && fillCovering(p) == null) {
      p++;
    }
    return Math.min(limit, (long) p << pageShift);
  }

  long filledBytes() {
    assert Thread.holdsLock(this);
    long count = 0;
    for (long word : filled) {
      count += Long.bitCount(word);
    }
    return count << pageShift;
  }

  @Override
  public String toString() {
    CacheFile f = owner;
    return "region slot " + slot + (f == null ? " (free)" : " (" + f.blobName + " region " + index + ")");
  }
}
