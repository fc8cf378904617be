/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.store.IndexInput;

/**
 * What the current thread's reads are for, as a search's helpers say it and the inputs read it: a probe that must
 * not wait for the store, or a prefetch that must not read around the cache ({@link HitPrefetchingCollector}); doc
 * values being opened to be fetched whole or measured, and the columns read directly from the store for this thread
 * ({@link ColumnPrefetch}). Thread-locals, each looked up at most once per slow read or per slice opened, never on a
 * read of cached bytes.
 */
final class ReadIntent {
  /**
   * Thrown by a probing read whose bytes are not in the cache, and by a prefetching read of a region the cache does
   * not admit (read directly from the store, its bytes would be thrown away and read again). Never seen outside
   * the collector: no stack.
   */
  static final IOException NOT_CACHED = new IOException("not cached") {
    private static final long serialVersionUID = 1L;

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  };

  /** What a collector's reads on this thread are for: a probe that never waits, a prefetch that never reads around the cache. */
  enum Mode {
    /** A read that would wait for the store, or read what this thread's work is fetching, throws {@link #NOT_CACHED}. */
    PROBE,
    /**
     * A probe that reads what this thread's work fetched, waiting for it if it is on its way (no request: the fetch is
     * registered), and throws {@link #NOT_CACHED} for anything else not cached: a probe again once the bytes its last
     * misses asked for are in, which finds the next level of what is missing whatever the timing.
     */
    PROBE_PAST_FETCHED,
    /** A read whose region the cache does not admit throws {@link #NOT_CACHED} (it would be thrown away and read again). */
    PREFETCH
  }

  /** The most bytes of one slice of a column that are fetched whole ({@code ColumnPrefetch.MAX_COLUMN_BYTES}). */
  static final long MAX_COLUMN_BYTES = 16L << 20;

  private static final ThreadLocal<Mode> MODE = new ThreadLocal<>();
  /** What opening doc values on this thread does with their columns' slices (BlobIndexInput#columnSlice), or null. */
  private static final ThreadLocal<Opening> OPENING = new ThreadLocal<>();
  /**
   * The columns this thread's last {@link ColumnPrefetch} call read directly from the store (the cache did not admit
   * them), each until the doc values a collector opens next, on the same thread, take it. Dropped at the next call:
   * until then a column no collector opened holds its share of the cache's scan budget.
   */
  private static final ThreadLocal<List<DirectColumn>> STARTED = new ThreadLocal<>();
  /**
   * How many of the thread-locals a slice being opened looks at ({@link #OPENING}, {@link #FIELD}, {@link #STARTED})
   * are set, over all threads. At 0 (a search that names no columns, on any thread) a slice looks none up: a thread
   * that set one counted it here first, so it never reads 0 while its own is set. One a thread dies with stays
   * counted, which costs only the look-ups.
   */
  private static final AtomicInteger SLICE_INTENTS = new AtomicInteger();
  /** The columns the call being made wants read directly from the store, started together at its end. */
  private static final ThreadLocal<List<Wanted>> WANTED = new ThreadLocal<>();

  /** A column beginning at {@code column} (absolute) of {@code blob}, and the read that holds its refused stretch. */
  private record DirectColumn(CachedBlob blob, DirectRead read, long column) {}

  /** [from, to) of {@code file}, refused by the cache, of the column beginning at {@code column}. */
  private record Wanted(IndexFile file, long column, long from, long to) {}

  /** What opening doc values does with their columns' slices: fetch them whole, or measure them. */
  sealed interface Opening permits FetchWhole, Measure {}

  /**
   * Fetch each slice whole (up to {@link #MAX_COLUMN_BYTES}), for one call of {@code ColumnPrefetch}: for a collector
   * on this thread ({@link #forThisThread()}), or into the cache only, for reads on other threads
   * ({@link #intoCache()}). One per call: it counts the bytes of the columns the call names.
   */
  static final class FetchWhole implements Opening {
    /**
     * For a collector on this thread: what the cache does not admit is read directly from the store for it. Otherwise
     * into the cache only: what it does not admit is left.
     */
    final boolean forThisThread;
    /** The bytes of the columns this call named so far. */
    private long named;

    private FetchWhole(boolean forThisThread) {
      this.forThisThread = forThisThread;
    }

