/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the current thread's reads are for, as a search's helpers say it and the inputs read it: a probe that must
 * not wait for the store, or a prefetch that must not read around the cache ({@link HitPrefetchingCollector}); doc
 * values being opened to be fetched whole or measured, and the columns read straight from the store for this thread
 * ({@link ColumnPrefetch}). Thread-locals, each looked up at most once per slow read or per slice opened, never on a
 * read of cached bytes.
 */
final class ReadIntent {
  /**
   * Thrown by a probing read whose bytes are not in the cache, and by a prefetching read of a region the cache does
   * not admit (read straight from the store, its bytes would be thrown away and read again). Never seen outside
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
  enum Mode { PROBE, PREFETCH }

  private static final ThreadLocal<Mode> MODE = new ThreadLocal<>();
  /**
   * What opening doc values on this thread does with their random-access slices, or null for nothing: TRUE, fetch
   * them whole for a collector on this thread (what the cache does not admit is read straight from the store, for
   * it); FALSE, fetch them whole into the cache only, for reads on other threads; a {@code long[]}, measure them
   * ({bytes a whole fetch would bring, the fill of one read}). One thread-local, looked up once per slice.
   */
  private static final ThreadLocal<Object> OPENING = new ThreadLocal<>();
  /**
   * The columns this thread's last {@link ColumnPrefetch} call read straight from the store (the cache did not admit
   * them), each until the doc values a collector opens next, on the same thread, take it. Dropped at the next call:
   * until then a column no collector opened holds its share of the cache's scan budget.
   */
  private static final ThreadLocal<List<StraightColumn>> STARTED = new ThreadLocal<>();
  /** The columns the call being made wants read straight from the store, started together at its end. */
  private static final ThreadLocal<List<Wanted>> WANTED = new ThreadLocal<>();

  /** A column beginning at {@code column} (absolute) of its blob, and the read that holds its refused stretch. */
  private record StraightColumn(ScanRead read, long column) {}

  /** [from, to) of {@code file}, refused by the cache, of the column beginning at {@code column}. */
  private record Wanted(BlobFile file, long column, long from, long to) {}

  private ReadIntent() {}

  // ---- probes and prefetches ----

  /** Sets this thread's mode (null: none). */
  static void mode(Mode mode) {
    if (mode == null) {
      MODE.remove();
    } else {
      MODE.set(mode);
    }
  }

  /** Whether this thread's reads are probes: a read that would wait for the store throws {@link #NOT_CACHED}. */
  static boolean probing() {
    return MODE.get() == Mode.PROBE;
  }

  /** Whether this thread's reads are prefetches: a region the cache does not admit throws {@link #NOT_CACHED}. */
  static boolean prefetching() {
    return MODE.get() == Mode.PREFETCH;
  }

  // ---- opening columns ----

  /**
   * What random-access slices opened by this thread now are for: null, nothing; TRUE or FALSE, to be fetched whole
   * (TRUE: what the cache does not admit is read straight from the store for this thread); a {@code long[]}, to be
   * measured (add the bytes a whole fetch would bring to [0], the largest fill of one read to [1]).
   */
  static Object opening() {
    return OPENING.get();
  }

  /** Sets what opening slices is for (null: nothing); returns what it was, for {@link #opening(Object)} to restore. */
  static Object opening(Object what) {
    Object outer = OPENING.get();
    if (what == null) {
      OPENING.remove();
    } else {
      OPENING.set(what);
    }
    return outer;
  }

  /** Forgets the columns this thread's last call read straight from the store: its collectors have opened them. */
  static void forgetStarted() {
    STARTED.remove();
  }

  /**
   * Notes that [{@code from}, {@code to}) of {@code file}, the part the cache refused of the column beginning at
   * {@code column}, is to be read straight from the store for this thread, by {@link #startWanted}.
   */
  static void wantStraight(BlobFile file, long column, long from, long to) {
    List<Wanted> wanted = WANTED.get();
    if (wanted == null) {
      WANTED.set(wanted = new ArrayList<>(4));
    }
    wanted.add(new Wanted(file, column, from, to));
  }

  /**
   * Starts the straight reads this thread wanted since the last call, one request for each stretch of a blob that the
   * columns' parts cover without a gap (aligned for verification, so that two columns never fetch the same chunk),
   * and keeps each column's read for its collector ({@link #takeStraightRead}).
   */
  static void startWanted() {
    List<Wanted> wanted = WANTED.get();
    WANTED.remove();
    if (wanted == null) {
      return;
    }
    List<StraightColumn> started = STARTED.get();
    if (started == null) {
      STARTED.set(started = new ArrayList<>(wanted.size()));
    }
    wanted.sort((a, b) -> a.file.cachedBlob != b.file.cachedBlob
        ? Long.compare(a.file.cachedBlob.id, b.file.cachedBlob.id) : Long.compare(a.from, b.from));
    for (int i = 0; i < wanted.size(); ) {
      Wanted first = wanted.get(i);
      CachedBlob blob = first.file.cachedBlob;
      long to = blob.checksums.fetchEnd(first.to);
      int j = i + 1;
      for (; j < wanted.size() && wanted.get(j).file.cachedBlob == blob
          && blob.checksums.fetchStart(wanted.get(j).from) <= to; j++) {
        to = Math.max(to, blob.checksums.fetchEnd(wanted.get(j).to));
      }
      ScanRead read = ScanRead.start(first.file, first.from, to);
      if (read != null) {
        for (int k = i; k < j; k++) {
          started.add(new StraightColumn(read, wanted.get(k).column));
        }
      }
      i = j;
    }
  }

  /**
   * Hands over the column beginning at {@code column} (absolute) of {@code blob} that this thread's last call read
   * straight from the store, to the input about to read it (the thread forgets it), or null.
   */
  static ScanRead takeStraightRead(CachedBlob blob, long column) {
    List<StraightColumn> reads = STARTED.get();
    if (reads != null && OPENING.get() == null) {
      for (int i = 0; i < reads.size(); i++) {
        StraightColumn r = reads.get(i);
        if (r.read.blob == blob && r.column == column) {
          return reads.remove(i).read;
        }
      }
    }
    return null;
  }
}
