/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.snapshot.FileEntry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The cache's view of one blob: how it is cut into regions, which slot holds each region, and how a read of it is
 * served (from a slot, fetching what is missing; or directly from the store when the cache does not admit a region).
 * Shared by every mounted index that uses the blob (blobs are content-addressed). Closing the last directory that
 * reads it does not evict its regions: they stay until evicted (or cleared), and the cache forgets the blob once no
 * one reads it and no slot holds any of it (the cache's blob table hears of it through {@code noRegionsLeft}).
 *
 * <p>A blob is cut into full regions of the full slot size, and its tail (what is left after the last full
 * region, which for a small blob is all of it) into regions of the tail region size. Each region takes a slot of
 * its size but the last, which takes the smallest power of two that holds it (no smaller than the pool's smallest
 * slot): a small file or a tail holds no more than twice its bytes. What verifies its bytes, and aligns its fills,
 * is its {@link BlobChecksums}.
 */
final class CachedBlob implements RegionOwner {
  /** Positions [from, to) of a blob. */
  record Stretch(long from, long to) {}

  /** Where {@link #window} found the bytes. */
  enum Served {
    /** In the cache. */
    CACHED,
    /** Fetched into the cache while the reader waited. */
    FETCHED,
    /** Read directly from the store: the region was not admitted, or the cache file could not be written. */
    DIRECT,
    /** Not read: the region is not admitted and the reader asked not to read around the cache. */
    REFUSED
  }


  final long id;
  final String key;
  final BlobChecksums checksums;
  final String blobName;
  final long length;
  private final SlotPool pool;
  private final CacheSpace cacheSpace;
  /** Told when no slot holds a region of this blob any more: the table of blobs forgets it if no directory reads it. */
  private final Consumer<CachedBlob> noRegionsLeft;
  private final int fullSize;
  private final int tailSize;
  private final int minSlotSize;
  private final int fullShift;
  private final int tailShift;
  private final int fullCount;
  private final long tailStart;
  /** The slot holding each region, or null. A stale entry (whose slot moved on) is cleared by whoever sees it. */
  private final Slot[] slots;
  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Slot[].class);
  /** How many directories use this blob. Guarded by the cache's blob table. */
  int refs;
  /**
   * Whether the cache's blob table lists this blob (shared by every directory that reads this version of it), or it
   * is a version read beside the listed one, private to the directory that acquired it ({@link BlobTable#acquire}).
   */
  final boolean listed;
  /** How many slots hold a region of this blob. */
  private final AtomicInteger slotsHeld = new AtomicInteger();
  /**
   * The direct reads of this blob ({@link DirectRead}) that some input may still hold: an input moving into bytes one
   * of them holds (or is bringing) reads them from it rather than fetching them again. Weak: a read no input refers
   * to is gone. Copy on write, under this blob's monitor.
   */
  private volatile List<WeakReference<DirectRead>> openDirectReads = List.of();

  /**
   * @param tailSize the size of the regions a blob's tail is cut into: a power of two, at most {@code pool.maxSize}
   */
  CachedBlob(long id, String key, BlobChecksums checksums, SlotPool pool, CacheSpace cacheSpace, int tailSize,
      boolean listed, Consumer<CachedBlob> noRegionsLeft) {
    this.id = id;
    this.listed = listed;
    this.key = key;
    this.checksums = checksums;
    this.blobName = checksums.blobName;
    this.length = checksums.length;
    this.pool = pool;
    this.cacheSpace = cacheSpace;
    this.noRegionsLeft = noRegionsLeft;
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
    this.slots = new Slot[fullCount + tailCount];
  }

  // ---- regions ----

  int regionCount() {
    return slots.length;
  }

  int regionIndex(long position) {
    assert position >= 0 && position < length : position + " of " + length;
    return position < tailStart ? (int) (position >>> fullShift) : fullCount + (int) ((position - tailStart) >>> tailShift);
  }

  @Override
  public long regionStart(int index) {
    return index < fullCount ? (long) index << fullShift : tailStart + ((long) (index - fullCount) << tailShift);
  }

  @Override
  public int regionLength(int index) {
    return index < fullCount ? fullSize : (int) Math.min(tailSize, length - regionStart(index));
  }

  /** The size of the slot region {@code index} takes: its region size, or for a shorter last region the smallest that holds it. */
  @Override
  public int slotSize(int index) {
    int regionLength = regionLength(index);
    if (index < fullCount || regionLength == tailSize) {
      return regionLength;
    }
    return Math.max(minSlotSize, Integer.highestOneBit(regionLength - 1) << 1);
  }

  @Override
  public long regionKey(int index) {
    return FrequencySketch.key(id, index);
  }

  @Override
  public BlobChecksums checksums() {
    return checksums;
  }

  /** Whether this blob is the version {@code file} names: its length and checksum. */
  boolean isVersionOf(FileEntry file) {
    return length == file.length() && checksums.checksum == file.checksum();
  }

  /** Counts a use of region {@code index}, for eviction. */
  void recordAccess(int index) {
    pool.recordAccess(regionKey(index));
  }

  // ---- which slot holds which region ----

  /** The slot holding region {@code index}, or null (it may be stale: check under the slot). */
  Slot slot(int index) {
    return (Slot) SLOTS.getVolatile(slots, index);
  }

  /**
   * {@link #slot}, read without ordering, for the hit path: what it finds is only used once the slot's own volatile
   * fields say it holds the region ({@link Slot#offerFilled}), and a stale null or slot sends the reader the slow way.
   * A plain array read, where {@code AtomicReferenceArray.get} is a VarHandle's chain of calls that the JIT, deep in
   * Lucene's calls, may not inline to the end (seen: 1 fork in 4 of the warm needle 1.3x slower).
   */
  private Slot slotPlain(int index) {
    return slots[index];
  }

  /** Records that {@code slot} now holds region {@code index}, unless another slot got there first. */
  boolean publishSlot(int index, Slot slot) {
    if (SLOTS.compareAndSet(slots, index, null, slot)) {
      slotsHeld.incrementAndGet();
      return true;
    }
    return false;
  }

  /** Forgets the slot recorded for region {@code index} if it no longer holds it; the cache may then forget the blob. */
  @Override
  public void regionReleased(int index) {
    Slot s = (Slot) SLOTS.getVolatile(slots, index);
    if (s != null && !s.holds(this, index) && SLOTS.compareAndSet(slots, index, s, null)
        && slotsHeld.decrementAndGet() == 0) {
      noRegionsLeft.accept(this);
    }
  }

  /** How many slots hold a region of this blob now. */
  int slotsHeld() {
    return slotsHeld.get();
  }

  /**
   * The slot holding region {@code index}, assigning one if the region is admitted, or null if it is not (read it
   * directly). {@code reader}: a reader waits for it (false: a prefetch). The caller checks, under the slot's
   * monitor, that it still holds the region.
   */
  Slot slotFor(int index, boolean reader) {
    return slotFor(index, reader, false);
  }

  /** As {@link #slotFor(int, boolean)}; {@code carried}: the region carries on a reader's fill ({@link SlotPool#takeCarried}). */
  private Slot slotFor(int index, boolean reader, boolean carried) {
    for (;;) {
      Slot s = (Slot) SLOTS.getVolatile(slots, index);
      if (s != null) {
        return s;
      }
      cacheSpace.ensureOpen();
      Slot slot = carried ? pool.takeCarried(this, index) : pool.take(this, index, reader);
      if (slot == null) {
        return null;
      }
      slot.assign(this, index);
      if (publishSlot(index, slot)) {
        return slot;
      }
      pool.free(slot, this); // another reader got there first
    }
  }

  /** Frees every slot that holds a region of this blob and is not being filled. */
  void evictAll() {
    for (int i = 0; i < slots.length; i++) {
      Slot s = (Slot) SLOTS.getVolatile(slots, i);
      if (s != null) {
        pool.free(s, this);
      }
    }
  }

  // ---- reads ----

  /** Notes a direct read of this blob, for other inputs that move into its bytes ({@link #directReadHolding}). */
  private synchronized void addDirectRead(DirectRead read) {
    List<WeakReference<DirectRead>> live = new ArrayList<>(openDirectReads.size() + 1);
    for (WeakReference<DirectRead> ref : openDirectReads) {
      if (ref.get() != null) {
        live.add(ref);
      }
    }
    live.add(new WeakReference<>(read));
    openDirectReads = List.copyOf(live);
  }

  /**
   * Starts reading [{@code from}, {@code to}) of this blob directly from the store for {@code origin}, or returns
   * null if {@code budget} has no room (or the cache is closed): the scan then reads those regions as it goes.
   * {@code absorbed}: fills held in this thread's {@link PrefetchBatch} amid or beside the stretch
   * ({@link ReadIntent#startWanted}), withdrawn from the batch and their slots once the budget has room (left to be
   * fetched otherwise); their pages are filled from the read's bytes as they come, whether a reader reads them or not.
   */
  DirectRead startDirectRead(DirectReadBudget budget, FetchOrigin origin, long from, long to,
      List<Filler.Piece> absorbed) {
    long start = checksums.fetchStart(from);
    long end = checksums.fetchEnd(to);
    long bytes = end - start;
    if (!budget.take(bytes)) {
      return null;
    }
    PrefetchBatch.remove(absorbed);
    for (Filler.Piece p : absorbed) {
      if (p.slot() instanceof Slot slot) {
        slot.withdraw(p.fill());
      }
    }
    List<Filler.Piece> pieces = List.copyOf(absorbed);
    // filled as the bytes come, read or not, and before a reader or a prefetch can see the read done
    Filler.DirectTask task = cacheSpace.filler.startDirect(checksums, origin, start, end,
        pieces.isEmpty() ? null : b -> offerAbsorbed(pieces, b, start));
    if (task == null) {
      budget.giveBack(bytes);
      return null;
    }
    DirectRead read = new DirectRead(task, budget, bytes);
    addDirectRead(read);
    return read;
  }

  /**
   * Offers the pages of {@code pieces}, fills a direct read took in (withdrawn), to their slots from {@code bytes},
   * the read's (verified), which begin at {@code from}: filled without a fetch, unless a reader fetched them since.
   */
  private void offerAbsorbed(List<Filler.Piece> pieces, byte[] bytes, long from) {
    for (Filler.Piece p : pieces) {
      int index = regionIndex(p.regionStart());
      if (p.slot() instanceof Slot slot && (Slot) SLOTS.getVolatile(slots, index) == slot) {
        slot.offer(this, index, bytes, Math.toIntExact(p.start() - from), p.fill().start, p.fill().end);
      }
    }
  }

  /**
   * The bytes of {@code read}, waiting for them until the reader's deadline; null if the read was called off (every
   * reader gave up once): the caller reads as if there were no direct read.
   */
  HeapWindow awaitDirectRead(DirectRead read) throws IOException {
    HeapWindow w = read.window;
    if (w == null) {
      byte[] bytes;
      try {
        bytes = awaitDirect(read.task);
      } catch (FetchTask.Cancelled e) {
        return null;
      }
      w = new HeapWindow(bytes);
      synchronized (read) {
        if (read.window != null) {
          return read.window;
        }
        read.window = w;
      }
    }
    return w;
  }

  /** Whether a direct read of this blob may still be held by an input (a hint: the list is checked on moves only). */
  boolean hasDirectReads() {
    return !openDirectReads.isEmpty();
  }

  /** A direct read of this blob that holds position {@code p} and has not failed, or null. */
  DirectRead directReadHolding(long p) {
    for (WeakReference<DirectRead> ref : openDirectReads) {
      DirectRead read = ref.get();
      if (read != null && read.holds(p) && !read.failed()) {
        return read;
      }
    }
    return null;
  }

  /** A direct read of this blob that holds position {@code p} and whose bytes are on their way, or null. */
  private DirectRead directReadBringing(long p) {
    for (WeakReference<DirectRead> ref : openDirectReads) {
      DirectRead read = ref.get();
      if (read != null && read.holds(p) && read.coming()) {
        return read;
      }
    }
    return null;
  }

  /**
   * If the page holding position {@code p} of region {@code index} is cached, points {@code target} at the run of
   * cached pages around it and returns true; never fetches nor waits, and takes no lock.
   */
  boolean offerCached(int index, long p, WindowTarget target) {
    Slot slot = slotPlain(index);
    return slot != null && slot.offerFilled(this, index, p, target);
  }

  /**
   * Whether position {@code p} of region {@code index} is in the cache from the record of the last clean close, not
   * yet verified: not a miss, though {@link #offerCached} does not serve it (its first read verifies it).
   */
  boolean restoredAt(int index, long p) {
    Slot slot = slotPlain(index);
    return slot != null && slot.restoredAt(this, index, p);
  }

  /**
   * Whether region {@code index} was fetched ahead of its reader (the rest of a fill its region's end cut short) and
   * no reader has moved into it since; a reader moving into it now clears it, and counts its move as a use.
   */
  boolean takeFetchedAhead(int index) {
    Slot slot = slotPlain(index);
    if (slot != null && slot.fetchedAhead) {
      slot.fetchedAhead = false;
      return true;
    }
    return false;
  }

  /**
   * Points {@code target} at readable bytes that include position {@code p} of region {@code index}: from the
   * cache (fetching what is missing), or directly from the store when the region is not admitted or the cache
   * file cannot be written.
   *
   * @param crossRegions whether a fill that the region's end cuts short of {@code fillSize} goes on into the next
   *     region, fetched beside it (see {@link #carryOn})
   * @param readAround whether a region the cache does not admit is read directly from the store (false: return
   *     {@link Served#REFUSED})
   */
  Served window(int index, long p, int fillSize, boolean crossRegions, boolean readAround, FetchOrigin origin,
      WindowTarget target) throws IOException {
    Slot cached = slotPlain(index);
    if (cached != null && cached.offerFilled(this, index, p, target)) {
      return Served.CACHED;
    }
    PrefetchBatch.queueHeld(); // this thread may wait now: not for a fetch it holds back
    for (;;) {
      Slot slot = slotFor(index, true);
      if (slot == null) {
        if (!readAround) {
          return Served.REFUSED;
        }
        readDirect(index, p, fillSize, crossRegions, origin, target);
        return Served.DIRECT;
      }
      Slot.PageResult result;
      try {
        long rel = p - regionStart(index);
        List<Filler.Piece> cut = crossRegions ? new ArrayList<>(2) : null;
        result = slot.awaitPage(this, index, rel, fillSize, cut, origin, target);
        if (result == Slot.PageResult.CUT_AT_REGION_END) {
          // the reader's fill stops at the region's end: what it wants past it is fetched with it, in one request,
          // from the next region, so that reading on across the boundary costs neither a round trip nor a request
          long regionEnd = regionStart(index) + regionLength(index);
          List<HeldFill> held;
          try {
            held = carryOn(regionEnd, Math.min(length, p + fillSize), origin, cut);
          } finally {
            cacheSpace.filler.start(cut, checksums, origin); // the reader's fill and the next regions' pieces
          }
          boolean gaveUp = false; // unless it stops waiting (deadline or interrupt), as in Slot.awaitPage
          try {
            result = slot.awaitPage(this, index, rel, fillSize, null, origin, target);
          } catch (BlobStoreTimeoutException | InterruptedIOException e) {
            gaveUp = true;
            throw e;
          } finally {
            for (HeldFill h : held) {
              h.slot().letGo(h.fill(), gaveUp);
            }
          }
          if (result == Slot.PageResult.CACHED) {
            result = Slot.PageResult.FETCHED; // this reader started the fetch, done before it came back to wait
          }
        }
      } catch (CacheWriteFailedException e) {
        readDirect(index, p, fillSize, crossRegions, origin, target);
        return Served.DIRECT;
      }
      switch (result) {
        case CACHED -> {
          return Served.CACHED;
        }
        case FETCHED -> {
          return Served.FETCHED;
        }
        case STALE -> { } // the slot moved on: look the region up again
        case CUT_AT_REGION_END -> throw new AssertionError("a second wait does not report a cut");
      }
      regionReleased(index);
    }
  }

  /**
   * Reads at least the page holding {@code p} (and up to {@code fillSize} bytes) directly from the store, verified;
   * with {@code crossRegions}, on past the region's end as a fill carries on, through the regions after it that no
   * slot holds (a scan the cache does not admit reads a growing stretch a request, not a region; a region the cache
   * holds, or is filling, is read from there). The whole regions after the first that the read brought are offered
   * to the cache, as if the reader had moved into them: what it admits is kept, without another fetch. Read for work
   * that settles ({@link ReadCost}), the bytes are kept as a {@link DirectRead} until it does, if the budget has room,
   * so that the other inputs of the blob that move into them (a postings reader's clones, its skip data's) read them
   * there rather than fetching them again, a round trip each.
   */
  private void readDirect(int index, long p, int fillSize, boolean crossRegions, FetchOrigin origin,
      WindowTarget target) throws IOException {
    long regionStart = regionStart(index);
    long start = Math.max(regionStart, p - p % CacheFile.PAGE_SIZE);
    long want = Math.min(length, Math.max(start + fillSize, p + 1));
    long limit = regionStart + regionLength(index);
    for (int next = index + 1; crossRegions && limit < want && (Slot) SLOTS.getVolatile(slots, next) == null; next++) {
      limit += regionLength(next);
    }
    long end = Math.min(limit, want);
    long from = checksums.fetchStart(start);
    long to = checksums.fetchEnd(end);
    DirectReadBudget budget = ReadCost.current() == null ? null : origin.directReadBudget();
    DirectRead kept = budget == null ? null : startDirectRead(budget, origin, from, to, List.of());
    HeapWindow window = kept == null ? null : awaitDirectRead(kept);
    byte[] bytes;
    if (window != null) {
      bytes = kept.task.result.join(); // in: the wait above returned it
    } else {
      bytes = cacheSpace.filler.fetchDirect(checksums, origin, from, to,
          ReadDeadline.forWait(System.nanoTime(), cacheSpace.maxReadWaitNanos));
      window = new HeapWindow(bytes);
    }
    target.setHeapWindow(from, to, window);
    for (int next = index + 1; next < regionCount() && regionStart(next) + regionLength(next) <= to; next++) {
      recordAccess(next);
      Slot slot = slotFor(next, true);
      if (slot != null) {
        slot.offer(this, next, bytes, Math.toIntExact(regionStart(next) - from));
      }
    }
  }

  /** Waits for a direct read's bytes until the reader's deadline; see {@link Filler#awaitDirect}. */
  byte[] awaitDirect(Filler.DirectTask task) throws IOException {
    PrefetchBatch.queueHeld(); // queued before this thread waits, as they would be without a batch
    return cacheSpace.filler.awaitDirect(task, ReadDeadline.forWait(System.nanoTime(), cacheSpace.maxReadWaitNanos));
  }

  /**
   * Registers fills, added to {@code batch} (which the caller hands to {@link #startFills}), for what is missing of
   * [start, end) in the regions the cache admits, and returns the stretch of it that the cache did not admit, from the
   * first refused region to the end of the last (a scan may read it directly from the store), or null if every
   * region was admitted. {@code hold}: the regions are held for a reader ({@link Slot#prefetch}); {@code nextRead}:
   * they are what the reader reads next, admitted and kept at a reader's fetch's worth; without {@code admit}, no
   * region is given a slot: those the cache holds are fetched and held, the others refused. What a direct read
   * of this blob is bringing is skipped: every input of the blob reads it from there ({@link #directReadHolding}),
   * the regions it took in are filled from it, and a fill would fetch it twice (Lucene's {@code prefetch(fp, 1)} as
   * the collector opens the column a moment after {@code ColumnPrefetch} asked for it). A read whose bytes are in is
   * not: held by no input, it may be gone when the reader comes.
   */
  Stretch prefetch(long start, long end, FetchOrigin origin, List<Filler.Piece> batch, boolean hold,
      boolean nextRead, boolean admit) {
    long refusedFrom = -1;
    long refusedTo = -1;
    for (long p = start; p < end; ) {
      DirectRead coming = hasDirectReads() ? directReadBringing(p) : null;
      if (coming != null) {
        p = Math.min(end, coming.end);
        continue;
      }
      int index = regionIndex(p);
      long regionStart = regionStart(index);
      long regionEnd = regionStart + regionLength(index);
      Slot slot = admit ? slotFor(index, nextRead) : (Slot) SLOTS.getVolatile(slots, index);
      if (slot != null) {
        slot.prefetch(this, index, p - regionStart, Math.min(end, regionEnd) - regionStart, origin, batch, hold,
            nextRead);
      } else {
        refusedFrom = refusedFrom < 0 ? p : refusedFrom;
        refusedTo = Math.min(end, regionEnd);
      }
      p = regionEnd;
    }
    return refusedFrom < 0 ? null : new Stretch(refusedFrom, refusedTo);
  }

  /**
   * Whether [{@code start}, {@code end}), within one region, is cached and that region held for its reader already
   * ({@link Slot#filledAndHeld}): a prefetch of it has nothing to do.
   */
  boolean filledAndHeld(long start, long end) {
    int index = regionIndex(start);
    long regionStart = regionStart(index);
    if (end - regionStart > regionLength(index)) {
      return false; // it runs into the next region: the usual way
    }
    Slot slot = slotPlain(index);
    return slot != null && slot.filledAndHeld(this, index, start - regionStart, end - regionStart, System.nanoTime());
  }

  /**
   * Starts the fills of {@code batch} (registered by {@link #prefetch}): one request for each run of adjacent or
   * nearly adjacent ones (see {@link Filler#start(List, BlobChecksums, FetchOrigin)}); held until it closes if this
   * thread has a {@link PrefetchBatch} open.
   */
  void startFills(List<Filler.Piece> batch, FetchOrigin origin) {
    if (!PrefetchBatch.hold(cacheSpace.filler, checksums, origin, batch)) {
      cacheSpace.filler.start(batch, checksums, origin);
    }
  }

  /**
   * The bytes that one read of [{@code from}, {@code to}) widened to take in [{@code a}, {@code b}) reads for neither,
   * both aligned for verification; 0 or less if they overlap or meet.
   */
  long gapBetween(long from, long to, long a, long b) {
    return Math.max(checksums.fetchStart(a) - checksums.fetchEnd(to), checksums.fetchStart(from) - checksums.fetchEnd(b));
  }

  /**
   * The most bytes a direct read reads across to take in a column or an admitted fill beside it
   * ({@link ReadIntent#startWanted}): a region, and no more than {@code bridged} (what the store sends in a first-byte
   * latency, {@link dev.permafrost.blob.StorePolicy#bridgedGapBytes()}). Not the whole bridged length, as fills are
   * joined by: a direct read is on the search's path, and a megabyte of gap made a small cache's dashboard repeat
   * slower by a fifth.
   */
  long directGapBytes(long bridged) {
    return Math.min(bridged, fullSize);
  }

  /** A fill started to carry on a reader's, held for it until it lets go. */
  private record HeldFill(Slot slot, Fill fill) {}

  /**
   * Registers fills, added to {@code batch} for the caller to queue (with the reader's own fill: adjacent pieces are
   * one request), for the missing pages of [start, end), the rest of a reader's fill that its region's end cut short;
   * admitted and valued as a reader's fetch; returns them, held for the reader. A region the cache does not admit is
   * skipped: the reader reads it directly from the store if it gets there.
   */
  private List<HeldFill> carryOn(long start, long end, FetchOrigin origin, List<Filler.Piece> batch) {
    List<HeldFill> held = new ArrayList<>(2);
    List<Fill> fills = new ArrayList<>(2);
    for (long p = start; p < end; ) {
      int index = regionIndex(p);
      long regionStart = regionStart(index);
      long regionEnd = regionStart + regionLength(index);
      Slot slot = slotFor(index, true, true);
      if (slot != null) {
        slot.carryOn(this, index, p - regionStart, Math.min(end, regionEnd) - regionStart, origin, fills, batch);
        for (Fill f : fills) {
          held.add(new HeldFill(slot, f));
        }
        fills.clear();
      }
      p = regionEnd;
    }
    return held;
  }

  /**
   * Puts {@code bytes}, the whole blob in hand (already verified: a manifest just read), into the regions the cache
   * admits, without a fetch; each counts as a use.
   */
  void offerWhole(byte[] bytes) {
    assert bytes.length == length;
    for (int index = 0; index < regionCount(); index++) {
      recordAccess(index);
      Slot slot = slotFor(index, true);
      if (slot != null) {
        slot.offer(this, index, bytes, Math.toIntExact(regionStart(index)));
      }
    }
  }

  /** The size of the cache this blob's regions are kept in. */
  long cacheSize() {
    return cacheSpace.cacheFile.size();
  }

  @Override
  public String toString() {
    return "CachedBlob(" + blobName + ", " + length + " bytes)";
  }
}
