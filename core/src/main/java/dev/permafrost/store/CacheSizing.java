/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.snapshot.SnapshotOptions;
import java.nio.file.Path;

/**
 * How large a cache and its regions and slots are: pure functions of the settings, the disk and the heap, each given
 * by the caller (nothing here reads the environment), so that every rule can be tested against any disk or heap. A
 * setting that cannot hold fails with an {@link IllegalArgumentException} naming it, the numbers and the fix.
 */
final class CacheSizing {
  /** How many full regions a cache holds by default: see {@link #defaultRegionSize}. */
  static final long DEFAULT_REGIONS = 16_384;
  /** The smallest default full region: a verification chunk of a snapshot made with the default options. */
  static final int MIN_DEFAULT_REGION = SnapshotOptions.DEFAULT_CHUNK_SIZE;
  /** The largest default full region. */
  static final int MAX_DEFAULT_REGION = 16 << 20;

  /**
   * The slots the smallest slot size aims to keep a cache under: it doubles while the cache would hold more, up to the
   * tail region size; past that a large cache with small tail regions may hold more (the heap check bounds them).
   */
  static final int MAX_SLOTS = 1 << 18;
  /** Heap a slot takes beyond its page bitmap (object, fill list, checksums, the pool's maps), for the heap check. */
  static final int SLOT_HEAP = 256;

  private CacheSizing() {}

  /**
   * The sizes a builder's settings ask for, as given.
   *
   * @param size bytes ({@code "10gb"}) or a share of the disk ({@code "80%"}); null if not set
   * @param headroom with a share of the disk, what to keep free on it: bytes or a share
   * @param regionSize the full region, or 0 for {@link #defaultRegionSize}
   * @param tailRegionSize the tail region, or 0 for {@link #defaultTailRegionSize}
   * @param fullRegionsOnly whether every region, tails and small files included, takes a whole full region
   */
  record Settings(String size, String headroom, long regionSize, long tailRegionSize, boolean fullRegionsOnly) {}

  /**
   * The disk the cache file goes on, as read when the cache is built.
   *
   * @param dir the cache's directory, for messages
   * @param totalBytes the size of the disk
   * @param usableBytes what is free on it for this process
   * @param cacheFileBytes the length of a cache file already there (0 if none): room the new cache takes back
   */
  record Disk(Path dir, long totalBytes, long usableBytes, long cacheFileBytes) {}

  /**
   * The sizes a cache is built with.
   *
   * @param sizeInBytes the cache file's length: a whole number of the smallest slots
   * @param regionSize the full region, the largest slot
   * @param tailRegionSize the region a file's tail is cut into
   * @param minSlotSize the smallest slot
   * @param pageSize the unit a slot's bytes are marked filled in
   * @param sketchRegions how many regions the frequency sketch counts
   */
  record Sizes(long sizeInBytes, int regionSize, int tailRegionSize, int minSlotSize, int pageSize, int sketchRegions) {
    Sizes {
      assert sizeInBytes > 0 && sizeInBytes % minSlotSize == 0 : sizeInBytes + " in slots of " + minSlotSize;
      assert pageSize <= minSlotSize && minSlotSize <= tailRegionSize && tailRegionSize <= regionSize
          : pageSize + " <= " + minSlotSize + " <= " + tailRegionSize + " <= " + regionSize;
    }
  }

  /**
   * Resolves {@code settings} against the disk and the heap (the most this JVM may take), or fails naming the
   * setting that cannot hold: a size that does not fit on the disk, regions that are not powers of two or do not
   * fit in the cache, a slot table that would take more than a quarter of the heap.
   */
  static Sizes resolve(Settings settings, Disk disk, long maxHeapBytes) {
    long size = resolveSize(settings.size(), settings.headroom(), disk);
    int regionSize = settings.regionSize() == 0 ? defaultRegionSize(size)
        : checkPowerOfTwo("regionSize", settings.regionSize());
    boolean fullOnly = settings.fullRegionsOnly();
    int tailSize = fullOnly ? regionSize : checkPowerOfTwo("tailRegionSize",
        settings.tailRegionSize() != 0 ? settings.tailRegionSize() : defaultTailRegionSize(regionSize));
    if (tailSize > regionSize) {
      throw new IllegalArgumentException(
          "tailRegionSize (" + tailSize + ") must not exceed regionSize (" + regionSize + ")");
    }
    int pageSize = Math.min(CacheFile.PAGE_SIZE, tailSize);
    int minSlotSize = fullOnly ? regionSize : minSlotSize(size, pageSize, tailSize);
    if (size < minSlotSize) {
      throw new IllegalArgumentException(
          "cache size " + size + " bytes holds no region of " + minSlotSize + " bytes; give a larger size");
    }
    long sizeInBytes = size / minSlotSize * minSlotSize;
    checkDisk(disk, sizeInBytes, settings.size());
    // the sketch counts regions of a typical small file (32 KiB) or larger
    int sketchRegions = (int) Math.min(MAX_SLOTS,
        Math.max(sizeInBytes / regionSize, sizeInBytes / Math.max(minSlotSize, 32 << 10)));
    checkHeap(sizeInBytes, regionSize, minSlotSize, pageSize, sketchRegions, maxHeapBytes);
    return new Sizes(sizeInBytes, regionSize, tailSize, minSlotSize, pageSize, sketchRegions);
  }

