/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prefetches asked for on this thread while a batch is open (Lucene's {@code IndexInput.prefetch}, a stored-fields
 * reader's {@code prefetch(doc)}, {@link ColumnPrefetch}) are fetched together when it closes: the ranges of one blob
 * in one request for each run of them that the store policy's model says to read across
 * ({@link dev.permafrost.blob.StorePolicy#bridgedGapBytes()}), rather than one request each. For a search that names
 * what it will read in several calls (the hits' stored-field blocks one by one, a segment's columns field by field):
 *
 * <pre>{@code
 * try (PrefetchBatch batch = PrefetchBatch.open()) {
 *   for (ScoreDoc hit : hits) {
 *     storedFields.prefetch(hit.doc);
 *   }
 * }
 * }</pre>
 *
 * <p>Nothing is fetched until the batch closes, or until this thread must wait for the store (a read of bytes that
 * are not cached queues the batch's fetches first, so that a reader never waits for a fetch its own thread holds
 * back). Batches nest: the outermost one's close queues them. A batch belongs to the thread that opened it; closing
 * it never blocks. On a directory other than a {@link BlobDirectory} it does nothing.
 */
public final class PrefetchBatch implements AutoCloseable {
  private static final ThreadLocal<PrefetchBatch> OPEN = new ThreadLocal<>();

  /** A blob's pieces asked for by one file (its store, deadlines and counters). */
  private record Key(BlobChecksums blob, FetchOrigin origin) {}

  /** The pieces held for one key, and the filler of the cache they are for. */
  private record Held(Filler filler, List<Filler.Piece> pieces) {}

  private final Thread owner = Thread.currentThread();
  private final Map<Key, Held> pending = new LinkedHashMap<>();
  private int depth;

  private PrefetchBatch() {}

  /** Opens a batch on this thread (or joins the one open already); close it in a {@code finally}. */
  public static PrefetchBatch open() {
    PrefetchBatch batch = OPEN.get();
    if (batch == null) {
      OPEN.set(batch = new PrefetchBatch());
    }
    batch.depth++;
    return batch;
  }

  /** Queues the fetches of what was prefetched since the batch opened, if this is its outermost close. */
  @Override
  public void close() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("a prefetch batch is closed by the thread that opened it, " + owner.getName()
          + ", not " + Thread.currentThread().getName());
    }
    if (depth == 0) {
      return; // closed already
    }
    if (--depth == 0) {
      OPEN.remove();
      queueAll();
    }
  }

  /**
   * Holds {@code pieces} (registered fills of {@code blob}, for {@code filler} to queue) for this thread's open batch
   * and returns true, or returns false if none is open (the caller queues them now).
   */
  static boolean hold(Filler filler, BlobChecksums blob, FetchOrigin origin, List<Filler.Piece> pieces) {
    PrefetchBatch batch = OPEN.get();
    if (batch == null) {
      return false;
    }
    if (!pieces.isEmpty()) {
      batch.pending.computeIfAbsent(new Key(blob, origin), k -> new Held(filler, new ArrayList<>())).pieces.addAll(pieces);
    }
    return true;
  }

  /**
   * Queues what this thread's open batch holds, before the thread waits for the store: a fill it held back could be
   * the one it waits for. Cheap when nothing is held (one thread-local look-up, on a read that misses the cache).
   */
  static void queueHeld() {
    PrefetchBatch batch = OPEN.get();
    if (batch != null && !batch.pending.isEmpty()) {
      batch.queueAll();
    }
  }

  /**
   * A copy of the pieces of {@code blob} that this thread's open batch holds, for any file; none if no batch is open.
   */
  static List<Filler.Piece> held(BlobChecksums blob) {
    PrefetchBatch batch = OPEN.get();
    List<Filler.Piece> pieces = new ArrayList<>();
    if (batch != null) {
      for (Map.Entry<Key, Held> e : batch.pending.entrySet()) {
        if (e.getKey().blob == blob) {
          pieces.addAll(e.getValue().pieces);
        }
      }
    }
    return pieces;
  }

  /**
   * Takes {@code pieces} ({@link #held} by this thread's open batch) out of it, unqueued: the caller withdraws their
   * fills, whose bytes a read it starts brings.
   */
  static void remove(List<Filler.Piece> pieces) {
    PrefetchBatch batch = OPEN.get();
    if (pieces.isEmpty() || batch == null) {
      return;
    }
    for (Held held : batch.pending.values()) {
      held.pieces.removeAll(pieces);
    }
  }

  /** Whether this thread has a batch open. */
  static boolean isOpen() {
    return OPEN.get() != null;
  }

  private void queueAll() {
    List<Map.Entry<Key, Held>> all = new ArrayList<>(pending.entrySet());
    pending.clear();
    for (Map.Entry<Key, Held> e : all) {
      // never blocks: a closed cache ends the fills
      e.getValue().filler.start(e.getValue().pieces, e.getKey().blob, e.getKey().origin);
    }
  }
}
