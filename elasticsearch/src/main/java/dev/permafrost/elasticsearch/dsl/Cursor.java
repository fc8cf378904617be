/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.util.List;
import java.util.Map;

/**
 * An open scroll or point in time: the shards it reads, pinned to the snapshots they were mounted from, how long it
 * stays open unread, and for a scroll the request and where it stands. Nothing else: no reader, no searcher, no hit is
 * held between pages (a snapshot never changes, so the same position over the same snapshots finds the same next
 * page whenever it is asked). A few hundred bytes of heap plus the request's text.
 *
 * <p>Thread-safety: a scroll's pages are read one at a time ({@code synchronized} on the cursor by
 * {@link CursorApi}); {@link #expiresAt} is read without the lock by the registry's sweep.
 */
final class Cursor {
  final CursorId.Kind kind;
  /** The shards read, in the order of their ordinals ({@code _shard_doc}'s upper half). */
  final List<PinnedShard> shards;
  /** A scroll's request body as JSON text, without the aggregations of its first page; null for a point in time. */
  final String request;
  /** A scroll's URL parameters, without {@code scroll}; empty for a point in time. */
  final Map<String, String> parameters;
  private long keepAliveMillis;
  private volatile long expiresAt;
  /** Where a scroll stands: after this hit (null: no hit yet). */
  private CursorPosition position;

  Cursor(CursorId.Kind kind, List<PinnedShard> shards, String request, Map<String, String> parameters,
      long keepAliveMillis, long now) {
    assert (kind == CursorId.Kind.SCROLL) == (request != null);
    this.kind = kind;
    this.shards = List.copyOf(shards);
    this.request = request;
    this.parameters = Map.copyOf(parameters);
    keepAlive(keepAliveMillis, now);
  }

  /** Open for {@code millis} more from {@code now}; later reads that give none keep this one. */
  synchronized void keepAlive(long millis, long now) {
    assert millis > 0 : millis;
    keepAliveMillis = millis;
    expiresAt = now + millis;
  }

  /** Open for the last keep-alive from {@code now}. */
  synchronized void touch(long now) {
    expiresAt = now + keepAliveMillis;
  }

  boolean expired(long now) {
    return now - expiresAt > 0;
  }

  synchronized CursorPosition position() {
    return position;
  }

  /** After {@code last}, if a page found a hit; else where it was. */
  synchronized void advance(CursorPosition last) {
    if (last != null) {
      position = last;
    }
  }

  /** The shards' catalog names, in ordinal order. */
  List<String> shardNames() {
    return shards.stream().map(PinnedShard::shard).toList();
  }
}