    /** For a collector on this thread: what the cache does not admit is read directly from the store for it. */
    static FetchWhole forThisThread() {
      return new FetchWhole(true);
    }

    /** Into the cache only, for reads on other threads: what the cache does not admit is left. */
    static FetchWhole intoCache() {
      return new FetchWhole(false);
    }

    /**
     * Counts a column of {@code bytes} that this call names, of a blob cached in a cache of {@code cacheBytes};
     * returns whether the cache may take new regions for it: unless it is read for this thread and takes the call's
     * columns past {@link #COLUMN_SHARE_OF_CACHE} of the cache (then only what is cached already is read from there,
     * and the rest directly from the store, as what the cache refuses).
     */
    boolean admits(long bytes, long cacheBytes) {
      named += bytes;
      return !forThisThread || named <= cacheBytes / COLUMN_SHARE_OF_CACHE;
    }
  }

  /**
   * The columns one {@code ColumnPrefetch} call names for this thread take at most one over this of the cache
   * (half). A cache that cannot take a search's columns whole does not save their wave on the next search (what it
   * does not hold is read in that wave anyway), and the regions it does take are held for the search's readers until
   * its part ends: were they the whole cache, what the readers wait for after the columns (a term's block, its
   * postings, a tree's leaves) would find nothing to evict, be read directly, and cost the next search a wave each.
   */
  static final int COLUMN_SHARE_OF_CACHE = 2;

  /** Measure each slice, fetching nothing: what fetching them whole would bring, and the fill one read starts. */
  static final class Measure implements Opening {
    /** The bytes fetching the slices whole would bring. */
    long wholeBytes;
    /** The largest fill one read of a value starts. */
    long largestFill;
  }

  private ReadIntent() {}

  // ---- probes and prefetches ----

  /** Sets this thread's mode (null: none); returns the one before, for {@link #mode(Mode)} to restore. */
  static Mode mode(Mode mode) {
    Mode outer = MODE.get();
    if (mode == null) {
      MODE.remove();
    } else {
      MODE.set(mode);
    }
    return outer;
  }

  /** Whether this thread's reads are probes: a read that would wait for the store throws {@link #NOT_CACHED}. */
  static boolean probing() {
    return MODE.get() == Mode.PROBE;
  }

  /** Whether this thread's reads are {@link Mode#PROBE_PAST_FETCHED} probes. */
  static boolean probingPastFetched() {
    return MODE.get() == Mode.PROBE_PAST_FETCHED;
  }

  /** Whether this thread's reads are prefetches: a region the cache does not admit throws {@link #NOT_CACHED}. */
  static boolean prefetching() {
    return MODE.get() == Mode.PREFETCH;
  }

  // ---- what a probe missed ----

  /**
   * Where a probe missed (threw {@link #NOT_CACHED}): the bytes of {@code input} from {@code offset} that the read
   * following it would fetch first, {@code length} of them, or none (0) if they are on their way already (this
   * thread's work is fetching them). Asked for together ({@link #prefetchQuietly} in one {@link PrefetchBatch}), the
   * misses of one blob cost as few requests as their gaps allow, where the reads each started a fetch of their own.
   */
  record ProbeMiss(IndexInput input, long offset, long length) {
    /**
     * Asks for the bytes (in the thread's {@link PrefetchBatch}, if one is open), if any; false if that failed (then
     * there is nothing to wait for).
     */
    boolean prefetchQuietly() {
      if (length == 0) {
        return true; // on its way
      }
      try {
        input.prefetch(offset, length);
        return true;
      } catch (IOException | RuntimeException e) {
        return false; // the read that needs them fetches again and reports what is wrong
      }
    }

    /**
     * Waits until the bytes are readable, every one of them (what lands first tells nothing of the rest: a probe
     * after this finds all of them, whatever the timing), or the first if none were asked for; reads them as a
     * prefetch ({@link Mode#PREFETCH}: a region the cache does not admit is not read around it). A failure is left
     * to the read that needs the bytes.
     */
    void awaitQuietly(byte[] scratch) {
      assert prefetching();
      try {
        IndexInput in = input.clone();
        in.seek(offset);
        for (long left = Math.max(1, length); left > 0; ) {
          int n = (int) Math.min(left, scratch.length);
          in.readBytes(scratch, 0, n);
          left -= n;
        }
      } catch (IOException | RuntimeException e) {
        // the read that needs the bytes fetches again and reports what is wrong
      }
    }
  }

