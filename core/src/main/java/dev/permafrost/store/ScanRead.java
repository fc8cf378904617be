/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stretch of a file that a scan will read and the cache does not admit, read straight from the store in one
 * request as soon as the scan is known (see {@link ColumnPrefetch}), into heap bytes for the columns' readers: the
 * inputs the collector then opens on the same thread for those columns (and their clones) hold it, and read from it
 * without waiting region by region. Columns of one call whose stretches overlap or touch share one read
 * ({@link ReadIntent#startWanted}), so no byte is fetched twice. The bytes are verified as any fetch's, and counted
 * against the cache's {@link ScanBudget} until the work that started the read is done ({@link ReadCost#settle}: an
 * index's part of a catalog search), or, for reads made outside such work, until no input refers to the read.
 *
 * <p>A released read holds no position any more: an input that still refers to it (a clone kept past its query)
 * reads the usual way, through the cache, from its next move on; the bytes it holds in its window stay right.
 */
final class ScanRead implements CachedBlob.StraightRead, ReadCost.Held {
  private static final Cleaner CLEANER = Cleaner.create(r -> {
    Thread t = new Thread(r, "permafrost-scan-buffers");
    t.setDaemon(true);
    return t;
  });

  final CachedBlob blob;
  /** The first byte and the end (absolute file positions, aligned for verification) of what this read covers. */
  final long start;
  final long end;
  private final Filler.DirectTask task;
  /** The read's share of the budget, given back once: by {@link #release}, or by the cleaner. */
  private final Reservation reservation;
  private volatile HeapWindow window;
  private volatile boolean released;

  private ScanRead(CachedBlob blob, Filler.DirectTask task, Reservation reservation) {
    this.blob = blob;
    this.task = task;
    this.reservation = reservation;
    this.start = task.from;
    this.end = task.to;
  }

  /** Bytes taken from a budget, given back by whichever comes first: the work's end or the read's collection. */
  private static final class Reservation implements Runnable {
    private final ScanBudget budget;
    private final AtomicLong bytes;

    Reservation(ScanBudget budget, long bytes) {
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
   * Starts reading [{@code from}, {@code to}) of {@code file}'s blob straight from the store, or returns null if the
   * cache's budget has no room (or it is closed): the scan then reads those regions as it goes.
   */
  static ScanRead start(BlobFile file, long from, long to) {
    CachedBlob blob = file.cachedBlob;
    ScanBudget budget = file.scanBudget;
    long start = blob.checksums.fetchStart(from);
    long end = blob.checksums.fetchEnd(to);
    long bytes = end - start;
    if (!budget.take(bytes)) {
      return null;
    }
    Filler.DirectTask task = blob.startDirect(start, end, file);
    if (task == null) {
      budget.giveBack(bytes);
      return null;
    }
    Reservation reservation = new Reservation(budget, bytes);
    ScanRead read = new ScanRead(blob, task, reservation);
    CLEANER.register(read, reservation);
    blob.addStraightRead(read);
    ReadCost cost = ReadCost.current();
    if (cost != null) {
      cost.releaseWhenSettled(read);
    }
    return read;
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

  @Override
  public boolean holds(long p) {
    return p >= start && p < end && !released;
  }

  @Override
  public long from() {
    return start;
  }

  @Override
  public long to() {
    return end;
  }

  @Override
  public boolean failed() {
    return task.result.isCompletedExceptionally();
  }

  @Override
  public boolean ready() {
    return task.result.isDone() && !task.result.isCompletedExceptionally();
  }

  /**
   * The bytes of [{@link #start}, {@link #end}), waiting for them until the reader's deadline; null if the read was
   * called off (every reader gave up once): the caller reads as if there were no scan read.
   */
  @Override
  public HeapWindow await() throws IOException {
    HeapWindow w = window;
    if (w == null) {
      byte[] bytes;
      try {
        bytes = blob.awaitDirect(task);
      } catch (FetchTask.Cancelled e) {
        return null;
      }
      w = new HeapWindow(bytes);
      if (window == null) {
        window = w;
        blob.offerAdmitted(bytes, start, end); // regions the cache admitted amid the stretch: filled without a fetch
      }
    }
    return w;
  }
}
