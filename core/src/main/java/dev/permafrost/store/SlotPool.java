/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache file's space, lent out as slots of power-of-two sizes from {@link #minSize} to {@link #maxSize} (a full
 * region). A region takes the smallest free piece that holds it, halved as often as needed, and a slot given back
 * merges with its free buddy (a buddy allocator): the space small regions stop using returns to large ones and the
 * space large ones do not use serves small ones, so no share of the cache is set aside for any size.
 *
 * <p>When nothing is free, a region is admitted only if it is worth more (by the {@link EvictionPolicy}) than the
 * least valuable of a few windows of its size sampled at random in the file; a window is worth its most valuable
 * region, and a window with a slot being filled or being handed out is skipped. Admitting a region empties the
 * window (a slot of the same size, a larger one holding the window, or the smaller ones inside it) and takes its
 * space. A one-off scan therefore cannot push out regions that are read again and again (TinyLFU admission),
 * whatever their sizes.
 *
 * <p>The pool also watches for thrashing that no layout can fix (regions read more than once evicting each other,
 * or refused), and says so once: the data searched again and again does not fit in the cache.
 */
final class SlotPool {
  /*
   * Implementation notes
   * --------------------
   * The file is cut into roots: whole full regions, then what is left in smaller powers of two. Every root is
   * aligned to its size, so a piece of size s at offset o has its buddy at o ^ s, and the two merge into a piece of
   * size 2s while 2s fits in the root. The slots map partitions the file: every byte belongs to exactly one Slot,
   * free (Slot.free, in the free map of its size), handed out (neither free nor owned: between take and
   * Slot.assign, or before it is given back) or owned. Two free buddies never coexist: give-back merges at once.
   *
   * A Slot object stands for one piece at one size for as long as that piece exists: splitting and merging retire
   * the objects of the pieces involved (always free ones, whose generation was bumped when they were freed) and
   * create new ones. A reader still holding a window on a retired slot fails its generation check, exactly as for
   * a slot that changed hands, and a retired slot is never handed out again.
   *
   * Everything below, and Slot.free, is guarded by this pool's monitor. It is taken only when a region needs a slot,
   * when a slot is given back, and for stats: never by a reader of cached bytes. Lock order: this monitor may take a
   * slot's monitor (Slot.tryTake, Slot.isFilling) and, through RegionOwner.regionReleased, the cache's blob table;
   * no code holding either of those takes this monitor.
   */
  private static final Logger log = LoggerFactory.getLogger(SlotPool.class);
  /** Windows sampled per eviction attempt. */
  private static final int SAMPLE = 8;
  /** Placements per thrash check: the warning looks at the last this many regions the pool had to place. */
  static final int THRASH_WINDOW = 1024;

  /** The largest slot: a full region, the size of every whole root. */
  final int maxSize;
  /** The smallest slot. */
  final int minSize;
  /** The page size of every slot's bitmap. */
  final int pageSize;
  /** Bytes of the file given to slots: whole roots and the smaller roots after them. */
  final long bytes;
  /** The end of the whole (full-size) roots; the smaller roots follow. */
  private final long wholeEnd;
  /** Every slot, free or not, by offset in the file. */
  private final TreeMap<Long, Slot> slots = new TreeMap<>();
  /** The free slots of each order (size {@code minSize << order}), by offset: the lowest is handed out first. */
  private final List<TreeMap<Long, Slot>> free = new ArrayList<>();
  /** Regions taken from one blob to give to another. */
  final LongAdder evictions = new LongAdder();
  private final String cacheName;
  private final EvictionPolicy policy;
  /** What every slot cut from this pool is part of. */
  private final CacheSpace cacheSpace;
  private int placed;
  private int hotEvicted;
  private int hotRefused;
  private boolean thrashWarned;

  /**
   * @param bytes the file's size, at most this many bytes are used (rounded down to {@code minSize})
   * @param cacheName what the thrash warning calls the cache
   * @param policy what regions are worth, when one must be evicted
   * @param cacheSpace what the slots are part of (null to test the allocation alone)
   */
  SlotPool(long bytes, int maxSize, int minSize, int pageSize, String cacheName, EvictionPolicy policy,
      CacheSpace cacheSpace) {
    assert Integer.bitCount(maxSize) == 1 && Integer.bitCount(minSize) == 1 && minSize <= maxSize;
    assert Integer.bitCount(pageSize) == 1 && pageSize <= minSize;
    this.maxSize = maxSize;
    this.minSize = minSize;
    this.pageSize = pageSize;
    this.cacheName = cacheName;
    this.policy = policy;
    this.cacheSpace = cacheSpace;
    for (int size = minSize; size <= maxSize && size > 0; size <<= 1) {
      free.add(new TreeMap<>());
    }
    this.wholeEnd = bytes / maxSize * maxSize;
    long offset = 0;
    for (; offset < wholeEnd; offset += maxSize) {
      addFree(new Slot(cacheSpace, offset, maxSize, pageSize));
    }
    for (int size = maxSize >>> 1; size >= minSize; size >>>= 1) {
      if (bytes - offset >= size) {
        addFree(new Slot(cacheSpace, offset, size, pageSize));
        offset += size;
      }
    }
    this.bytes = offset;
  }

