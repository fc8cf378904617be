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
  private static final ThreadLocal<List<ScanRead>> STARTED = new ThreadLocal<>();

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

  /** Notes a column read straight from the store for this thread (null: none was started). */
  static void started(ScanRead read) {
    if (read != null) {
      List<ScanRead> reads = STARTED.get();
      if (reads == null) {
        STARTED.set(reads = new ArrayList<>(4));
      }
      reads.add(read);
    }
  }

  /**
   * Hands over the column beginning at {@code column} (absolute) of {@code blob} that this thread's last call read
   * straight from the store, to the input about to read it (the thread forgets it), or null.
   */
  static ScanRead takeStraightRead(CachedBlob blob, long column) {
    List<ScanRead> reads = STARTED.get();
    if (reads != null && OPENING.get() == null) {
      for (int i = 0; i < reads.size(); i++) {
        ScanRead r = reads.get(i);
        if (r.blob == blob && r.column == column) {
          return reads.remove(i);
        }
      }
    }
    return null;
  }
}
