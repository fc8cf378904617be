/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The open scrolls and points in time, by id, each until its keep-alive lapses or it is closed. A lapsed cursor is
 * gone at its next use (a 404, as a closed or unknown one) and swept with the others at most once a second as cursors
 * are opened and read, so that cursors left open cost their few hundred bytes only until they lapse. At most
 * {@link #DEFAULT_MAX_OPEN} are open at once (a node's {@code search.max_open_scroll_context} is 500): one more is
 * refused with a 429, so that clients that never close theirs cannot fill the heap. Thread-safe.
 */
final class CursorRegistry {
  /** Elasticsearch's {@code search.max_keep_alive}: a day. */
  static final long MAX_KEEP_ALIVE_MILLIS = 24L * 60 * 60 * 1000;
  private static final long SWEEP_EVERY_MILLIS = 1000;
  /** How many cursors may be open at once by default: about 55 MB of heap. */
  static final int DEFAULT_MAX_OPEN = 100_000;
  private final int maxOpen;
  private final ConcurrentHashMap<String, Cursor> open = new ConcurrentHashMap<>();
  private final LongSupplier clock;
  private final AtomicLong nextSweep;

  /** A registry whose keep-alives run on {@code clock} (milliseconds). */
  CursorRegistry(LongSupplier clock) {
    this(clock, DEFAULT_MAX_OPEN);
  }

  /** A registry whose keep-alives run on {@code clock} (milliseconds), with at most {@code maxOpen} cursors open. */
  CursorRegistry(LongSupplier clock, int maxOpen) {
    assert maxOpen > 0 : maxOpen;
    this.maxOpen = maxOpen;
    this.clock = clock;
    this.nextSweep = new AtomicLong(clock.getAsLong() + SWEEP_EVERY_MILLIS);
  }

  long now() {
    return clock.getAsLong();
  }

  /** Registers {@code cursor} under a new id of its kind, and returns the id. */
  String open(Cursor cursor) {
    sweep();
    if (open.size() >= maxOpen) {
      long now = now();
      open.values().removeIf(c -> c.expired(now)); // lapsed ones make room at once
      if (open.size() >= maxOpen) {
        throw new DslException(429, "too_many_scroll_contexts_exception", "Trying to create too many scroll"
            + " contexts. Must be less than or equal to: [" + maxOpen + "]: close scrolls (DELETE /_search/scroll) and"
            + " points in time (DELETE /_pit) when done, or let them lapse");
      }
    }
    String id;
    do {
      id = CursorId.next(cursor.kind);
    } while (open.putIfAbsent(id, cursor) != null);
    return id;
  }

  /**
   * The open cursor of {@code id}, of {@code kind}: a 400 if {@code id} is not one of its kind's ids, a 404
   * ({@code search_context_missing_exception}) if it is unknown, closed or lapsed.
   */
  Cursor get(String id, CursorId.Kind kind) {
    sweep();
    String key = CursorId.parse(id, kind);
    Cursor cursor = open.get(key);
    if (cursor != null && cursor.expired(now())) {
      open.remove(key, cursor);
      cursor = null;
    }
    if (cursor == null) {
      throw missing(key);
    }
    return cursor;
  }

  /**
   * Closes {@code id}'s cursor: how many shards it read (as the node counts what it frees; 0: none was open), a 400 if
   * {@code id} is not one of {@code kind}'s ids.
   */
  int close(String id, CursorId.Kind kind) {
    String key = CursorId.parse(id, kind);
    Cursor cursor = open.remove(key);
    return cursor == null || cursor.expired(now()) ? 0 : cursor.shards.size();
  }

  /** Closes every open cursor of {@code kind}: how many shards they read. */
  int closeAll(CursorId.Kind kind) {
    long now = now();
    int closed = 0;
    for (Iterator<Cursor> it = open.values().iterator(); it.hasNext(); ) {
      Cursor c = it.next();
      if (c.kind == kind) {
        it.remove();
        closed += c.expired(now) ? 0 : c.shards.size();
      }
    }
    return closed;
  }

  /** Ends {@code id}'s cursor, as after an error that ends it. */
  void end(String id) {
    open.remove(id);
  }

  /** How many cursors are open (those lapsed since the last sweep too). */
  int size() {
    return open.size();
  }

  /** Drops lapsed cursors, at most once a second. */
  void sweep() {
    long now = now();
    long due = nextSweep.get();
    if (now - due < 0 || !nextSweep.compareAndSet(due, now + SWEEP_EVERY_MILLIS)) {
      return;
    }
    open.values().removeIf(c -> c.expired(now));
  }

  /** Elasticsearch's answer to a scroll or point in time that is not open (any more). */
  static DslException missing(String id) {
    return DslException.searchContextMissing("No search context found for id [" + id + "]");
  }
}
