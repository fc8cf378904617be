/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.Durations;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One slot of the cache file: {@code size} bytes at {@code cacheOffset}, lent to one region of one blob (its
 * {@link RegionOwner}) at a time, with the pages of that region that are filled (verified bytes written) and the fills
 * under way, and the CRC32C of each filled unit (a chunk, or less for a small region) so that a clean close can write
 * them down.
 *
 * <p>The slot owns its life and its protocol: every change of hands goes through it, and it is the only code that
 * waits or notifies. Readers call {@link #offerFilled} (lock-free), {@link #awaitPage}, {@link #prefetch},
 * {@link #carryOn} and {@link #letGo}; the {@link Filler} calls {@link #progress} and {@link #finish} (as a
 * {@link Fillable}); the pool and the cache call {@link #assign}, {@link #restore} and {@link #tryTake}. Its states
 * (free, handed out, owned, filling) and what moves it between them are in the package description.
 *
 * <p>A region restored at start (from the record of the last clean close) has its recorded units marked restored,
 * not filled: the first read of each verifies it against its recorded CRC32C, under the monitor, and a mismatch
 * drops every unverified unit of the region, which is then fetched again like any missing range.
 */
final class Slot extends SlotGeneration implements Fillable {
  /*
   * Concurrency
   * -----------
   * A slot is lent to one (blob, region) at a time. Ownership changes only under the slot's monitor, bracketed by
   * two generation bumps (odd while changing). Lock-free readers snapshot an even generation, read bytes through
   * the mapping, fence, and re-check it: equal means the bytes were the owner's (seqlock style). Everything else
   * (bitmap, fills, fileStart, length) is written under the monitor; fileStart and length change only with the
   * generation, so a reader that re-checks the generation may read them without the monitor.
   *
   * A slot with a fill registered is never taken from its owner: the fill's thread writes into it without the
   * monitor, and only pages a fill has verified and written are marked filled, so no reader ever sees bytes of
   * a fill that failed or is half done. A reader waits at most until its own deadline, set when it begins to wait
   * (the cache's maxReadWait, or the thread's ReadDeadline if sooner), and at most 200 ms between checks that the
   * cache is still open. A fill counts its waiters; when the last one gives up (deadline or interrupt), the fill is
   * called off (FetchTask), and a reader that finds a fill called off starts one of its own. The fills that carry
   * on a reader's fill into the next region (carryOn) count that reader as a waiter until it has its own page, and
   * are called off with it if it gives up.
   *
   * Lock order: a blob's slot table is lock-free (CAS) and never waits for a slot; a slot's monitor may submit to
   * the Filler's queue, but never takes another slot's monitor nor the pool's (the pool's monitor may take a slot's:
   * see SlotPool); the owner is told of a release (RegionOwner.regionReleased) after the monitor is let go.
   *
   * The slot's size and place are fixed for its whole life; splitting or merging space retires the Slot object (see
   * SlotPool), so size and cacheOffset are final.
   */

  /** What {@link #awaitPage} found. */
  enum PageResult {
    /** The page was there. */
    CACHED,
    /** The reader waited for a fill (its own or one it joined). */
    FETCHED,
    /** The slot no longer holds the region: look it up again. */
    STALE,
    /**
     * It started a fill that its region's end cut short of what the reader wants, without waiting for it: the caller
     * fetches the rest from the next region beside it, then waits.
     */
    CUT_AT_REGION_END
  }

  private static final long MAX_WAIT_NANOS = 200_000_000L;
  /**
   * How long a region that a prefetch outside any work announced stays held after its first reader moves into it: a
   * reader that moved into a whole region reads it through one window, without moving again, and must not see it
   * evicted while it reads. (A region work announced stays held until the work settles, not for a time.)
   */
  static final long READ_GRACE_NANOS = 1_000_000_000L;
  private static final VarHandle FILLED = MethodHandles.arrayElementVarHandle(long[].class);

  /** The cache file this slot is part of (null in tests of the pool alone). */
  final CacheSpace cacheSpace;
  final long cacheOffset;
  final int size;
  final int pageSize;
  private final int pageShift;

  /** Whether every page of the region is filled: such a region can be read without the monitor. */
  volatile boolean complete;
  /** The blob whose region this slot holds, or null when free. Written under the monitor. */
  volatile RegionOwner owner;
  /** The region's index in its blob. Written under the monitor; read racily only to choose eviction victims. */
  volatile int index = -1;
  /** The file offset of the region's first byte. Written under the monitor, with the generation. */
  long fileStart;
  /** How many bytes of the slot the region uses (less than {@link #size} at the end of a file). As above. */
  int length;
  /**
   * Whether a reader started a fetch of this region and waited for it (a dependent round trip), rather than only
   * prefetches: what the {@link EvictionPolicy} weighs. Written under the monitor, read racily by the pool.
   */
  volatile boolean readerFetched;
  /**
   * Whether the region was fetched ahead of a reader, as the rest of a fill its end cut short, and no reader has moved
   * into it since: that reader's move counts as a use of the region, as its move into a missing region would have
   * (moves into cached regions are only sampled). Set under the monitor; cleared racily by the first reader.
   */
  volatile boolean fetchedAhead;
  /**
   * Until when (nanoTime) the region is held against eviction, at the latest: announced by a prefetch (for up to the
   * cache's maxReadWait from the prefetch, the bound on a hold whose work never settles or whose reader never comes);
   * 0 when its last work hold is released, or {@link #READ_GRACE_NANOS} after a reader moved into a region a
   * prefetch outside any work announced. 0: not held. See {@link #isHeld}.
   */
  private volatile long heldUntil;
  /**
   * Whether a prefetch outside any piece of work ({@link ReadCost}) announced the region and no reader has moved into
   * it yet.
   */
  private volatile boolean unread;
  /**
   * How many holds of work that announced the region ({@link ReadCost#releaseWhenSettled}) are not released yet: the
   * region stays held until its work settles, however often its readers move in and out. Written under the monitor.
   */
  private volatile int workHolds;
  /**
   * The {@link ReadCost#id} of the work that last took a hold on the region (its repeated announcements take no
   * lock), or 0: an id, so that the cache never keeps a work (and what it holds) reachable. As above.
   */
  private volatile long heldBy;
  /** Whether the slot is in its pool's free lists. Guarded by the pool's monitor, not this one. */
  boolean free;
  /** Guarded by this. */
  private final long[] filled;
  /** Pages restored from the record of the last clean close and not verified yet, or null. Guarded by this. */
  private long[] restored;
  /** The unit of verification of the region's fills: its pages are filled a whole unit at a time. As fileStart. */
  private int unit;
  /** The CRC32C of each filled (or restored) unit of the region, by unit. Guarded by this. */
  private int[] unitCrcs;
  /** Guarded by this. */
  private final List<Fill> fills = new ArrayList<>(2);

  Slot(CacheSpace cacheSpace, long cacheOffset, int size, int pageSize) {
    assert Integer.bitCount(pageSize) == 1 && size % pageSize == 0;
    this.cacheSpace = cacheSpace;
    this.cacheOffset = cacheOffset;
    this.size = size;
    this.pageSize = pageSize;
    this.pageShift = Integer.numberOfTrailingZeros(pageSize);
    this.filled = new long[Math.max(1, ((size >> pageShift) + 63) >>> 6)];
  }

  // ---- ownership ----

  /** Gives this free slot, which the caller has to itself, to region {@code index} of {@code blob}. */
  synchronized void assign(RegionOwner blob, int index) {
    assert owner == null && fills.isEmpty();
    generation++;
    complete = false;
    fileStart = blob.regionStart(index);
    length = blob.regionLength(index);
    assert length > 0 && length <= size;
    unit = blob.checksums().fillUnit(size);
    assert Integer.bitCount(unit) == 1 && unit >= pageSize : unit;
    unitCrcs = new int[(int) ((length + (long) unit - 1) / unit)];
    restored = null;
    readerFetched = false;
    fetchedAhead = false;
    unread = false;
    workHolds = 0;
    heldBy = 0;
    heldUntil = 0;
    this.index = index;
    this.owner = blob;
    Arrays.fill(filled, 0L);
    generation++;
    assert (generation & 1) == 0;
  }

  /**
   * Takes the slot from its owner if no fill is writing into it (and, if {@code expected} is not null, only from
   * that owner). On success the caller has the free slot to itself: it assigns it or gives it back to the pool.
   */
  boolean tryTake(RegionOwner expected) {
    RegionOwner old;
    int oldIndex;
    synchronized (this) {
      old = owner;
      oldIndex = index;
      if (old == null || (expected != null && old != expected) || !fills.isEmpty()) {
        return false;
      }
      generation++;
      complete = false;
      owner = null;
      index = -1;
      fetchedAhead = false;
      unread = false;
      workHolds = 0;
      heldBy = 0;
      heldUntil = 0;
      Arrays.fill(filled, 0L);
      restored = null;
      unitCrcs = null;
      generation++;
      assert (generation & 1) == 0;
    }
    old.regionReleased(oldIndex);
    return true;
  }

  /** Whether the slot holds region {@code index} of {@code blob} right now (racy: a lock-free check). */
  boolean holds(RegionOwner blob, int index) {
    return owner == blob && this.index == index;
  }

  /** Whether a fill is writing into the slot (it cannot be taken). */
  synchronized boolean isFilling() {
    return !fills.isEmpty();
  }

  // ---- the record of a clean close ----

  /**
   * Gives this slot, which the caller has to itself, to region {@code index} of {@code blob} with the units set in
   * {@code units} (a bitmap) marked restored: their bytes are in the cache file, to be checked against {@code crcs}
   * (by unit) when first read. At start, before any reader.
   *
   * @return false, leaving the slot unassigned, if the record does not fit the region (another unit or length)
   */
  synchronized boolean restore(RegionOwner blob, int index, int recordedUnit, long[] units, int[] crcs) {
    assert owner == null;
    if (blob.checksums().fillUnit(size) != recordedUnit || blob.regionLength(index) > size
        || crcs.length != (blob.regionLength(index) + (long) recordedUnit - 1) / recordedUnit
        || units.length != (crcs.length + 63) >>> 6) {
      return false;
    }
    assign(blob, index);
    readerFetched = true; // the record does not say how it came in: keep it as if a reader had waited for it
    restored = new long[filled.length];
    for (int u = 0; u < crcs.length; u++) {
      if ((units[u >>> 6] & (1L << u)) != 0) {
        unitCrcs[u] = crcs[u];
        setPages(restored, u, true);
      }
    }
    return true;
  }

  /**
   * What a clean close writes down about this slot, if it still holds a region of {@code expected}: the region, and
   * which units are filled or restored with their CRC32Cs; or null if none is (or it holds nothing). Called once
   * fills have stopped.
   */
  synchronized CacheRecord.SlotState recordState(RegionOwner expected, int blobOrdinal, int frequency) {
    if (owner != expected) {
      return null;
    }
    int units = unitCrcs.length;
    long[] present = new long[(units + 63) >>> 6];
    boolean any = false;
    for (int u = 0; u < units; u++) {
      int page = pageOf((long) u * unit);
      if (isFilled(page) || isRestored(page)) {
        present[u >>> 6] |= 1L << u;
        any = true;
      }
    }
    return any ? new CacheRecord.SlotState(blobOrdinal, index, cacheOffset, size, unit, present, unitCrcs.clone(), frequency)
        : null;
  }

  // ---- readers ----

  /**
   * If the slot holds region {@code index} of {@code blob} and the page holding file position {@code p} is filled,
   * points {@code target} at the run of filled pages around it (the whole region when it is complete) and returns
   * true; never fetches nor waits, and takes no lock. Filled pages stay filled for as long as the slot holds the
   * region, and their bits are published after their bytes, so a bit read set here (and the generation unchanged
   * after) means readable bytes.
   */
  boolean offerFilled(RegionOwner blob, int index, long p, WindowTarget target) {
    int g = generation;
    boolean whole = complete;
    if ((g & 1) != 0 || owner != blob || this.index != index) {
      return false;
    }
    if (unread) {
      readerArrived();
    }
    long start = fileStart;
    if (!whole) {
      return offerFilledRun(g, start, p, target);
    }
    long end = start + length;
    VarHandle.acquireFence();
    if (generation != g) {
      return false;
    }
    target.setCacheWindow(start, end, cacheOffset - start, cacheSpace.mapped(), this, g);
    return true;
  }

  /**
   * Whether this slot holds region {@code index} of {@code blob} and the page of position {@code p} (of the file) is
   * restored (recorded at the last clean close, not verified yet: its first read verifies it).
   */
  synchronized boolean restoredAt(RegionOwner blob, int index, long p) {
    if (owner != blob || this.index != index || restored == null) {
      return false;
    }
    long rel = p - fileStart;
    return rel >= 0 && rel < length && isRestored(pageOf(rel));
  }

  /** {@link #offerFilled} for a region not complete (seen at generation {@code g}, starting at {@code start}). */
  private boolean offerFilledRun(int g, long start, long p, WindowTarget target) {
    int len = length;
    long rel = p - start;
    if (rel < 0 || rel >= len) {
      return false; // the region changed hands under us (the generation check below would say so too)
    }
    int page = pageOf(rel);
    if ((filledWord(page >>> 6) & (1L << page)) == 0) {
      return false;
    }
    long from = filledRunStart(page);
    long to = filledRunEnd(page, len);
    VarHandle.acquireFence();
    if (generation != g) {
      return false;
    }
    target.setCacheWindow(start + from, start + to, cacheOffset - start, cacheSpace.mapped(), this, g);
    return true;
  }

  /**
   * Makes the page holding region offset {@code rel} readable, fetching it (or joining the fetch already under
   * way) if needed, and points {@code target} at the run of filled pages around it.
   *
   * @param fillSize how many bytes a new fill should fetch if the reader keeps reading (aligned and bounded here)
   * @param cut null, or where to put the fill it starts, registered and not queued, when that fill is cut short by
   *     the region's end (and the blob goes on): it then returns {@link PageResult#CUT_AT_REGION_END} without waiting,
   *     and the caller queues the fill with the pieces that carry it on (one request), then comes back to wait
   * @return {@link PageResult#CACHED} if the page was there, {@link PageResult#FETCHED} if the reader waited,
   *     {@link PageResult#STALE} if the slot no
   *     longer holds the region (look it up again), or {@link PageResult#CUT_AT_REGION_END}
   * @throws IOException the fill's failure, a {@link BlobStoreTimeoutException} at the reader's deadline (see
   *     {@link ReadDeadline}), or an {@link InterruptedIOException} (the interrupt status kept)
   */
  synchronized PageResult awaitPage(RegionOwner blob, int index, long rel, int fillSize, List<Filler.Piece> cut,
      FetchOrigin file, WindowTarget target) throws IOException {
    if (owner != blob || this.index != index) {
      return PageResult.STALE;
    }
    if (fetchedAhead) {
      fetchedAhead = false; // this reader's move into the region was counted as a use (it was not a hit's move)
    }
    if (unread) {
      readerArrived();
    }
    int page = pageOf(rel);
    ReadDeadline limit = null; // set when the reader begins to wait
    long waitStart = 0;
    Fill awaited = null;
    boolean gaveUp = true; // unless it leaves with its page, or the fill's own failure
    try {
      while (!isFilled(page)) {
        if (isRestored(page)) {
          verifyRestored(blob, page, file);
          continue; // filled now, or dropped: fetch it
        }
        if (awaited == null || awaited.done) {
          if (awaited != null) {
            awaited.waiters--;
            if (awaited.error != null && !(awaited.error instanceof FetchTask.Cancelled)) {
              gaveUp = false;
              throw awaited.error;
            }
          }
          awaited = fillCovering(page);
          if (awaited == null) {
            awaited = startFill(blob, file, page, fillSize, true, cut);
            if (cut != null) {
              if (awaited.end == length && ((long) page << pageShift) + fillSize > length
                  && fileStart + length < blob.checksums().length) {
                gaveUp = false;
                awaited = null; // registered, not waited for yet: the caller queues it and comes back for it
                return PageResult.CUT_AT_REGION_END;
              }
              cut.clear(); // not cut: queued now, alone
              cacheSpace.filler.start(this, awaited, blob.checksums(), file);
            }
          } else if (!awaited.demand) {
            awaited.demand = true; // a reader waits for this prefetch now
            if (awaited.task != null) { // else not queued yet: it is queued on the demand lane (see queued)
              cacheSpace.filler.promote(awaited.task);
            }
          }
          awaited.waiters++;
          awaited.calledOff = false; // someone waits for it again
        }
        long now = System.nanoTime();
        if (limit == null) {
          limit = ReadDeadline.forWait(now, cacheSpace.maxReadWaitNanos);
          waitStart = now;
        }
        long remaining = limit.deadlineNanos - now;
        if (remaining <= 0) {
          throw timedOut(blob, file, awaited, limit);
        }
        cacheSpace.ensureOpen();
        try {
          long wait = Math.min(remaining, MAX_WAIT_NANOS);
          wait(wait / 1_000_000, (int) (wait % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted waiting for " + file + " (blob " + blob.checksums().blobName
              + ") to be fetched");
        }
        if (owner != blob || this.index != index) {
          gaveUp = false;
          return PageResult.STALE;
        }
      }
      gaveUp = false;
      target.setCacheWindow(fileStart + filledRunStart(page), fileStart + filledRunEnd(page, length),
          cacheOffset - fileStart, cacheSpace.mapped(), this, generation);
      return limit != null ? PageResult.FETCHED : PageResult.CACHED;
    } finally {
      if (limit != null) {
        ReadCost cost = ReadCost.current();
        if (cost != null) {
          cost.waited(System.nanoTime() - waitStart);
        }
      }
      if (awaited != null && !awaited.done && --awaited.waiters == 0 && gaveUp) {
        callOff(awaited); // nobody else waits for it
      }
    }
  }

  /**
   * Starts fills, without waiting, for the pages of [from, to) (region offsets) that are neither filled nor being
   * fetched, and holds the region against eviction (see {@link #isHeld}), whether it started fills or found the bytes
   * cached: announced bytes are not thrown out before the reader they were announced for gets to them. Announced by a
   * piece of work ({@link ReadCost#current}: a search's part of one index), the region is held until that work
   * settles; outside any work, until a reader moves into it. The
   * fills are registered here and added to {@code batch}: the caller hands the batch to the {@link Filler}
   * ({@link Filler#start(List, BlobChecksums, FetchOrigin)}), which fetches the fills of adjacent regions in one
   * request, and must do so even if it fails part way (a registered fill that never runs keeps its slot). Without
   * {@code hold} it only starts the fills: for bytes fetched along with a reader's miss, which no reader was promised
   * (the rest of a small slice, see {@code BlobIndexInput#fetchWhole}), and which must not keep a small cache from
   * evicting them if none comes. With {@code nextRead} (and {@code hold}), the bytes are what the reader reads next,
   * asked for ahead of the read (a term's postings, a points index): the region is worth a reader's fetch
   * ({@link #readerFetched}), as it would have been had the reader fetched it.
   */
  void prefetch(RegionOwner blob, int index, long from, long to, FetchOrigin file, List<Filler.Piece> batch,
      boolean hold, boolean nextRead) {
    assert hold || !nextRead : "a next read is held for its reader";
    if (!hold) {
      synchronized (this) {
        if (owner == blob && this.index == index) {
          startMissing(blob, file, from, to, null, batch);
        }
      }
      return;
    }
    ReadCost work = ReadCost.current();
    if (complete && (work == null ? unread : heldBy == work.id) && (!nextRead || readerFetched) && owner == blob
        && this.index == index) {
      return; // cached and held for this reader or work already: a repeated prefetch takes no lock (racy: a hint)
    }
    synchronized (this) {
      if (owner == blob && this.index == index) {
        startMissing(blob, file, from, to, null, batch);
        readerFetched |= nextRead;
        // Held whether its bytes are coming or cached already: a region a search announced is read soon, and must
        // not be the one thing left to evict while the search's other prefetches are held (its reader would then
        // fetch it again, a region a round trip).
        heldUntil = System.nanoTime() + cacheSpace.maxReadWaitNanos;
        if (work != null) {
          if (heldBy == work.id && workHolds > 0) {
            return; // this work holds it already: one hold per work, released once
          }
          heldBy = work.id;
          workHolds++;
          int held = generation;
          work.releaseWhenSettled(() -> releaseWorkHold(held));
        } else {
          unread = true;
        }
      }
    }
  }

  /**
   * Whether region offsets [{@code from}, {@code to}) of region {@code index} of {@code blob} are filled and the
   * region held for its reader already: by this thread's work ({@link ReadCost}), or, outside any work, for at least
   * half of {@link #READ_GRACE_NANOS} after {@code now} (a reader moved into it a moment ago). A prefetch of them then has nothing
   * to fetch and no hold to take: so a warm search's hints, announcing what the search before it read, take no lock
   * and write nothing. Racy, as a hint is; the generation check says the pages seen filled were the region's.
   */
  boolean filledAndHeld(RegionOwner blob, int index, long from, long to, long now) {
    int g = generation;
    if ((g & 1) != 0 || owner != blob || this.index != index) {
      return false;
    }
    ReadCost work = ReadCost.current();
    if (work == null) {
      long until = heldUntil;
      if (until == 0 || until - now < READ_GRACE_NANOS / 2) {
        return false;
      }
    } else if (heldBy != work.id) {
      return false;
    }
    if (!complete) {
      int first = pageOf(from);
      int end = pageOf(to - 1) + 1;
      if ((filledWord(first >>> 6) & (1L << first)) == 0 || runEnd(filled, first, end) != end) {
        return false;
      }
    }
    VarHandle.acquireFence();
    return generation == g;
  }

  /** A piece of work that announced the region settled: let go of its hold, unless the slot changed hands since. */
  private synchronized void releaseWorkHold(int heldAt) {
    if (generation != heldAt || workHolds == 0) {
      return;
    }
    if (--workHolds == 0) {
      heldBy = 0;
      if (!unread) {
        heldUntil = 0;
      }
    }
  }

  /**
   * Takes back {@code fill}, registered by {@link #prefetch} and never queued: its bytes come another way (a direct
   * read offers them, see {@link #offer}). A reader that joined it meanwhile looks again (and fetches if need be).
   */
  synchronized void withdraw(Fill fill) {
    assert fill.task == null && !fill.done : fill;
    fills.remove(fill);
    fill.done = true;
    notifyAll();
  }

  /** A reader moved into the region: it stays held for {@link #READ_GRACE_NANOS} more (no longer, if sooner). */
  private void readerArrived() {
    unread = false;
    if (workHolds == 0) {
      heldUntil = Math.min(heldUntil, System.nanoTime() + READ_GRACE_NANOS);
    }
  }

  /**
   * Whether the region is held against eviction at {@code now}: announced by work that has not settled, or by a
   * prefetch outside any work and not yet reached by a reader (either for at most the cache's maxReadWait after the
   * prefetch), or reached by that reader less than {@link #READ_GRACE_NANOS} ago. The pool skips a held slot as it
   * skips one being filled; with every slot held or busy, what comes next is not admitted (a prefetch's column is
   * then read directly from the store, see {@link DirectRead}). Racy: read without the monitor, a hint for eviction
   * only.
   */
  boolean isHeld(long now) {
    long until = heldUntil;
    return until != 0 && now - until < 0;
  }

  /**
   * Starts fills, without waiting, for the missing pages of [from, to) (region offsets) that carry on a reader's
   * fill its region's end cut short ({@link PageResult#CUT_AT_REGION_END}): on the prefetch lane (a reader that comes
   * to wait promotes them) but worth a reader's fetch ({@link #readerFetched}), each held for that reader as if it waited
   * for it, and added to {@code held}, until the reader lets go of them ({@link #letGo}). So if the reader gives up,
   * no fetch runs on for nobody.
   */
  synchronized void carryOn(RegionOwner blob, int index, long from, long to, FetchOrigin file, List<Fill> held,
      List<Filler.Piece> batch) {
    if (owner == blob && this.index == index) {
      startMissing(blob, file, from, to, held, batch);
    }
  }

  /**
   * Lets go of a fill {@link #carryOn} held for a reader: called off if the reader gave up waiting (deadline or
   * interrupt) and no other reader waits for it; otherwise it runs on, for whoever reads the region next.
   */
  synchronized void letGo(Fill fill, boolean gaveUp) {
    assert fill.waiters > 0 : fill;
    if (--fill.waiters == 0 && gaveUp && !fill.done) {
      callOff(fill); // a fill registered on the slot keeps it with its owner
    }
  }

  /**
   * Calls off {@code fill}, which nobody waits for any more: its fetch, or if it is not queued yet, the fetch it will
   * be given ({@link #queued}). Bytes in hand being written (an {@link #offer}) have no fetch: done in a moment.
   */
  private void callOff(Fill fill) {
    assert Thread.holdsLock(this);
    if (fill.task != null) {
      cacheSpace.filler.cancel(fill.task);
    } else {
      fill.calledOff = true;
    }
  }

  /**
   * Starts fills for the pages of [from, to) neither filled nor being fetched; with {@code held}, a reader's, held
   * for it; with {@code batch}, registered and added to it, not queued.
   */
  private void startMissing(RegionOwner blob, FetchOrigin file, long from, long to, List<Fill> held,
      List<Filler.Piece> batch) {
    assert Thread.holdsLock(this);
    to = Math.min(to, length);
    for (long rel = from; rel < to; ) {
      int page = pageOf(rel);
      Fill covering = fillCovering(page);
      long next;
      if (covering != null) {
        next = covering.end;
      } else if (isFilled(page) || isRestored(page)) {
        next = (long) (page + 1) << pageShift; // a restored page is verified when read, not fetched again
      } else {
        Fill fill = startFill(blob, file, page, to - ((long) page << pageShift), false, batch);
        if (held != null) {
          fill.waiters++;
          held.add(fill);
          fetchedAhead = true;
          readerFetched = true; // worth a reader's fetch: it is the rest of one
        }
        next = fill.end;
      }
      assert next > rel : "prefetch made no progress at " + rel + " in " + this + ", fills " + fills;
      rel = next;
    }
  }

  @Override
  public synchronized List<Fill> fillGap(Fill before, long from, long to, FetchOrigin file) {
    assert before.task == null : "the fill before the gap is queued already: " + before;
    if (owner == null || !fills.contains(before)) {
      return List.of(); // not registered here: the slot may hold another region
    }
    List<Filler.Piece> registered = new ArrayList<>(2);
    startMissing(owner, file, from, to, null, registered);
    List<Fill> gap = new ArrayList<>(registered.size());
    for (Filler.Piece p : registered) {
      assert p.slot() == this && p.regionStart() == regionStart();
      gap.add(p.fill());
    }
    return gap;
  }

  /** Registers a fill from {@code page} and queues it, or with {@code batch} adds it there for the caller to queue. */
  private Fill startFill(RegionOwner blob, FetchOrigin file, int page, long wanted, boolean demand,
      List<Filler.Piece> batch) {
    assert Thread.holdsLock(this);
    long pageStart = (long) page << pageShift;
    long start = pageStart & -(long) unit;
    long end = fillEnd(start, pageStart - start + wanted, unit); // aligning down does not shorten the reach past the page
    long now = System.nanoTime();
    Fill fill = new Fill(start, end, demand, now, file.deadlineAfter(now, end - start + 2L * unit));
    fills.add(fill);
    readerFetched |= demand;
    if (batch != null) {
      batch.add(new Filler.Piece(this, fill));
    } else {
      cacheSpace.filler.start(this, fill, blob.checksums(), file);
    }
    return fill;
  }

  /**
   * The end of a new fill from {@code start} that may grow to {@code wanted} bytes: a multiple of {@code unit}
   * (or the region's end) that stops before the first page that is filled, restored or being fetched.
   */
  private long fillEnd(long start, long wanted, int unit) {
    long limit = Math.min(length, (start + Math.max(unit, wanted) + unit - 1) & -(long) unit);
    long p = start + pageSize;
    while (p < limit && !isFilled(pageOf(p)) && !isRestored(pageOf(p)) && fillCovering(pageOf(p)) == null) {
      p += pageSize;
    }
    long end = Math.min(limit, p);
    assert end == length || end % unit == 0 || unit > length : "fill end " + end + " not aligned to " + unit;
    return end;
  }

  private BlobStoreTimeoutException timedOut(RegionOwner blob, FetchOrigin file, Fill fill, ReadDeadline limit) {
    String blobName = blob.checksums().blobName;
    return new BlobStoreTimeoutException(file.storeDescription(), blobName,
        "gave up waiting for " + BlobStoreException.range(fileStart + fill.start, fill.end - fill.start) + " of " + file
            + " (blob " + blobName + ") to be fetched into the cache, asked for "
            + Durations.formatNanos(System.nanoTime() - fill.createdNanos) + " ago: the wait is bounded by " + limit.what
            + (fill.waiters > 1 ? "; the fetch goes on for the other readers waiting for it" : "; the fetch was called off"),
        null);
  }

  /**
   * Writes the region's bytes, {@code bytes} from {@code offset} (already verified), into the slot if it holds region
   * {@code index} of {@code blob} and none of it is filled or being fetched: bytes the caller has in hand (a manifest
   * just read, a stretch read directly from the store) enter the cache without a fetch. A failed write leaves the
   * pages missing.
   */
  void offer(RegionOwner blob, int index, byte[] bytes, int offset) {
    offer(blob, index, bytes, offset, 0, length);
  }

  /**
   * As {@link #offer(RegionOwner, int, byte[], int)} for the region offsets [{@code from}, {@code to}) (whole units,
   * or ending the region), whose bytes are {@code bytes} from {@code offset}: written if none of them is filled or
   * being fetched (a fill withdrawn for a direct read that brings its bytes, {@link CachedBlob#startDirectRead}).
   */
  void offer(RegionOwner blob, int index, byte[] bytes, int offset, long from, long to) {
    Fill fill;
    synchronized (this) {
      if (owner != blob || this.index != index || restored != null || !isMissing(from, to)) {
        return;
      }
      assert offset >= 0 && offset + (to - from) <= bytes.length && from % unit == 0 && (to % unit == 0 || to == length)
          : "[" + from + ", " + to + ") at " + offset + " of " + bytes.length + " bytes, in units of " + unit;
      fill = new Fill(from, to, false, System.nanoTime(), Long.MAX_VALUE);
      fills.add(fill);
      readerFetched = true; // its caller read it and waited for it (a manifest, a reader's direct read)
    }
    try {
      cacheSpace.cacheFile.write(bytes, offset, (int) (to - from), cacheOffset + from);
      progress(fill, from, to, unitCrcs(bytes, offset, from, to));
    } catch (IOException e) {
      finish(fill, e);
    }
  }

  /** Whether no page of the region offsets [from, to) is filled or being fetched; under the monitor. */
  private boolean isMissing(long from, long to) {
    assert Thread.holdsLock(this);
    if (from >= to || to > length) {
      return false;
    }
    for (int page = pageOf(from), last = pageOf(to - 1); page <= last; page++) {
      if (isFilled(page) || fillCovering(page) != null) {
        return false;
      }
    }
    return true;
  }

  /**
   * The CRC32C of each unit of the region offsets [from, to) (whole units, but for the region's last), whose bytes
   * are {@code bytes} from {@code offset}. The caller has a fill registered, so the unit is stable.
   */
  @Override
  public int[] unitCrcs(byte[] bytes, int offset, long from, long to) {
    assert from % unit == 0 && (to % unit == 0 || to == length) : "[" + from + ", " + to + ") in units of " + unit;
    int[] crcs = new int[(int) ((to - from + unit - 1) / unit)];
    CRC32C crc = new CRC32C();
    for (int u = 0; u < crcs.length; u++) {
      int n = (int) Math.min(unit, to - from - (long) u * unit);
      crc.reset();
      crc.update(bytes, offset + u * unit, n);
      crcs[u] = (int) crc.getValue();
    }
    return crcs;
  }

  // ---- fillers ----

  @Override
  public synchronized Fill.Start queued(Fill fill, FetchTask task) {
    assert fill.task == null && !fill.done && fills.contains(fill) : fill + " in " + this;
    fill.task = task;
    return fill.calledOff ? Fill.Start.CALLED_OFF : fill.demand ? Fill.Start.DEMAND : Fill.Start.PREFETCH;
  }

  /**
   * Marks the pages of [from, to) (region offsets, whole units or ending the region) filled, with the CRC32C of each
   * of their units ({@link #unitCrcs}), and wakes readers. Reaching the fill's end ends it, in the same step, so
   * that a reader who has all its bytes sees no fill left.
   */
  @Override
  public synchronized void progress(Fill fill, long from, long to, int[] crcs) {
    assert fills.contains(fill) : fill + " is not registered in " + this;
    assert from >= fill.start && to <= fill.end : "[" + from + ", " + to + ") outside " + fill;
    assert from % unit == 0 && crcs.length == (to - from + unit - 1) / unit : "[" + from + ", " + to + ") in units of " + unit;
    System.arraycopy(crcs, 0, unitCrcs, (int) (from / unit), crcs.length);
    int first = pageOf(from);
    int end = to >= length ? pageOf(length - 1) + 1 : pageOf(to);
    for (int p = first; p < end; p++) {
      setFilled(p);
    }
    if (end > first) {
      updateComplete();
    }
    if (to >= fill.end) {
      fills.remove(fill);
      fill.done = true;
    }
    notifyAll();
  }

  /**
   * Ends a fill if {@link #progress} has not: readers waiting for pages it did not fill see {@code error} (or try
   * again if it is null).
   */
  @Override
  public synchronized void finish(Fill fill, IOException error) {
    if (!fill.done) {
      boolean removed = fills.remove(fill);
      assert removed : fill + " was not registered in " + this;
      fill.error = error;
      fill.done = true;
      notifyAll();
    }
  }

  // ---- pages ----

  int pageOf(long regionOffset) {
    return (int) (regionOffset >>> pageShift);
  }

  private boolean isFilled(int page) {
    assert Thread.holdsLock(this);
    return (filled[page >>> 6] & (1L << page)) != 0;
  }

  /** A word of {@link #filled}, read without the monitor: bits set in it were set after their pages' bytes were written. */
  private long filledWord(int i) {
    return acquireWord(filled, i);
  }

  /**
   * Word {@code i} of {@code bitmap}, read with acquire semantics: a plain read and a fence, where a VarHandle's
   * {@code getAcquire} is a chain of calls the JIT may leave un-inlined deep in Lucene's calls (see
   * {@code ReadCost#track}).
   */
  private static long acquireWord(long[] bitmap, int i) {
    long word = bitmap[i];
    VarHandle.acquireFence();
    return word;
  }

  /** Marks {@code page} filled (under the monitor), its bit published after the bytes written before it. */
  private void setFilled(int page) {
    assert Thread.holdsLock(this);
    FILLED.setRelease(filled, page >>> 6, filled[page >>> 6] | (1L << page));
  }

  private boolean isRestored(int page) {
    assert Thread.holdsLock(this);
    return restored != null && (restored[page >>> 6] & (1L << page)) != 0;
  }

  /** Sets (or clears) the bits of unit {@code u}'s pages in {@code bitmap}; under the monitor. */
  private void setPages(long[] bitmap, int u, boolean set) {
    long start = (long) u * unit;
    int end = pageOf(Math.min(length, start + unit) - 1) + 1;
    for (int p = pageOf(start); p < end; p++) {
      if (set) {
        FILLED.setRelease(bitmap, p >>> 6, bitmap[p >>> 6] | (1L << p)); // published as setFilled does
      } else {
        bitmap[p >>> 6] &= ~(1L << p);
      }
    }
  }

  private void updateComplete() {
    if (filledPages() == pageOf(length - 1) + 1) {
      complete = true;
    }
  }

  /**
   * Checks the restored unit holding {@code page} against the CRC32C recorded for it: a match makes it filled; a
   * mismatch (the cache file was changed while the cache was closed) drops every restored unit of the region, so
   * that they are fetched again, and is counted as a checksum mismatch.
   */
  private void verifyRestored(RegionOwner blob, int page, FetchOrigin file) throws IOException {
    assert Thread.holdsLock(this) && isRestored(page);
    cacheSpace.ensureOpen();
    int u = (int) (((long) page << pageShift) / unit);
    long start = (long) u * unit;
    int n = (int) Math.min(unit, length - start);
    byte[] bytes = new byte[n];
    cacheSpace.mapped().readBytes(cacheOffset + start, bytes, 0, n);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, n);
    if ((int) crc.getValue() == unitCrcs[u]) {
      setPages(filled, u, true);
      setPages(restored, u, false);
      if (Arrays.stream(restored).allMatch(w -> w == 0)) {
        restored = null;
      }
      updateComplete();
      return;
    }
    restored = null;
    file.counter().checksumMismatches.increment();
    cacheSpace.restoredMismatch(blob.checksums(), index, start, n, unitCrcs[u], (int) crc.getValue());
  }

  private long filledRunStart(int page) {
    return (long) runStart(filled, page) << pageShift;
  }

  private long filledRunEnd(int page, int len) {
    return Math.min(len, (long) runEnd(filled, page, pageOf(len - 1) + 1) << pageShift);
  }

  /**
   * The first page of the run of set bits of {@code bitmap} that holds set bit {@code page}, read word by word (a
   * region of 16 MiB has 4,096 pages) and with acquire reads: safe without the monitor, where a stale word only
   * gives a shorter run.
   */
  static int runStart(long[] bitmap, int page) {
    int p = page; // bits [p, page] are set
    while (p > 0) {
      int q = p - 1;
      long holes = ~acquireWord(bitmap, q >>> 6) << (63 - (q & 63)); // bit q on top, those above dropped
      if (holes != 0) {
        return q - Long.numberOfLeadingZeros(holes) + 1;
      }
      p = q & ~63;
    }
    return 0;
  }

  /** The page past the run of set bits of {@code bitmap} that holds set bit {@code page}, at most {@code pages}. As above. */
  static int runEnd(long[] bitmap, int page, int pages) {
    int p = page + 1; // bits [page, p) are set
    while (p < pages) {
      long holes = ~acquireWord(bitmap, p >>> 6) >>> (p & 63); // bit p at the bottom
      if (holes != 0) {
        return Math.min(pages, p + Long.numberOfTrailingZeros(holes));
      }
      p = (p | 63) + 1;
    }
    return pages;
  }

  private Fill fillCovering(int page) {
    long offset = (long) page << pageShift;
    for (Fill f : fills) {
      if (offset >= f.start && offset < f.end) {
        return f;
      }
    }
    return null;
  }

  private int filledPages() {
    int count = 0;
    for (long word : filled) {
      count += Long.bitCount(word);
    }
    return count;
  }

  /** Readers waiting for the slot's fills now; for tests that need a reader to be waiting. */
  synchronized int waitingReaders() {
    int n = 0;
    for (Fill f : fills) {
      n += f.waiters;
    }
    return n;
  }

  /** Whether the page holding {@code regionOffset} is filled or restored; for tests. */
  synchronized boolean hasBytesAt(long regionOffset) {
    return owner != null && regionOffset < length && (isFilled(pageOf(regionOffset)) || isRestored(pageOf(regionOffset)));
  }

  /** Bytes of the region filled now; for stats and tests. */
  synchronized long filledBytes() {
    return owner == null ? 0 : Math.min(length, (long) filledPages() << pageShift);
  }

  @Override
  public long cacheOffset() {
    return cacheOffset;
  }

  /** The region's file offset; stable while a fill runs (a slot with a fill registered keeps its region). */
  @Override
  public long regionStart() {
    return fileStart;
  }

  @Override
  public String toString() {
    RegionOwner f = owner;
    return "slot of " + size + " bytes at " + cacheOffset + (f == null ? " (free)"
        : " (" + f.checksums().blobName + " region " + index + ")");
  }
}