  /** The size of a slot of order {@code order}. */
  private int sizeOf(int order) {
    return minSize << order;
  }

  private int orderOf(int size) {
    assert Integer.bitCount(size) == 1 && size >= minSize && size <= maxSize : size;
    return Integer.numberOfTrailingZeros(size) - Integer.numberOfTrailingZeros(minSize);
  }

  /** The size of the root holding {@code offset}: every root is aligned to its size. */
  private long rootSize(long offset) {
    if (offset < wholeEnd) {
      return maxSize;
    }
    long start = wholeEnd;
    for (int size = maxSize >>> 1; size >= minSize; size >>>= 1) {
      if ((bytes - wholeEnd & size) != 0) {
        if (offset < start + size) {
          return size;
        }
        start += size;
      }
    }
    throw new AssertionError("offset " + offset + " is past the slots' " + bytes + " bytes");
  }

  private void addFree(Slot s) {
    assert !s.free && s.owner == null;
    s.free = true;
    slots.put(s.cacheOffset, s);
    free.get(orderOf(s.size)).put(s.cacheOffset, s);
  }

  // ---- taking and giving back ----

  /**
   * A slot for region {@code index} of {@code blob}, which a reader waits for ({@code reader}) or which is
   * prefetched: a free one (split from a larger free piece if need be), or the space of the least valuable sampled
   * window if the region is worth more than it, or null (do not admit the region: read it directly). The caller has
   * the slot to itself until it assigns it or gives it back.
   */
  Slot take(RegionOwner blob, int index, boolean reader) {
    long key = blob.regionKey(index);
    return take(blob.slotSize(index), policy.candidateValue(key, reader), policy.frequency(key));
  }

  /**
   * A slot for region {@code index} of {@code blob}, which carries on a reader's fill its region's end cut short
   * ({@link EvictionPolicy#carriedValue}): as {@link #take(RegionOwner, int, boolean)} for a prefetch, with the move
   * the reader is about to make into it counted. Without it, a region no one has read yet is worth nothing against a full
   * cache, and a reader scanning through admitted regions would fetch one region a round trip.
   */
  Slot takeCarried(RegionOwner blob, int index) {
    long key = blob.regionKey(index);
    return take(blob.slotSize(index), policy.carriedValue(key), policy.frequency(key) + 1);
  }

  /** {@link #take(RegionOwner, int, boolean)} for a region of {@code size} bytes, {@code value} and use count. */
  synchronized Slot take(int size, int value, int frequency) {
    Slot slot = takeFree(size);
    if (slot == null) {
      slot = evictFor(size, value);
      if (slot == null && frequency >= 2) {
        hotRefused++;
      }
    }
    if (++placed == THRASH_WINDOW) {
      checkThrashing();
    }
    assert slot == null || (!slot.free && slot.owner == null && slot.size == size && slots.get(slot.cacheOffset) == slot);
    return slot;
  }

  /** The lowest free slot of {@code size}, split from the smallest larger free piece if there is none; or null. */
  private Slot takeFree(int size) {
    for (int order = orderOf(size); order < free.size(); order++) {
      Map.Entry<Long, Slot> first = free.get(order).pollFirstEntry();
      if (first != null) {
        Slot s = first.getValue();
        s.free = false;
        while (s.size > size) {
          s = split(s, s.cacheOffset);
        }
        return s;
      }
    }
    return null;
  }

  /**
   * Splits {@code s} (handed out, not free) in halves: the half holding {@code keep} is returned, handed out, the
   * other is free. {@code s} is retired.
   */
  private Slot split(Slot s, long keep) {
    assert !s.free && s.owner == null && s.size > minSize;
    int half = s.size >>> 1;
    Slot low = new Slot(cacheSpace, s.cacheOffset, half, pageSize);
    Slot high = new Slot(cacheSpace, s.cacheOffset + half, half, pageSize);
    slots.remove(s.cacheOffset);
    boolean keepLow = keep < high.cacheOffset;
    Slot kept = keepLow ? low : high;
    slots.put(kept.cacheOffset, kept);
    addFree(keepLow ? high : low);
    return kept;
  }

