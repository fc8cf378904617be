/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stretch of a file that a scan will read and the cache does not admit, read directly from the store in one
 * request ({@link CachedBlob#startDirectRead}, awaited through {@link CachedBlob#awaitDirectRead}) as soon as the
 * scan is known (see {@link ColumnPrefetch}), into heap bytes for the columns' readers: the
 * inputs the collector then opens on the same thread for those columns (and their clones) hold it, and read from it
 * without waiting region by region. Columns of one call whose stretches overlap or touch share one read
 * ({@link ReadIntent#startWanted}), so no byte is fetched twice. The bytes are verified as any fetch's, and counted
 * against the cache's {@link DirectReadBudget} until the work that started the read is done ({@link ReadCost#settle}: an
 * index's part of a catalog search), or, for reads made outside such work, until no input refers to the read.
 *
 * <p>A released read holds no position any more: an input that still refers to it (a clone kept past its query)
 * reads the usual way, through the cache, from its next move on; the bytes it holds in its window stay right.
 */
final class DirectRead implements ReadCost.Held {
  private static final Cleaner CLEANER = Cleaner.create(r -> {
    Thread t = new Thread(r, "permafrost-scan-buffers");
    t.setDaemon(true);
    return t;
  });

  /** The first byte and the end (absolute file positions, aligned for verification) of what this read covers. */
  final long start;
  final long end;
  final Filler.DirectTask task;
  /** The read's share of the budget, given back once: by {@link #release}, or by the cleaner. */
  private final Reservation reservation;
  /** The bytes, once in and verified (set once, by the first reader that waited for them). */
  volatile HeapWindow window;
  private volatile boolean released;

  /**
   * A read of {@code task}'s stretch that holds {@code bytes} of {@code budget} until it is released (or collected);
   * released when the current work settles, if there is one.
   */
  DirectRead(Filler.DirectTask task, DirectReadBudget budget, long bytes) {
    this.task = task;
    this.start = task.from;
    this.end = task.to;
    this.reservation = new Reservation(budget, bytes);
    CLEANER.register(this, reservation);
    ReadCost cost = ReadCost.current();
    if (cost != null) {
      cost.releaseWhenSettled(this);
    }
  }

  /** Bytes taken from a budget, given back by whichever comes first: the work's end or the read's collection. */
  private static final class Reservation implements Runnable {
    private final DirectReadBudget budget;
    private final AtomicLong bytes;

    Reservation(DirectReadBudget budget, long bytes) {
      this.budget = budget;
      this.bytes = new AtomicLong(bytes);
    }

    @Override
    public void run() {
      long b = bytes.getAndSet(0);
      if (b != 0) {
        budget.giveBack(b);
      }
    }
  }

  /**
   * The work that started the read is done: its share of the budget is given back now, and no input moves into it
   * any more (see the class description). Idempotent.
   */
  @Override
  public void release() {
    released = true;
    reservation.run();
  }

  /** Whether blob position {@code p} is in [{@link #start}, {@link #end}) and the read is not released. */
  boolean holds(long p) {
    return p >= start && p < end && !released;
  }

  /** Whether the read failed or was called off (its bytes will never be in). */
  boolean failed() {
    return task.result.isCompletedExceptionally();
  }

  /** Whether the bytes are on their way: neither in nor failed. */
  boolean coming() {
    return !task.result.isDone();
  }

  /** Whether the bytes are in (a reader asking now does not wait). */
  boolean ready() {
    return task.result.isDone() && !task.result.isCompletedExceptionally();
  }
}
