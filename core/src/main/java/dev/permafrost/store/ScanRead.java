/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stretch of a file that a scan will read and the cache does not admit, read straight from the store in one
 * request as soon as the scan is known (see {@link ColumnPrefetch}), into heap bytes for the column's readers: the
 * inputs the collector then opens on the same thread for that column (and their clones) hold it, and read from it
 * without waiting region by region. The bytes are verified as any fetch's, and counted against the cache's
 * {@link Budget} until no input refers to the read.
 */
final class ScanRead {
  private static final Cleaner CLEANER = Cleaner.create(r -> {
    Thread t = new Thread(r, "permafrost-scan-buffers");
    t.setDaemon(true);
    return t;
  });

  final CachedBlob blob;
  /** Where the column this read is for begins (absolute): the input opened there next takes it. */
  final long column;
  /** The first byte and the end (absolute file positions, aligned for verification) of what this read covers. */
  final long start;
  final long end;
  private final Filler.DirectTask task;
  private volatile HeapWindow window;

  private ScanRead(CachedBlob blob, long column, Filler.DirectTask task) {
    this.blob = blob;
    this.column = column;
    this.task = task;
    this.start = task.from;
    this.end = task.to;
  }

  /**
   * Starts reading [{@code from}, {@code to}) of {@code blob}, part of the column that begins at {@code column},
   * straight from the store, or returns null if the cache's budget has no room (or it is closed): the scan then
   * reads those regions as it goes.
   */
  static ScanRead start(CachedBlob blob, long column, BlobFile file, long from, long to) {
    Budget budget = blob.cache.scanBudget;
    long start = blob.fetchStart(from);
    long end = blob.fetchEnd(to);
    long bytes = end - start;
    if (!budget.take(bytes)) {
      return null;
    }
    Filler.DirectTask task = blob.cache.filler().startDirect(blob, file, start, end);
    if (task == null) {
      budget.giveBack(bytes);
      return null;
    }
    ScanRead read = new ScanRead(blob, column, task);
    CLEANER.register(read, () -> budget.giveBack(bytes));
    return read;
  }

  boolean holds(long p) {
    return p >= start && p < end;
  }

  /** Whether the bytes are in (a reader asking now does not wait). */
  boolean ready() {
    return task.result.isDone() && !task.result.isCompletedExceptionally();
  }

  /**
   * The bytes of [{@link #start}, {@link #end}), waiting for them until the reader's deadline; null if the read was
   * called off (every reader gave up once): the caller reads as if there were no scan read.
   */
  HeapWindow await(CachedBlob blob) throws IOException {
    HeapWindow w = window;
    if (w == null) {
      try {
        w = new HeapWindow(blob.cache.filler().awaitDirect(task,
            ReadDeadline.forWait(System.nanoTime(), blob.cache.maxReadWaitNanos())));
      } catch (Fill.Cancelled e) {
        return null;
      }
      window = w;
    }
    return w;
  }

  /** Heap bytes that scan reads may take, given back when no input refers to a read any more. */
  static final class Budget {
    private final AtomicLong available;

    Budget(long bytes) {
      this.available = new AtomicLong(bytes);
    }

    boolean take(long bytes) {
      for (;;) {
        long now = available.get();
        if (now < bytes) {
          return false;
        }
        if (available.compareAndSet(now, now - bytes)) {
          return true;
        }
      }
    }

    void giveBack(long bytes) {
      available.addAndGet(bytes);
    }

    /** The bytes not taken now (for tests). */
    long available() {
      return available.get();
    }
  }
}