  /**
   * Frees {@code slot} and gives it back if {@code owner} still holds it and no fill is running (otherwise leaves it
   * alone: a slot being filled is freed by nobody).
   */
  void free(Slot slot, RegionOwner owner) {
    if (slot.tryTake(owner)) {
      giveBack(slot);
    }
  }

  /** Frees every slot that holds a region and is not being filled. */
  void clear() {
    for (Slot s : slots()) {
      RegionOwner owner = s.owner;
      if (owner != null) {
        free(s, owner);
      }
    }
  }

  /** Counts a use of the region {@code key}, for eviction. */
  void recordAccess(long key) {
    policy.recordAccess(key);
  }

  /** The use count of the region {@code key}, for the record of a clean close. */
  int frequency(long key) {
    return policy.frequency(key);
  }

  /** Restores a recorded use count at start. */
  void restoreFrequency(long key, int frequency) {
    policy.restoreFrequency(key, frequency);
  }

  /** Returns a slot the caller has to itself (freed, or never assigned), merging it with its free buddies. */
  synchronized void giveBack(Slot slot) {
    assert slot.owner == null && !slot.free && slots.get(slot.cacheOffset) == slot : slot;
    Slot s = slot;
    while (2L * s.size <= rootSize(s.cacheOffset)) {
      long buddyOffset = s.cacheOffset ^ s.size;
      Slot buddy = slots.get(buddyOffset);
      if (buddy == null || !buddy.free || buddy.size != s.size) {
        break;
      }
      free.get(orderOf(buddy.size)).remove(buddyOffset);
      buddy.free = false;
      slots.remove(buddyOffset);
      slots.remove(s.cacheOffset);
      Slot merged = new Slot(cacheSpace, Math.min(s.cacheOffset, buddyOffset), s.size << 1, pageSize);
      slots.put(merged.cacheOffset, merged);
      s = merged;
    }
    addFreeMerged(s);
  }

  private void addFreeMerged(Slot s) {
    s.free = true;
    free.get(orderOf(s.size)).put(s.cacheOffset, s);
  }

  /**
   * The slot of exactly {@code size} bytes at {@code offset}, split from the free piece holding it, handed out to
   * the caller; or null if that space is not free or not a slot this pool could cut. For restoring a recorded
   * layout at start.
   */
  synchronized Slot carve(long offset, int size) {
    if (Integer.bitCount(size) != 1 || size < minSize || size > maxSize || offset < 0 || offset % size != 0
        || offset + size > bytes || rootSize(offset) < size) {
      return null;
    }
    Slot s = slots.floorEntry(offset).getValue();
    if (!s.free || s.cacheOffset + s.size < offset + size) {
      return null;
    }
    free.get(orderOf(s.size)).remove(s.cacheOffset);
    s.free = false;
    while (s.size > size) {
      s = split(s, offset);
    }
    assert s.cacheOffset == offset && s.size == size;
    return s;
  }

  // ---- eviction ----

