/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.snapshot.ChunkTable;
import dev.permafrost.snapshot.FileEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The cache's view of one blob: its length and checksums, how it is cut into regions, which slot holds each
 * region, and how its bytes are verified. Shared by every mounted index that uses the blob (blobs are
 * content-addressed). Closing the last directory that reads it does not evict its regions: they stay until evicted
 * (or cleared), and the cache forgets the blob once no one reads it and no slot holds any of it.
 *
 * <p>A blob is cut into full regions of the full slot size, and its tail (what is left after the last full
 * region, which for a small blob is all of it) into regions of the tail region size. Each region takes a slot of
 * its size but the last, which takes the smallest power of two that holds it (no smaller than the pool's smallest
 * slot): a small file or a tail holds no more than twice its bytes.
 *
 * <p>Verification: with a {@link ChunkTable} (loaded on the first fill, in parallel with it), every chunk is
 * checked against its CRC32C, so fills are aligned to chunks. A blob of at most one chunk has no table and is
 * always fetched whole and checked against its Lucene checksum. A blob of a snapshot that recorded no tables
 * (format 1) is checked only when a read happens to fetch it whole.
 */
final class CachedBlob {
  final long id;
  final String key;
  final String blobName;
  final String fileName;
  final long length;
  /** The Lucene checksum of the file (its footer's last 8 bytes). */
  final long checksum;
  /** The CRC32C of the whole file, when it is at most one chunk long (it has no table). */
  final int wholeCrc32c;
  /** The chunk size of the snapshot's tables, 0 if it recorded none. */
  final int chunkSize;
  /** The blob of the chunk table, or null if there is none. */
  final String tableBlob;
  final SharedRegionCache cache;
  private final int fullSize;
  private final int tailSize;
  private final int minSlotSize;
  private final int fullShift;
  private final int tailShift;
  private final int fullCount;
  private final long tailStart;
  /** The slot holding each region, or null. A stale entry (whose slot moved on) is cleared by whoever sees it. */
  private final AtomicReferenceArray<Slot> slots;
  /** The chunk table, once asked for; a failed load is forgotten so that the next fill tries again. */
  private final AtomicReference<CompletableFuture<ChunkTable>> table = new AtomicReference<>();
  /** How many directories use this blob. Guarded by the cache's blob table. */
  int refs;
  /** How many slots hold a region of this blob. */
  private final AtomicInteger slotsHeld = new AtomicInteger();

  /**
   * @param tailSize the size of the regions a blob's tail is cut into: a power of two, at most {@code pool.maxSize}
   */
  CachedBlob(long id, String key, FileEntry file, int chunkSize, SharedRegionCache cache, SlotPool pool, int tailSize) {
    this.id = id;
    this.key = key;
    this.blobName = file.blobName();
    this.fileName = file.name();
    this.length = file.length();
    this.checksum = file.checksum();
    this.wholeCrc32c = file.wholeCrc32c();
    this.chunkSize = chunkSize;
    this.tableBlob = ChunkTable.hasTable(length, chunkSize) ? ChunkTable.blobName(blobName, chunkSize) : null;
    this.cache = cache;
    assert Integer.bitCount(tailSize) == 1 && tailSize <= pool.maxSize && tailSize >= pool.minSize : tailSize;
    this.fullSize = pool.maxSize;
    this.tailSize = tailSize;
    this.minSlotSize = pool.minSize;
    this.fullShift = Integer.numberOfTrailingZeros(fullSize);
    this.tailShift = Integer.numberOfTrailingZeros(tailSize);
    this.fullCount = (int) (length >>> fullShift);
    this.tailStart = (long) fullCount << fullShift;
    long tail = length - tailStart;
    int tailCount = (int) ((tail + tailSize - 1) >>> tailShift);
    this.slots = new AtomicReferenceArray<>(fullCount + tailCount);
  }

  // ---- regions ----

  int regionCount() {
    return slots.length();
  }

  int regionIndex(long position) {
    assert position >= 0 && position < length : position + " of " + length;
    return position < tailStart ? (int) (position >>> fullShift) : fullCount + (int) ((position - tailStart) >>> tailShift);
  }

  long regionStart(int index) {
    return index < fullCount ? (long) index << fullShift : tailStart + ((long) (index - fullCount) << tailShift);
  }

  int regionLength(int index) {
    return index < fullCount ? fullSize : (int) Math.min(tailSize, length - regionStart(index));
  }

  /** The size of the slot region {@code index} takes: its region size, or for a shorter last region the smallest that holds it. */
  int slotSize(int index) {
    int regionLength = regionLength(index);
    if (index < fullCount || regionLength == tailSize) {
      return regionLength;
    }
    return Math.max(minSlotSize, Integer.highestOneBit(regionLength - 1) << 1);
  }