  private static final ThreadLocal<ProbeMiss> PROBE_MISS = new ThreadLocal<>();

  /** Notes where this thread's probe missed, as it throws {@link #NOT_CACHED}. */
  static void probeMissed(IndexInput input, long offset, long length) {
    assert probing() || probingPastFetched();
    PROBE_MISS.set(new ProbeMiss(input, offset, length));
  }

  /** Where this thread's last probe missed, forgotten here; null if none did since the last call. */
  static ProbeMiss takeProbeMiss() {
    ProbeMiss miss = PROBE_MISS.get();
    if (miss != null) {
      PROBE_MISS.remove();
    }
    return miss;
  }

  // ---- opening columns ----

  /** What columns' slices opened by this thread now are for, or null for nothing. */
  static Opening opening() {
    return SLICE_INTENTS.get() == 0 ? null : OPENING.get();
  }

  /** Sets what opening slices is for (null: nothing); returns what it was, for {@link #opening(Opening)} to restore. */
  static Opening opening(Opening what) {
    Opening outer = OPENING.get();
    if (what == null) {
      OPENING.remove();
    } else {
      OPENING.set(what);
    }
    counted(outer != null, what != null);
    return outer;
  }

  /** Counts a slice's thread-local that was set ({@code before}) and now is or is not ({@code after}). */
  private static void counted(boolean before, boolean after) {
    if (before != after) {
      SLICE_INTENTS.addAndGet(after ? 1 : -1);
    }
  }

  // ---- one field's slices ----

  /**
   * The slices opened while {@code ColumnPrefetch} opens one field's doc values: the bytes of its columns' slices, and
   * its plain sequential slices (Lucene's terms dictionary of a sorted field and that dictionary's index, read term by
   * term). The plain ones are a column's too when they are no larger than its columns ({@link #sequentialAreColumns}),
   * as in Elasticsearch's TSDB format: a collector that names a keyword (a terms aggregation) reads every ordinal,
   * then turns its buckets' ordinals into terms, and a dictionary fetched with the ordinals costs no request of its
   * own, at most doubling their bytes, where looking terms up costs an address, then a block, then the next.
   */
  static final class FieldSlices {
    /** The bytes of the field's column slices, as they are fetched (capped at {@link #MAX_COLUMN_BYTES} each). */
    long columnBytes;
    /** The bytes of its plain sequential slices. */
    long sequentialBytes;
    /** Its plain sequential slices, in the order opened. */
    final List<SequentialSlice> sequential = new ArrayList<>(2);

    /** Whether the plain sequential slices are to be fetched as the field's columns are: some, no larger than those. */
    boolean sequentialAreColumns() {
      return sequentialBytes > 0 && sequentialBytes <= columnBytes;
    }
  }

  /** A plain sequential slice opened as a field's: fetched whole or measured as the field's columns are, or read ahead. */
  interface SequentialSlice {
    /** Does with the slice what {@code opening} says, as with a column's; returns its bytes so counted. */
    long openedAsColumn(Opening opening) throws IOException;

    /** Starts fetching all of it, which this thread's work will read ({@code ColumnPrefetch.willRead}). */
    void willReadAll() throws IOException;
  }

  /** The field whose doc values this thread is opening for {@code ColumnPrefetch}, or null. */
  private static final ThreadLocal<FieldSlices> FIELD = new ThreadLocal<>();

  /** The field this thread is opening the doc values of (its slices are noted there), or null. */
  static FieldSlices field() {
    return SLICE_INTENTS.get() == 0 ? null : FIELD.get();
  }

  /** Sets the field being opened (null: none); returns the one before, for {@link #field(FieldSlices)} to restore. */
  static FieldSlices field(FieldSlices field) {
    FieldSlices outer = FIELD.get();
    if (field == null) {
      FIELD.remove();
    } else {
      FIELD.set(field);
    }
    counted(outer != null, field != null);
    return outer;
  }

  /** Forgets the columns this thread's last call read directly from the store: its collectors have opened them. */
  static void forgetStarted() {
    if (STARTED.get() != null) {
      STARTED.remove();
      counted(true, false);
    }
  }