  /**
   * The cache's size in bytes before it is cut into slots: {@code spec} as bytes, or as a share of the disk, no more
   * than is usable on it (a cache file already there counts as usable) less {@code headroom}.
   */
  static long resolveSize(String spec, String headroom, Disk disk) {
    if (spec == null) {
      throw new IllegalArgumentException("the cache size is not set: give size(\"10gb\") or size(\"80%\")");
    }
    String trimmed = spec.trim();
    if (!trimmed.endsWith("%")) {
      try {
        return ByteSizes.parse(trimmed);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "cache size must be a byte size (10gb) or a share of the disk (80%), got '" + trimmed + "'", e);
      }
    }
    double share = parseShare("size", trimmed);
    long total = disk.totalBytes();
    long headroomBytes = headroom.trim().endsWith("%")
        ? (long) (total * parseShare("headroom", headroom.trim()))
        : ByteSizes.parse(headroom);
    long wanted = (long) (total * share);
    long available = disk.usableBytes() + disk.cacheFileBytes() - headroomBytes;
    long size = Math.min(wanted, available);
    if (size <= 0) {
      throw new IllegalArgumentException("cache size " + trimmed + " of the disk at " + disk.dir()
          + " leaves nothing once the headroom of " + headroom + " is kept free (usable: " + disk.usableBytes()
          + " bytes)");
    }
    return size;
  }

  /** A share such as {@code "80%"} as a fraction in (0, 1]. */
  static double parseShare(String setting, String spec) {
    try {
      double percent = Double.parseDouble(spec.substring(0, spec.length() - 1).trim());
      if (percent <= 0 || percent > 100) {
        throw new NumberFormatException();
      }
      return percent / 100;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("cache " + setting + " share must be between 0% and 100%, got '" + spec + "'");
    }
  }

  /**
   * The smallest slot: a page, or more in a large cache, so that the cache holds at most {@link #MAX_SLOTS} slots
   * (and their heap); never more than a tail region, so a cache with small tail regions may hold more.
   */
  static int minSlotSize(long size, int pageSize, int tailRegionSize) {
    int min = pageSize;
    while (min < tailRegionSize && (long) min * MAX_SLOTS < size) {
      min <<= 1;
    }
    return min;
  }

  /**
   * Fails, before anything is allocated, if the disk cannot hold a cache file of {@code bytes} (an existing one
   * counts as room); {@code spec} is the size as set, for the message.
   */
  static void checkDisk(Disk disk, long bytes, String spec) {
    long room = disk.usableBytes() + disk.cacheFileBytes();
    if (bytes > room) {
      throw new IllegalArgumentException("cache size " + spec + " (" + ByteSizes.format(bytes) + ") does not fit on"
          + " the disk at " + disk.dir() + ": " + room + " bytes usable there; give a smaller size, or a share of the"
          + " disk such as \"80%\"");
    }
  }

  /**
   * Fails if the slot table, cut into the smallest slots (the most it can take), and the frequency sketch would take
   * more than a quarter of {@code maxHeapBytes}: a clear message instead of running out of memory.
   */
  static void checkHeap(long sizeInBytes, int regionSize, int minSlotSize, int pageSize, int sketchRegions,
      long maxHeapBytes) {
    long slots = sizeInBytes / minSlotSize;
    long perSlot = SLOT_HEAP + 8L * ((minSlotSize / pageSize + 63) / 64);
    long needed = slots * perSlot + 32L * sketchRegions; // the sketch: up to 32 one-byte counters a region
    if (needed > maxHeapBytes / 4) {
      throw new IllegalArgumentException("a cache of " + ByteSizes.format(sizeInBytes) + " in slots of "
          + ByteSizes.format(minSlotSize) + " to " + ByteSizes.format(regionSize) + " needs up to about "
          + (needed >> 20) + " MB of heap for its slot table, more than a quarter of this JVM's " + (maxHeapBytes >> 20)
          + " MB: give a larger regionSize (or tailRegionSize), a smaller size, or more heap");
    }
  }

  /**
   * The full region of a cache of {@code size} bytes when none is set: the largest power of two that the cache holds
   * {@link #DEFAULT_REGIONS} times, between {@link #MIN_DEFAULT_REGION} and {@link #MAX_DEFAULT_REGION}. A region is
   * the cache's unit of space: a read of a few KB of structure (a terms block, a postings head, a point tree's
   * nodes) takes a slot of its region, so regions must be small against the cache for a cache of a small share of the
   * data to hold a search's structure (at 10 GiB of data, a 55 MB cache of 16 MiB regions holds 3 of them; of 32 KiB
   * regions, a read's own chunk, 1,700); a large read is not cut into requests by regions (adjacent regions are
   * fetched in one request), so small regions cost requests only where reads are sparse. The bound below keeps the
   * slot table and the sketch small in huge caches.
   */
  static int defaultRegionSize(long size) {
    long target = Long.highestOneBit(Math.max(1, size / DEFAULT_REGIONS));
    return (int) Math.max(MIN_DEFAULT_REGION, Math.min(MAX_DEFAULT_REGION, target));
  }

  /**
   * A sixteenth of a full region, but no smaller than a snapshot's default chunk: a fill reads whole chunks to verify
   * them, so a tail region smaller than a chunk would fetch the chunk for a part of it.
   */
  static int defaultTailRegionSize(int regionSize) {
    return Math.min(regionSize, Math.max(SnapshotOptions.DEFAULT_CHUNK_SIZE, regionSize / 16));
  }

  /** {@code value} as a region size: a power of two between 512 bytes and 1 GiB, or fails naming {@code setting}. */
  static int checkPowerOfTwo(String setting, long value) {
    if (value < 512 || value > (1 << 30) || Long.bitCount(value) != 1) {
      throw new IllegalArgumentException(setting + " must be a power of two between 512 bytes and 1gb, got " + value);
    }
    return (int) value;
  }
}