  /** The slot holding region {@code index}, or null (it may be stale: check under the slot). */
  Slot slot(int index) {
    return slots.get(index);
  }

  /** Records that {@code slot} now holds region {@code index}, unless another slot got there first. */
  boolean publishSlot(int index, Slot slot) {
    if (slots.compareAndSet(index, null, slot)) {
      slotsHeld.incrementAndGet();
      return true;
    }
    return false;
  }

  /** Forgets that {@code slot} holds region {@code index} (it was taken back); the cache may then forget the blob. */
  void forgetSlot(int index, Slot slot) {
    if (slots.compareAndSet(index, slot, null) && slotsHeld.decrementAndGet() == 0) {
      cache.forgetIfUnused(this);
    }
  }

  /** How many slots hold a region of this blob now. */
  int slotsHeld() {
    return slotsHeld.get();
  }

  /** Drops the chunk table (no directory reads the blob any more: cached regions are read without it). */
  void dropTable() {
    table.set(null);
  }

  // ---- reads ----

  /** {@link #window}'s result when the bytes were read straight from the store. */
  static final int DIRECT = 2;

  /**
   * Points {@code target} at readable bytes that include position {@code p} of region {@code index}: from the
   * cache (fetching what is missing), or straight from the store when the region is not admitted or the cache
   * file cannot be written.
   *
   * @param crossRegions whether a fill that the region's end cuts short of {@code fillSize} goes on into the next
   *     region, fetched beside it (see {@link #carryOn})
   * @return {@link Slot#HIT}, {@link Slot#MISS} or {@link #DIRECT}
   */
  int window(int index, long p, int fillSize, boolean crossRegions, BlobFile file, WindowTarget target) throws IOException {
    Slot cached = slots.get(index);
    if (cached != null && cached.offerFilled(this, index, p, target)) {
      return Slot.HIT;
    }
    for (;;) {
      Slot slot = cache.slotFor(this, index, true);
      if (slot == null) {
        if (HitPrefetchingCollector.prefetching()) {
          throw HitPrefetchingCollector.NOT_CACHED; // not admitted: what a prefetch read here would be thrown away
        }
        readDirect(index, p, fillSize, file, target);
        return DIRECT;
      }
      int result;
      try {
        long rel = p - regionStart(index);
        result = slot.awaitPage(this, index, rel, fillSize, crossRegions, file, target);
        if (result == Slot.CUT_AT_REGION_END) {
          // the reader's fill stops at the region's end: what it wants past it is fetched beside it, from the next
          // region, so that reading on across the boundary does not cost another round trip
          // (not for a collector's threads reading its hits' values: they read points, not runs)
          long regionEnd = regionStart(index) + regionLength(index);
          List<HeldFill> held = HitPrefetchingCollector.prefetching() ? List.of()
              : carryOn(regionEnd, Math.min(length, p + fillSize), file);
          boolean gaveUp = false; // unless it stops waiting (deadline or interrupt), as in Slot.awaitPage
          try {
            result = slot.awaitPage(this, index, rel, fillSize, false, file, target);
          } catch (dev.permafrost.blob.BlobStoreTimeoutException | java.io.InterruptedIOException e) {
            gaveUp = true;
            throw e;
          } finally {
            for (HeldFill h : held) {
              h.slot().letGo(this, h.fill(), gaveUp);
            }
          }
          if (result == Slot.HIT) {
            result = Slot.MISS; // this reader started the fetch; it was done before the reader came back to wait
          }
        }
      } catch (CacheWriteFailedException e) {
        readDirect(index, p, fillSize, file, target);
        return DIRECT;
      }
      if (result != Slot.STALE) {
        return result;
      }
      forgetSlot(index, slot);
    }
  }

  /** Reads at least the page holding {@code p} (and up to {@code fillSize} bytes) straight from the store, verified. */
  private void readDirect(int index, long p, int fillSize, BlobFile file, WindowTarget target) throws IOException {
    long regionStart = regionStart(index);
    long regionEnd = regionStart + regionLength(index);
    long start = Math.max(regionStart, p - p % SharedRegionCache.PAGE_SIZE);
    long end = Math.min(regionEnd, Math.max(start + fillSize, p + 1));
    long from = fetchStart(start);
    long to = fetchEnd(end);
    byte[] bytes = cache.filler().fetchDirect(this, file, from, to,
        ReadDeadline.forWait(System.nanoTime(), cache.maxReadWaitNanos()));
    target.setHeapWindow(from, to, new HeapWindow(bytes));
  }