  /**
   * Notes that [{@code from}, {@code to}) of {@code file}, the part the cache refused of the column beginning at
   * {@code column}, is to be read directly from the store for this thread, by {@link #startWanted}.
   */
  static void wantDirect(IndexFile file, long column, long from, long to) {
    List<Wanted> wanted = WANTED.get();
    if (wanted == null) {
      WANTED.set(wanted = new ArrayList<>(4));
    }
    wanted.add(new Wanted(file, column, from, to));
  }

  /**
   * Starts the direct reads this thread wanted since the last call, one request for each stretch of a blob that the
   * columns' parts cover without a gap (aligned for verification, so that two columns never fetch the same chunk) or
   * with gaps of at most a region in all ({@link CachedBlob#directGapBytes}: a cached region between a keyword's
   * ordinals and its terms dictionary); the stretch takes in the fills of admitted regions that this thread's open
   * {@link PrefetchBatch} holds amid or beside it (a column's admitted first regions), by the same rule, so that they
   * come in its request instead of one of their own ({@link CachedBlob#startDirectRead}). Keeps each column's read for
   * its collector ({@link #takeDirectRead}). Called before the batch closes.
   */
  static void startWanted() {
    List<Wanted> wanted = WANTED.get();
    WANTED.remove();
    if (wanted == null) {
      return;
    }
    assert PrefetchBatch.isOpen() : "the fills a direct read takes in are held by the caller's batch";
    List<DirectColumn> started = STARTED.get();
    if (started == null) {
      STARTED.set(started = new ArrayList<>(wanted.size()));
      counted(false, true);
    }
    wanted.sort((a, b) -> a.file.cachedBlob != b.file.cachedBlob
        ? Long.compare(a.file.cachedBlob.id, b.file.cachedBlob.id) : Long.compare(a.from, b.from));
    for (int i = 0; i < wanted.size(); ) {
      Wanted first = wanted.get(i);
      CachedBlob blob = first.file.cachedBlob;
      List<Filler.Piece> held = PrefetchBatch.held(blob.checksums);
      List<Filler.Piece> absorbed = new ArrayList<>();
      long left = blob.directGapBytes(first.file.bridgedGap());
      long from = first.from;
      long to = first.to;
      int j = i + 1;
      for (;;) { // take in the nearest of the next column and the held fills, while the gaps allow
        long columnGap = j < wanted.size() && wanted.get(j).file.cachedBlob == blob
            ? blob.gapBetween(from, to, wanted.get(j).from, wanted.get(j).to) : Long.MAX_VALUE;
        Filler.Piece piece = null;
        long pieceGap = Long.MAX_VALUE;
        for (Filler.Piece p : held) {
          long gap = blob.gapBetween(from, to, p.start(), p.end());
          if (gap < pieceGap) {
            piece = p;
            pieceGap = gap;
          }
        }
        long gap = Math.min(columnGap, pieceGap);
        if (gap > left) {
          break;
        }
        left -= Math.max(0, gap);
        if (columnGap <= pieceGap) {
          to = Math.max(to, wanted.get(j).to);
          j++;
        } else {
          held.remove(piece);
          absorbed.add(piece);
          from = Math.min(from, piece.start());
          to = Math.max(to, piece.end());
        }
      }
      DirectRead read = blob.startDirectRead(first.file.directReadBudget, first.file, from, to, absorbed);
      if (read != null) {
        for (int k = i; k < j; k++) {
          started.add(new DirectColumn(blob, read, wanted.get(k).column));
        }
      }
      i = j;
    }
  }

  /**
   * Hands over the column beginning at {@code column} (absolute) of {@code blob} that this thread's last call read
   * directly from the store, to the input about to read it (the thread forgets it), or null.
   */
  static DirectRead takeDirectRead(CachedBlob blob, long column) {
    if (SLICE_INTENTS.get() == 0) {
      return null;
    }
    List<DirectColumn> reads = STARTED.get();
    if (reads != null && OPENING.get() == null) {
      for (int i = 0; i < reads.size(); i++) {
        DirectColumn r = reads.get(i);
        if (r.blob == blob && r.column == column) {
          return reads.remove(i).read;
        }
      }
    }
    return null;
  }
}