  /**
   * Empties the least valuable of a few sampled windows of {@code size} bytes if it is worth less than
   * {@code value}, and returns the slot of that size it frees; null if every window is busy or worth as much.
   */
  private Slot evictFor(int size, int value) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 3; attempt++) {
      long best = -1;
      int bestValue = Integer.MAX_VALUE;
      for (int i = 0; i < SAMPLE; i++) {
        long window = randomWindow(size, random);
        if (window < 0) {
          continue;
        }
        int windowValue = windowValue(window, size, Math.min(bestValue, value));
        if (windowValue >= 0) {
          best = window;
          bestValue = windowValue;
        }
      }
      if (best < 0) {
        return null; // every sampled window is busy, or worth as much as the candidate or more
      }
      if (evictWindow(best, size, value, bestValue)) {
        Slot s = takeFree(size);
        if (s != null) {
          return s;
        }
      }
      // a slot of the window started filling since it was sampled: sample again
    }
    return null;
  }

  /** The offset of a random window of {@code size} bytes, aligned to its size inside a root, or -1. */
  private long randomWindow(int size, ThreadLocalRandom random) {
    for (int tries = 0; tries < 4; tries++) {
      long p = random.nextLong(bytes);
      if (rootSize(p) >= size) {
        return p & -(long) size;
      }
    }
    return -1;
  }

  /** The slots that share bytes with the window [{@code window}, +{@code size}): one that holds it, or those inside it. */
  private Iterable<Slot> slotsOf(long window, int size) {
    Slot first = slots.floorEntry(window).getValue();
    if (first.cacheOffset + first.size >= window + size) {
      return List.of(first);
    }
    assert first.cacheOffset == window : first + " straddles the window at " + window;
    return slots.subMap(window, true, window + size, false).values();
  }

  /**
   * What emptying the window would cost: the value of its most valuable region (0 if it holds none), or -1 if a
   * slot in it is busy (being filled, handed out, or held for the reader of a prefetch: {@link Slot#isHeld}) or the
   * cost reaches {@code limit} (it cannot win).
   */
  private int windowValue(long window, int size, int limit) {
    int value = 0;
    long now = System.nanoTime();
    for (Slot s : slotsOf(window, size)) {
      if (s.free) {
        continue;
      }
      RegionOwner owner = s.owner;
      if (owner == null || s.isHeld(now) || s.isFilling()) {
        return -1;
      }
      value = Math.max(value, policy.residentValue(owner.regionKey(s.index), s.readerFetched));
      if (value >= limit) {
        return -1;
      }
    }
    return value;
  }

  /** Takes every region of the window from its owner and gives the slots back; false if one of them became busy. */
  private boolean evictWindow(long window, int size, int candidateValue, int value) {
    List<Slot> victims = new ArrayList<>();
    for (Slot s : slotsOf(window, size)) {
      if (!s.free) {
        victims.add(s);
      }
    }
    boolean hot = false;
    for (Slot victim : victims) {
      RegionOwner evicted = victim.owner;
      int evictedIndex = victim.index;
      if (!victim.tryTake(null)) {
        return false; // the ones taken so far are free now: no harm done
      }
      evictions.increment();
      hot |= evicted != null && policy.frequency(evicted.regionKey(evictedIndex)) >= 2;
      if (log.isDebugEnabled()) {
        log.debug("evicted region {} of {} from {} (window value {}) for a region of {} bytes and value {}",
            evictedIndex, evicted == null ? "?" : evicted.checksums().blobName, victim, value, size, candidateValue);
      }
      giveBack(victim);
    }
    if (hot) {
      hotEvicted++;
    }
    return true;
  }

  private void checkThrashing() {
    if (!thrashWarned && hotEvicted + hotRefused > THRASH_WINDOW / 2) {
      thrashWarned = true;
      log.warn("the shared region cache at {} is thrashing: of the last {} regions it had to place, {} evicted regions"
          + " read more than once and {} regions read more than once found nothing colder to evict and were read"
          + " directly from the store. Slots of every size are cut from the whole cache as needed, so no other layout"
          + " would help: the data searched again and again does not fit in its {} bytes. Give the cache a larger size"
          + " (logged once)", cacheName, placed, hotEvicted, hotRefused, bytes);
    }
    placed = 0;
    hotEvicted = 0;
    hotRefused = 0;
  }

  // ---- views ----

  /** Whether the pool has warned that the cache thrashes (for tests). */
  synchronized boolean thrashWarned() {
    return thrashWarned;
  }

  /** How many slots the file is cut into now, and how many of them hold a region. */
  record SlotCount(int slots, int inUse) {}

  /** How many slots the file is cut into now, and how many of them hold a region. */
  synchronized SlotCount countSlots() {
    int inUse = 0;
    for (Slot s : slots.values()) {
      inUse += s.owner != null ? 1 : 0;
    }
    return new SlotCount(slots.size(), inUse);
  }

  /** Every slot now, free or not; for clearing and tests. */
  synchronized Slot[] slots() {
    return slots.values().toArray(new Slot[0]);
  }

  /** Whether the slots partition the file, with free buddies merged (for assertions and tests). */
  synchronized boolean checkInvariants() {
    long expected = 0;
    for (Slot s : slots.values()) {
      if (s.cacheOffset != expected || s.cacheOffset % s.size != 0 || s.size > rootSize(s.cacheOffset)) {
        return false;
      }
      expected += s.size;
      if (s.free != (free.get(orderOf(s.size)).get(s.cacheOffset) == s)) {
        return false;
      }
      if (s.free && 2L * s.size <= rootSize(s.cacheOffset)) {
        Slot buddy = slots.get(s.cacheOffset ^ s.size);
        if (buddy != null && buddy.free && buddy.size == s.size) {
          return false;
        }
      }
    }
    return expected == bytes;
  }
}