  /**
   * Starts fetching, without waiting, what is missing of [start, end) into the cache, and returns the stretch of it
   * that the cache did not admit, from the first refused region to the end of the last (a scan may read it straight
   * from the store), or null if every region was admitted.
   */
  long[] prefetch(long start, long end, BlobFile file) {
    long refusedFrom = -1;
    long refusedTo = -1;
    for (long p = start; p < end; ) {
      int index = regionIndex(p);
      long regionStart = regionStart(index);
      long regionEnd = regionStart + regionLength(index);
      Slot slot = cache.slotFor(this, index, false);
      if (slot != null) {
        slot.prefetch(this, index, p - regionStart, Math.min(end, regionEnd) - regionStart, file);
      } else {
        refusedFrom = refusedFrom < 0 ? p : refusedFrom;
        refusedTo = Math.min(end, regionEnd);
      }
      p = regionEnd;
    }
    return refusedFrom < 0 ? null : new long[] {refusedFrom, refusedTo};
  }

  /** A fill started to carry on a reader's, held for it until it lets go. */
  private record HeldFill(Slot slot, Fill fill) {}

  /**
   * Starts fetching the missing pages of [start, end), the rest of a reader's fill that its region's end cut short,
   * on the prefetch lane but admitted and valued as a reader's fetch; returns them, held for the reader. A region the
   * cache does not admit is skipped: the reader reads it straight from the store if it gets there.
   */
  private List<HeldFill> carryOn(long start, long end, BlobFile file) {
    List<HeldFill> held = new ArrayList<>(2);
    List<Fill> fills = new ArrayList<>(2);
    for (long p = start; p < end; ) {
      int index = regionIndex(p);
      long regionStart = regionStart(index);
      long regionEnd = regionStart + regionLength(index);
      Slot slot = cache.slotFor(this, index, true);
      if (slot != null) {
        slot.carryOn(this, index, p - regionStart, Math.min(end, regionEnd) - regionStart, file, fills);
        for (Fill f : fills) {
          held.add(new HeldFill(slot, f));
        }
        fills.clear();
      }
      p = regionEnd;
    }
    return held;
  }

  // ---- verification ----

  /** Whether every range is verified against a chunk table. */
  boolean hasTable() {
    return tableBlob != null;
  }

  /** Whether every fetch is of the whole blob, checked against its Lucene checksum (a blob of at most one chunk). */
  boolean fetchedWhole() {
    return tableBlob == null && chunkSize > 0;
  }

  /**
   * The unit fills of a region in a slot of {@code slotSize} bytes are aligned to, so that each fetch can be
   * verified: a chunk (or the region, if smaller), the region for a blob always fetched whole, or a page for a
   * blob without checksums.
   */
  int fillUnit(int slotSize) {
    if (hasTable()) {
      return Math.min(chunkSize, slotSize);
    }
    return fetchedWhole() ? slotSize : SharedRegionCache.PAGE_SIZE;
  }

  /** The first byte to fetch so that [start, ...) can be verified. */
  long fetchStart(long start) {
    if (hasTable()) {
      return start - start % chunkSize;
    }
    return fetchedWhole() ? 0 : start;
  }

  /** The end of the fetch that verifies [..., end). */
  long fetchEnd(long end) {
    if (hasTable()) {
      return Math.min(length, (end + chunkSize - 1) / chunkSize * chunkSize);
    }
    return fetchedWhole() ? length : end;
  }

  /**
   * The chunk table, loading it (on the filler's table threads, so that it travels in parallel with the fill
   * that asked) the first time. Only for a blob that {@link #hasTable()}.
   */
  CompletableFuture<ChunkTable> table(BlobFile file, ReadCost cost) {
    assert hasTable();
    CompletableFuture<ChunkTable> t = table.get();
    if (t != null) {
      return t;
    }
    CompletableFuture<ChunkTable> mine = new CompletableFuture<>();
    if (!table.compareAndSet(null, mine)) {
      return table.get();
    }
    cache.filler().loadTable(this, file, mine, cost);
    mine.whenComplete((loaded, error) -> {
      if (error != null) {
        table.compareAndSet(mine, null); // the next fill asks again
      }
    });
    return mine;
  }

  /** The table if it is loaded already, else null. */
  ChunkTable loadedTable() {
    CompletableFuture<ChunkTable> t = table.get();
    return t != null && t.isDone() && !t.isCompletedExceptionally() ? t.join() : null;
  }

  /** Frees every slot that holds a region of this blob and is not being filled. */
  void evictAll() {
    for (int i = 0; i < slots.length(); i++) {
      Slot s = slots.get(i);
      if (s != null) {
        s.freeIfIdle(this);
      }
    }
  }

  @Override
  public String toString() {
    return "CachedBlob(" + blobName + ", " + length + " bytes)";
  }
}
