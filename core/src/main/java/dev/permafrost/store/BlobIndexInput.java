/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStoreTimeoutException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.BitUtil;

/**
 * Reads one file of a mounted snapshot. Bytes come from a "window": a run of bytes known to be readable, either
 * in the shared cache file (read through its memory mapping), in the manifest, or fetched directly from the store.
 * A read inside the window is a bounds check, a positional read, and a check that the window's cache region has
 * not changed hands since (its generation); no lock, no allocation. Anything else goes to {@link #moveWindow},
 * which finds or fetches the bytes.
 *
 * <p>Clones and slices share the file and the master's closed state: closing the master makes every clone fail
 * with {@link AlreadyClosedException}, as with {@code MMapDirectory}; closing a clone affects only that clone.
 * Like any Lucene input, one instance is used by one thread at a time.
 */
final class BlobIndexInput extends IndexInput
    implements RandomAccessInput, WindowTarget, ReadCost.Input, ReadIntent.SequentialSlice {
  static final int RANDOM_FILL = 64 << 10;
  static final int NORMAL_FILL = 128 << 10;
  static final int SEQUENTIAL_FILL = 1 << 20;
  static final int MAX_FILL = 8 << 20;
  private static final int PREFETCH_LIMIT = 16 << 20;
  /** The longest stretch of manifest-kept bytes inside a prefetched range that is fetched along with it. */
  private static final int WARM_GAP_FETCHED = 64 << 10;
  /** One move between cached regions in this many is recorded in the frequency sketch (a power of two). */
  static final int ACCESS_SAMPLE = 8;
  private static final int KIND_NONE = 0;
  private static final int KIND_CACHE = 1;
  private static final int KIND_WARM_SET = 2;
  private static final int KIND_DIRECT = 3;

  /** State shared by a master input and all its clones and slices. */
  private static final class Master {
    volatile boolean closed;
  }

  private final IndexFile file;
  private final Master master;
  private final boolean isMaster;
  private final long sliceStart;
  private final long sliceEnd;
  private final int baseFill;
  /**
   * Whether a fill that its region's end cuts short goes on into the next region (a data file, read in runs: a
   * terms block, a run of point leaves), rather than stopping there (an index structure, read at points).
   */
  private final boolean fillsCrossRegions;
  private boolean closed;

  /** Absolute position in the file. */
  private long pos;

  // The window: [winStart, winEnd) in absolute file positions, read at (position + winDelta) of winAccess.
  private long winStart = Long.MAX_VALUE;
  private long winEnd = Long.MIN_VALUE;
  private long winDelta;
  private RandomAccessInput winAccess;
  /** The generation the window's bytes are checked against: its slot's, or one that never changes (heap bytes). */
  private SlotGeneration winSlot = SlotGeneration.FIXED;
  private int winGeneration;
  private int winKind = KIND_NONE;
  /** The position a move of the window is for: the window holds it, and is cut to one request's bytes around it. */
  private long wanted;
  /** Bytes served from the current window not yet added to the stats. */
  private long served;
  // Bytes not yet added to the shared stats: flushed every STATS_BATCH window moves, on a miss and on close, so
  // that moving between cached ranges touches one shared counter (the hit), not three. Hits and misses are counted
  // at once: cache.stats() is exact about them.
  private static final int STATS_BATCH = 64;
  private long pendingCacheBytes;
  private long pendingWarmSetBytes;
  private int pendingMoves;

  /**
   * The bytes of this input (a column a collector named) read directly from the store when the cache did not admit
   * them, shared with its clones, or null. See {@link DirectRead}.
   */
  private DirectRead directRead;
  /** A private clone of the cache mapping, for bulk reads that need a file pointer. */
  private IndexInput cacheInput;
  private final byte[] scratch = new byte[Long.BYTES];
  private int fillSize;
  private int lastRegion = -1;
  /**
   * Moves between cached regions, of which one in {@link #ACCESS_SAMPLE} is recorded. It starts at a random count:
   * from zero, an input that makes fewer moves than that (a clone per query, reading a region or two) would never be
   * sampled, and a region read again and again that way would look used once to the eviction policy.
   */
  private int sampledMoves = ThreadLocalRandom.current().nextInt(); // not a shared counter: slices are made per query, on every core
  /**
   * The work this input reads for ({@link ReadCost}), from the thread that opened, cloned or sliced it (Lucene makes
   * them per query), or null; bytes served from the cache count for it as each window is left.
   */
  private final ReadCost cost;
  /** The reading {@link #cost} was found in: a clone made on its thread while it is current takes it as it is. */
  private final ReadCost.Reading costReading;
  /** The input tracked by {@link #cost} before this one (its list of inputs runs through them), or null. */
  private ReadCost.Input nextTracked;

  BlobIndexInput(String description, IndexFile file, int baseFill, boolean fillsCrossRegions) {
    super(description);
    this.file = file;
    this.master = new Master();
    this.isMaster = true;
    this.sliceStart = 0;
    this.sliceEnd = file.length;
    this.baseFill = baseFill;
    this.fillsCrossRegions = fillsCrossRegions;
    this.fillSize = baseFill;
    this.costReading = tracked(this, null);
    this.cost = costReading == null ? null : costReading.cost;
  }

  private BlobIndexInput(String description, BlobIndexInput from, long sliceStart, long sliceEnd) {
    super(description);
    this.costReading = tracked(this, from.costReading);
    this.cost = costReading == null ? null : costReading.cost;
    this.file = from.file;
    this.master = from.master;
    this.isMaster = false;
    this.sliceStart = sliceStart;
    this.sliceEnd = sliceEnd;
    this.baseFill = from.baseFill;
    this.fillsCrossRegions = from.fillsCrossRegions;
    this.fillSize = from.fillSize;
    this.pos = sliceStart;
    this.directRead = from.directRead;
    // The window is immutable shared state: a clone can keep using it, clipped to its own bounds; but not a clone
    // made for work that fetched some of this blob, whose threads must see which of its requests they read from
    // (see setWindow)
    long start = Math.max(from.winStart, sliceStart);
    long end = Math.min(from.winEnd, sliceEnd);
    if (start < end && (from.winKind == KIND_WARM_SET || cost == null || !cost.asksForBytes()
        || !readsWhatItsWorkFetched(file))) {
      this.winStart = start;
      this.winEnd = end;
      this.winDelta = from.winDelta;
      this.winAccess = from.winAccess;
      this.winSlot = from.winSlot;
      this.winGeneration = from.winGeneration;
      this.winKind = from.winKind;
      this.lastRegion = from.lastRegion;
    }
  }

  // ---- the hot path ----

  /** Whether the bytes just read through the window are still the file's bytes. */
  private boolean windowValid() {
    VarHandle.acquireFence(); // the reads above happen before the checks below
    return winSlot.generation == winGeneration && !master.closed;
  }

  @Override
  public byte readByte() throws IOException {
    final long p = pos;
    if (p >= winStart && p < winEnd) {
      final byte b = winAccess.readByte(p + winDelta);
      if (windowValid()) {
        pos = p + 1;
        served++;
        return b;
      }
    }
    readBytesSlow(p, scratch, 0, 1);
    pos = p + 1;
    return scratch[0];
  }

  @Override
  public void readBytes(byte[] b, int offset, int len) throws IOException {
    final long p = pos;
    if (p >= winStart && p + len <= winEnd) {
      winAccess.readBytes(p + winDelta, b, offset, len);
      if (windowValid()) {
        pos = p + len;
        served += len;
        return;
      }
    }
    readBytesSlow(p, b, offset, len);
    pos = p + len;
  }

  @Override
  public short readShort() throws IOException {
    final long p = pos;
    if (p >= winStart && p + Short.BYTES <= winEnd) {
      final short v = winAccess.readShort(p + winDelta);
      if (windowValid()) {
        pos = p + Short.BYTES;
        served += Short.BYTES;
        return v;
      }
    }
    readBytesSlow(p, scratch, 0, Short.BYTES);
    pos = p + Short.BYTES;
    return (short) BitUtil.VH_LE_SHORT.get(scratch, 0);
  }

  @Override
  public int readInt() throws IOException {
    final long p = pos;
    if (p >= winStart && p + Integer.BYTES <= winEnd) {
      final int v = winAccess.readInt(p + winDelta);
      if (windowValid()) {
        pos = p + Integer.BYTES;
        served += Integer.BYTES;
        return v;
      }
    }
    readBytesSlow(p, scratch, 0, Integer.BYTES);
    pos = p + Integer.BYTES;
    return (int) BitUtil.VH_LE_INT.get(scratch, 0);
  }

  @Override
  public long readLong() throws IOException {
    final long p = pos;
    if (p >= winStart && p + Long.BYTES <= winEnd) {
      final long v = winAccess.readLong(p + winDelta);
      if (windowValid()) {
        pos = p + Long.BYTES;
        served += Long.BYTES;
        return v;
      }
    }
    readBytesSlow(p, scratch, 0, Long.BYTES);
    pos = p + Long.BYTES;
    return (long) BitUtil.VH_LE_LONG.get(scratch, 0);
  }

  @Override
  public void readLongs(long[] dst, int offset, int length) throws IOException {
    final long p = pos;
    final long bytes = (long) length * Long.BYTES;
    if (winKind == KIND_CACHE && p >= winStart && p + bytes <= winEnd) {
      IndexInput in = cacheInput();
      in.seek(p + winDelta);
      in.readLongs(dst, offset, length);
      if (windowValid()) {
        pos = p + bytes;
        served += bytes;
        return;
      }
    }
    super.readLongs(dst, offset, length);
  }

  @Override
  public void readInts(int[] dst, int offset, int length) throws IOException {
    final long p = pos;
    final long bytes = (long) length * Integer.BYTES;
    if (winKind == KIND_CACHE && p >= winStart && p + bytes <= winEnd) {
      IndexInput in = cacheInput();
      in.seek(p + winDelta);
      in.readInts(dst, offset, length);
      if (windowValid()) {
        pos = p + bytes;
        served += bytes;
        return;
      }
    }
    super.readInts(dst, offset, length);
  }

  @Override
  public void readFloats(float[] dst, int offset, int length) throws IOException {
    final long p = pos;
    final long bytes = (long) length * Float.BYTES;
    if (winKind == KIND_CACHE && p >= winStart && p + bytes <= winEnd) {
      IndexInput in = cacheInput();
      in.seek(p + winDelta);
      in.readFloats(dst, offset, length);
      if (windowValid()) {
        pos = p + bytes;
        served += bytes;
        return;
      }
    }
    super.readFloats(dst, offset, length);
  }

  /** A private clone of the cache file's mapping (a cache window's {@code winAccess}), for bulk reads. */
  private IndexInput cacheInput() {
    IndexInput in = cacheInput;
    if (in == null) {
      in = cacheInput = ((IndexInput) winAccess).clone(); // the mapping is Lucene's IndexInput of the cache file
    }
    return in;
  }

  // ---- RandomAccessInput: positions relative to this slice ----

  @Override
  public byte readByte(long position) throws IOException {
    final long a = sliceStart + position;
    if (a >= winStart && a < winEnd) {
      final byte b = winAccess.readByte(a + winDelta);
      if (windowValid()) {
        return b;
      }
    }
    if (moveToCachedRegion(a, 1)) {
      final byte b = winAccess.readByte(a + winDelta);
      if (windowValid()) {
        return b;
      }
    }
    readAtSlow(position, scratch, 0, 1);
    return scratch[0];
  }

  @Override
  public void readBytes(long position, byte[] b, int offset, int len) throws IOException {
    final long a = sliceStart + position;
    if (a >= winStart && a + len <= winEnd) {
      winAccess.readBytes(a + winDelta, b, offset, len);
      if (windowValid()) {
        return;
      }
    }
    if (len > 0 && moveToCachedRegion(a, len)) {
      winAccess.readBytes(a + winDelta, b, offset, len);
      if (windowValid()) {
        return;
      }
    }
    readAtSlow(position, b, offset, len);
  }

  @Override
  public short readShort(long position) throws IOException {
    final long a = sliceStart + position;
    if (a >= winStart && a + Short.BYTES <= winEnd) {
      final short v = winAccess.readShort(a + winDelta);
      if (windowValid()) {
        return v;
      }
    }
    if (moveToCachedRegion(a, Short.BYTES)) {
      final short v = winAccess.readShort(a + winDelta);
      if (windowValid()) {
        return v;
      }
    }
    readAtSlow(position, scratch, 0, Short.BYTES);
    return (short) BitUtil.VH_LE_SHORT.get(scratch, 0);
  }

  @Override
  public int readInt(long position) throws IOException {
    final long a = sliceStart + position;
    if (a >= winStart && a + Integer.BYTES <= winEnd) {
      final int v = winAccess.readInt(a + winDelta);
      if (windowValid()) {
        return v;
      }
    }
    if (moveToCachedRegion(a, Integer.BYTES)) {
      final int v = winAccess.readInt(a + winDelta);
      if (windowValid()) {
        return v;
      }
    }
    readAtSlow(position, scratch, 0, Integer.BYTES);
    return (int) BitUtil.VH_LE_INT.get(scratch, 0);
  }

  @Override
  public long readLong(long position) throws IOException {
    final long a = sliceStart + position;
    if (a >= winStart && a + Long.BYTES <= winEnd) {
      final long v = winAccess.readLong(a + winDelta);
      if (windowValid()) {
        return v;
      }
    }
    if (moveToCachedRegion(a, Long.BYTES)) {
      final long v = winAccess.readLong(a + winDelta);
      if (windowValid()) {
        return v;
      }
    }
    readAtSlow(position, scratch, 0, Long.BYTES);
    return (long) BitUtil.VH_LE_LONG.get(scratch, 0);
  }

  private void readAtSlow(long position, byte[] b, int offset, int len) throws IOException {
    ensureOpen();
    if (position < 0 || len < 0 || position + len > sliceEnd - sliceStart) {
      throw new EOFException("positional read of " + len + " bytes at " + position + " is past EOF (length "
          + (sliceEnd - sliceStart) + "): " + this);
    }
    readBytesSlow(sliceStart + position, b, offset, len);
  }

  /**
   * The short way between cached bytes: if the page holding absolute position {@code a} is filled in the cache,
   * points the window at the run of filled pages around it (the whole region when it is complete), without a lock nor
   * the slow path's checks, manifest-range lookup or fill logic, and returns true if [a, a+len) is in it. Access is recorded for
   * one move in {@link #ACCESS_SAMPLE}: the frequency sketch only compares regions, and an update on every move would
   * cost more than the move itself; and for the first move into a region fetched ahead of its reader, which would
   * otherwise have been a miss, always recorded. Anything else (a miss, a read across regions, bounds) takes the
   * slow path.
   */
  private boolean moveToCachedRegion(long a, int len) {
    CachedBlob blob = file.cachedBlob;
    if (blob == null || a < sliceStart || a + len > sliceEnd) {
      return false;
    }
    int index = blob.regionIndex(a);
    wanted = a;
    if (probeSkips(a) || !blob.offerCached(index, a, this) || a + len > winEnd) {
      return false;
    }
    if (index != lastRegion) {
      lastRegion = index;
      if ((++sampledMoves & (ACCESS_SAMPLE - 1)) == 0 || blob.takeFetchedAhead(index)) {
        blob.recordAccess(index);
      }
    }
    countHit();
    return true;
  }

  // ---- the slow path ----

  /** Reads [p, p+len) (absolute) window by window, moving the window as needed. Does not move {@link #pos}. */
  private void readBytesSlow(long p, byte[] b, int offset, int len) throws IOException {
    ensureOpen();
    if (p + len > sliceEnd || p < sliceStart) {
      throw new EOFException("read past EOF: " + this + " (position " + (p - sliceStart) + ", " + len + " bytes, length "
          + (sliceEnd - sliceStart) + ")");
    }
    while (len > 0) {
      if ((p < winStart || p >= winEnd) && !moveToCachedRegion(p, 1)) {
        moveWindow(p);
      }
      int n = (int) Math.min(len, winEnd - p);
      winAccess.readBytes(p + winDelta, b, offset, n);
      if (!windowValid()) {
        ensureOpen();
        dropWindow();
        continue; // the region changed hands while we read: read it again
      }
      served += n;
      p += n;
      offset += n;
      len -= n;
    }
  }

  private void dropWindow() {
    flushServed();
    winStart = Long.MAX_VALUE;
    winEnd = Long.MIN_VALUE;
    winKind = KIND_NONE;
    winSlot = SlotGeneration.FIXED;
  }

  /**
   * Whether a probe for cached values must not read position {@code p}: a request of the probing thread's own work
   * brought it, or is bringing it. A probe looks for what the cache held before the work; what the work is fetching is
   * read once the probe is over (the fetch is registered, so no byte is asked for twice), and what a probe finds does
   * not depend on how far the work's own fetches have come, nor do the waves of what it decides to fetch.
   */
  private boolean probeSkips(long p) {
    // on every move between cached regions: the cheap field checks first, the thread-locals only inside a work
    return cost != null && cost.asksForBytes() && ReadIntent.probing() && fetchedByWork(p);
  }

  /** Whether a request of the reading thread's own work brought position {@code p}, or is bringing it. */
  private boolean workFetched(long p) {
    return cost != null && cost.asksForBytes() && fetchedByWork(p);
  }

  private boolean fetchedByWork(long p) {
    ReadCost.Reading reading = ReadCost.reading();
    return reading != null && reading.fetchedAt(file.cachedBlob.checksums, p);
  }

  /** Whether the current thread reads for work that asked the store for bytes of {@code file}'s blob. */
  private static boolean readsWhatItsWorkFetched(IndexFile file) {
    ReadCost.Reading reading = ReadCost.reading();
    return reading != null && file.cachedBlob != null && reading.fetched(file.cachedBlob.checksums);
  }

  /** The current thread's reading ({@code known} if that is it), which tracks {@code input} from now on; or null. */
  private static ReadCost.Reading tracked(BlobIndexInput input, ReadCost.Reading known) {
    ReadCost.Reading reading = ReadCost.reading(known);
    if (reading != null) {
      reading.cost.track(input);
    }
    return reading;
  }

  /** Bytes served from the cache in the current window and not yet reported (read racily, for {@link ReadCost}). */
  @Override
  public long servedFromCacheNotReported() {
    return winKind == KIND_CACHE ? served : 0;
  }

  @Override
  public ReadCost.Input nextTracked() {
    return nextTracked;
  }

  @Override
  public void nextTracked(ReadCost.Input next) {
    nextTracked = next;
  }

  private void flushServed() {
    if (served != 0) {
      switch (winKind) {
        case KIND_CACHE -> {
          pendingCacheBytes += served;
          if (cost != null) {
            cost.fromCache(served);
          }
        }
        case KIND_WARM_SET -> pendingWarmSetBytes += served;
        default -> {}
      }
      served = 0;
    }
  }

  private void countHit() {
    file.counter.hits.increment();
    if (++pendingMoves >= STATS_BATCH) {
      flushStats();
    }
  }

  /** Adds this input's pending counts to the shared stats. */
  private void flushStats() {
    flushServed();
    CacheStatsCounter counter = file.counter;
    pendingMoves = 0;
    if (pendingCacheBytes != 0) {
      counter.bytesReadFromCache.add(pendingCacheBytes);
      pendingCacheBytes = 0;
    }
    if (pendingWarmSetBytes != 0) {
      counter.bytesReadFromWarmSet.add(pendingWarmSetBytes);
      pendingWarmSetBytes = 0;
    }
  }

  private void setWindow(long start, long end, long delta, RandomAccessInput access, SlotGeneration slot, int generation,
      int kind) {
    flushServed();
    if (kind != KIND_WARM_SET && cost != null && cost.asksForBytes()) {
      // the reading thread moves to the wave of the request of its work that brought these bytes, if one did; and the
      // window holds no bytes of another request, whose wave the thread would then read unseen. Only for inputs made
      // for work that asked the store for something: a warm search's, or one counted by no work, pays nothing here
      ReadCost.Reading reading = ReadCost.reading();
      if (reading != null && reading.read(file.cachedBlob.checksums, wanted)) {
        start = Math.max(start, reading.stretchStart);
        end = Math.min(end, reading.stretchEnd);
      }
    }
    winStart = Math.max(start, sliceStart);
    winEnd = Math.min(end, sliceEnd);
    winDelta = delta;
    winAccess = access;
    winSlot = slot;
    winGeneration = generation;
    winKind = kind;
    assert winStart < winEnd && (kind == KIND_WARM_SET || (wanted >= winStart && wanted < winEnd))
        : "[" + winStart + ", " + winEnd + ") for " + wanted;
  }

  @Override
  public void setCacheWindow(long start, long end, long cacheDelta, RandomAccessInput mapping, SlotGeneration slot,
      int generation) {
    setWindow(start, end, cacheDelta, mapping, slot, generation, KIND_CACHE);
  }

  @Override
  public void setHeapWindow(long start, long end, RandomAccessInput bytes) {
    setWindow(start, end, -start, bytes, SlotGeneration.FIXED, SlotGeneration.FIXED.generation, KIND_DIRECT);
  }

  /** Points the window at readable bytes that include absolute position {@code p} (p is inside the slice). */
  private void moveWindow(long p) throws IOException {
    assert p >= sliceStart && p < sliceEnd;
    wanted = p;
    // reading on from the window's end, or skipping a little past it (a column read for sparse hits, a run of point
    // leaves with gaps), is a scan: its fills grow
    boolean sequential = winKind != KIND_NONE && p >= winEnd && p - winEnd < fillSize;
    int warm = file.warmRange(p);
    if (warm >= 0) {
      setWindow(file.warmStart(warm), file.warmEnd(warm), -file.warmStart(warm), file.warmWindow(warm), SlotGeneration.FIXED,
          SlotGeneration.FIXED.generation, KIND_WARM_SET);
      return;
    }
    // A scan through regions the cache refuses grows four times a read, as one through the cache does: there each fill
    // is two moves (its region, then the region it carried on into), each doubling; a direct read is one window
    fillSize = sequential ? Math.min(MAX_FILL, fillSize * (winKind == KIND_DIRECT ? 4 : 2)) : baseFill;
    CachedBlob blob = file.cachedBlob;
    int index = blob.regionIndex(p);
    if (index != lastRegion) {
      lastRegion = index;
      blob.recordAccess(index);
    }
    if (probeSkips(p)) {
      ReadIntent.probeMissed(this, p - sliceStart, 0); // on its way: nothing to ask for, only to wait for
      throw ReadIntent.NOT_CACHED;
    }
    DirectRead scan = directRead;
    if ((scan == null || !scan.holds(p)) && blob.hasDirectReads()) {
      scan = blob.directReadHolding(p); // another input's direct read has these bytes, or is bringing them
    }
    if (scan != null && scan.holds(p)) {
      if (ReadIntent.probing() && !scan.ready()) {
        ReadIntent.probeMissed(this, p - sliceStart, 0); // on its way: nothing to ask for, only to wait for
        throw ReadIntent.NOT_CACHED;
      }
      HeapWindow bytes;
      try {
        bytes = blob.awaitDirectRead(scan);
      } catch (IOException e) {
        if (scan == directRead) {
          directRead = null; // as after a failed fill: the next read tries again, the usual way
        }
        throw e;
      }
      if (bytes != null) {
        setWindow(scan.start, scan.end, -scan.start, bytes, SlotGeneration.FIXED, SlotGeneration.FIXED.generation,
            KIND_DIRECT);
        return;
      }
      if (scan == directRead) {
        directRead = null; // called off: read as any other refused region
      }
    }
    if (ReadIntent.probing() || (ReadIntent.probingPastFetched() && !workFetched(p))) {
      // a probe for cached values: what is not in the cache is fetched by the probe's caller, not waited for here
      if (!blob.offerCached(index, p, this)) {
        // what the read would fetch: a point's fill, which stops at the region's end
        long regionEnd = blob.regionStart(index) + blob.regionLength(index);
        if (readWhole()) {
          ReadIntent.probeMissed(this, 0, sliceEnd - sliceStart);
        } else {
          ReadIntent.probeMissed(this, p - sliceStart, Math.min(fillSize, Math.min(sliceEnd, regionEnd) - p));
        }
        throw ReadIntent.NOT_CACHED;
      }
      countHit();
      return;
    }
    // a collector's threads reading its hits' values: their reads are points, not runs (no carrying on), and what the
    // cache does not admit is not read around it (the bytes would be thrown away and read again)
    boolean prefetching = ReadIntent.prefetching() || ReadIntent.probingPastFetched();
    if (readWhole()) {
      if (blob.offerCached(index, p, this)) {
        countHit();
        return;
      }
      if (!blob.restoredAt(index, p)) {
        fetchWhole(); // a miss: all of it in one request; the read below waits for its page
      } // else not a miss: the bytes a clean close recorded are verified by the read below, and nothing is fetched
    }
    CachedBlob.Served result;
    try {
      result = blob.window(index, p, fillSize, fillsCrossRegions && !prefetching, !prefetching, file, this);
    } catch (CorruptIndexException e) {
      throw new CorruptIndexException(e.getOriginalMessage() + " (reading " + file + ")", this, e);
    } catch (BlobStoreTimeoutException | InterruptedIOException e) {
      throw e; // their messages name the file already, and callers tell them by type
    } catch (IOException e) {
      throw new IOException(e.getMessage() + " (reading " + file + ")", e);
    }
    switch (result) {
      case REFUSED -> throw ReadIntent.NOT_CACHED;
      case FETCHED -> {
        file.counter.misses.increment();
        flushStats();
      }
      case CACHED -> countHit();
      case DIRECT -> { } // counted by the direct read
    }
    assert p >= winStart && p < winEnd : p + " outside the window [" + winStart + ", " + winEnd + ")";
  }

  /**
   * Whether a miss in this input fetches all of it ({@link #fetchWhole}): a slice no longer than its fill (a field's
   * terms index, a stored-fields index, a points index, a small file of a compound file) is read here and there,
   * backwards (an FST) or by bisection, where a fill from the missed page forward brings a page a round trip. A whole
   * file is not: a read from its start fetches a fill forward as ever.
   */
  private boolean readWhole() {
    return sliceEnd - sliceStart <= baseFill && (sliceStart > 0 || sliceEnd < file.length);
  }

  /**
   * Starts fetching all of this input, or all of its file if that is no longer than a fill too (the slices of one
   * small file, a stored-fields index's two arrays, are read one after the other: one request for both).
   */
  private void fetchWhole() throws IOException {
    boolean wholeFile = file.length <= baseFill;
    fetchRange(wholeFile ? 0 : sliceStart, wholeFile ? file.length : sliceEnd, false, false, false, false, true);
  }

  @Override
  public void prefetch(long offset, long length) throws IOException {
    prefetch(offset, length, false, false, true);
  }

  /**
   * Starts fetching [offset, offset+length) of this input; {@code column}: a column a collector named, which the
   * inputs the collector opens next read (see {@link #columnSlice}); {@code scan}: this input will read all of it, so
   * what the cache does not admit is read directly from the store now, in one request, for this input and its clones;
   * {@code admit}: the cache may take regions for it (otherwise only what it holds already is read from there).
   */
  private void prefetch(long offset, long length, boolean column, boolean scan, boolean admit) throws IOException {
    ensureOpen();
    if (length <= 0 || offset < 0 || offset > sliceEnd - sliceStart - length) {
      return;
    }
    long start = sliceStart + offset;
    long end = Math.min(sliceEnd, start + Math.min(length, PREFETCH_LIMIT));
    CachedBlob blob = file.cachedBlob;
    if (!column && !scan && blob != null && blob.filledAndHeld(start, end)) {
      return; // a warm search's hint: cached, and held for the reader that comes next
    }
    fetchRange(start, end, column, scan, true, false, admit);
  }

  /** Starts fetching all of this input, which this thread's work will read: see {@link #willRead}. */
  @Override
  public void willReadAll() throws IOException {
    willRead(0, sliceEnd - sliceStart);
  }

  /**
   * Starts fetching [offset, offset+length) of this input, which this thread's work will read
   * ({@code ColumnPrefetch.willRead}): what the cache admits as a prefetch does; what it does not, in one read
   * directly from the store, kept for every input of the blob until the work settles, if the thread's work is a
   * {@link ReadCost} and the budget has room (else it is read as the reader comes to it); not again if a direct read
   * of the blob holds it already.
   */
  void willRead(long offset, long length) throws IOException {
    ensureOpen();
    if (length <= 0 || offset < 0 || offset >= sliceEnd - sliceStart) {
      return;
    }
    long start = sliceStart + offset;
    long end = Math.min(sliceEnd, start + Math.min(length, PREFETCH_LIMIT));
    CachedBlob.Stretch refused = fetchRange(start, end, false, false, true, true, true);
    DirectReadBudget budget = file.directReadBudget();
    if (refused == null || budget == null || ReadCost.current() == null) {
      return;
    }
    CachedBlob blob = file.cachedBlob;
    DirectRead held = blob.hasDirectReads() ? blob.directReadHolding(refused.from()) : null;
    if (held == null || !held.holds(refused.to() - 1)) {
      blob.startDirectRead(budget, file, refused.from(), refused.to(), List.of()); // held by the work
    }
  }

  /**
   * Starts fetching [start, end) of the file (absolute; see {@link #prefetch(long, long, boolean, boolean, boolean)}); without
   * {@code hold}, its regions are not held for a reader (bytes fetched along with a miss, see {@link #fetchWhole});
   * with {@code nextRead}, they are what this thread's work reads next ({@link #willRead}), worth a reader's fetch to
   * the cache (structure a search walks, fetched ahead); without {@code admit}, the cache takes no new region for it
   * (what it holds is read from there, the rest is refused). Returns the stretch of it the cache does not admit, from
   * its first such region to the end of its last, or null.
   */
  private CachedBlob.Stretch fetchRange(long start, long end, boolean column, boolean scan, boolean hold,
      boolean nextRead, boolean admit) throws IOException {
    // already readable: unless its region has left the cache since (a window a slice took from its parent), or the
    // bytes are heap bytes of another read this input took over, which the collector's own inputs may not see
    if (start >= winStart && end <= winEnd && windowValid() && !(column && winKind == KIND_DIRECT)) {
      return null;
    }
    CachedBlob blob = file.cachedBlob;
    if (blob == null) {
      return null;
    }
    long refusedFrom = Long.MAX_VALUE;
    long refusedTo = Long.MIN_VALUE;
    List<Filler.Piece> batch = new ArrayList<>();
    try {
      for (long p = start; p < end; ) {
        int warm = file.warmRange(p);
        if (warm >= 0) {
          p = file.warmEnd(warm);
          continue;
        }
        // what the manifest keeps is not fetched, but a short stretch of it between two that are is fetched along:
        // cutting a column around a warm set's small pieces would cost a request per piece
        long stop = Math.min(end, file.nextWarmStart(p));
        while (stop < end) {
          int gap = file.warmRange(stop);
          long resume = file.warmEnd(gap);
          if (resume >= end || resume - stop > WARM_GAP_FETCHED) {
            break;
          }
          stop = Math.min(end, file.nextWarmStart(resume));
        }
        CachedBlob.Stretch refused = blob.prefetch(p, stop, file, batch, hold, nextRead, admit);
        if (refused != null) {
          refusedFrom = Math.min(refusedFrom, refused.from());
          refusedTo = Math.max(refusedTo, refused.to());
        }
        p = stop;
      }
      if (scan && refusedFrom < refusedTo) {
        // the stretch is read directly in one request, and so are the regions admitted amid or beside it, which the
        // batch holds until then (ReadIntent.startWanted)
        ReadIntent.wantDirect(file, sliceStart, refusedFrom, refusedTo);
      }
    } finally {
      blob.startFills(batch, file); // registered fills must be queued, even if this failed part way
    }
    return refusedFrom < refusedTo ? new CachedBlob.Stretch(refusedFrom, refusedTo) : null;
  }

  // ---- IndexInput ----

  private void ensureOpen() {
    if (closed || master.closed) {
      throw new AlreadyClosedException("this input is closed: " + this);
    }
  }

  @Override
  public long getFilePointer() {
    return pos - sliceStart;
  }

  @Override
  public void seek(long position) throws IOException {
    ensureOpen();
    if (position < 0) {
      throw new IllegalArgumentException("seeking to negative position " + position + ": " + this);
    }
    if (position > sliceEnd - sliceStart) {
      throw new EOFException("seek past EOF to " + position + " (length " + (sliceEnd - sliceStart) + "): " + this);
    }
    pos = sliceStart + position;
  }

  @Override
  public long length() {
    return sliceEnd - sliceStart;
  }

  @Override
  public BlobIndexInput clone() {
    ensureOpen();
    BlobIndexInput clone = new BlobIndexInput(toString(), this, sliceStart, sliceEnd);
    clone.pos = pos;
    return clone;
  }

  /**
   * A plain slice. Opened while {@code ColumnPrefetch} opens a field's doc values, it is noted as the field's
   * ({@link ReadIntent.FieldSlices}): a terms dictionary no larger than the field's columns is fetched with them.
   */
  @Override
  public BlobIndexInput slice(String sliceDescription, long offset, long length) throws IOException {
    BlobIndexInput slice = sliceOf(sliceDescription, offset, length);
    ReadIntent.FieldSlices field = ReadIntent.field();
    if (field != null) {
      field.sequential.add(slice);
      field.sequentialBytes += slice.length();
    }
    return slice;
  }

  private BlobIndexInput sliceOf(String sliceDescription, long offset, long length) {
    ensureOpen();
    if (offset < 0 || length < 0 || offset > sliceEnd - sliceStart - length) {
      throw new IllegalArgumentException("slice(offset=" + offset + ", length=" + length + ") is out of bounds: " + this);
    }
    return new BlobIndexInput(getFullSliceDescription(sliceDescription), this, sliceStart + offset, sliceStart + offset + length);
  }

  /** A random-access slice is a column's, as {@link #columnSlice} says: fetched whole while a collector names it. */
  @Override
  public RandomAccessInput randomAccessSlice(long offset, long length) throws IOException {
    return columnSlice("randomaccess", offset, length);
  }

  /**
   * A slice a doc-values reader reads a column through: every random-access slice, and the sequential slices a format
   * says are a column's ({@code ColumnPrefetch.columnSlice}). Opened while {@code ColumnPrefetch} opens a field
   * ({@link ReadIntent#opening()}), it is fetched whole (up to {@link ReadIntent#MAX_COLUMN_BYTES}) or measured;
   * opened after, it reads what that call read directly from the store for this thread, if it did. A plain sequential
   * slice (a terms dictionary, read term by term) is none of this.
   */
  BlobIndexInput columnSlice(String description, long offset, long length) throws IOException {
    BlobIndexInput slice = sliceOf(description, offset, length);
    CachedBlob blob = file.cachedBlob;
    if (blob != null && slice.directRead == null) {
      // a column this thread named a moment ago (ColumnPrefetch), read directly from the store: read it from there
      slice.directRead = ReadIntent.takeDirectRead(blob, slice.sliceStart);
    }
    ReadIntent.Opening opening = ReadIntent.opening();
    if (opening != null) {
      long bytes = slice.openedAsColumn(opening);
      ReadIntent.FieldSlices field = ReadIntent.field();
      if (field != null) {
        field.columnBytes += bytes;
      }
    }
    return slice;
  }

  /**
   * Does with this slice, a column's, what {@code opening} says (fetch it whole, or measure it); returns its bytes so
   * counted, capped at {@link ReadIntent#MAX_COLUMN_BYTES}.
   */
  @Override
  public long openedAsColumn(ReadIntent.Opening opening) throws IOException {
    // A slice that runs into the file's footer has no length of its own (Lucene's doc-values jump tables are sliced
    // to the end of the file): only its head is a column's.
    long length = sliceEnd - sliceStart;
    long known = sliceEnd > file.length - CodecUtil.footerLength() ? Math.min(length, RANDOM_FILL) : length;
    long bytes = Math.min(known, ReadIntent.MAX_COLUMN_BYTES);
    switch (opening) {
      case ReadIntent.Measure m -> {
        m.wholeBytes += bytes;
        m.largestFill = Math.max(m.largestFill, baseFill);
      }
      case ReadIntent.FetchWhole whole -> {
        CachedBlob blob = file.cachedBlob;
        boolean admit = blob == null || whole.admits(bytes, blob.cacheSize());
        prefetch(0, bytes, true, whole.forThisThread, admit);
      }
    }
    return bytes;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    flushStats();
    closed = true;
    if (isMaster) {
      master.closed = true;
    }
    winStart = Long.MAX_VALUE;
    winEnd = Long.MIN_VALUE;
  }
}
