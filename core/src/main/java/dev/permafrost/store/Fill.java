/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;

/**
 * A fetch that will make the pages [start, end) of a slot readable (offsets relative to the region). Readers of any
 * of those pages wait for it instead of fetching again, and wake as its chunks arrive. {@link #done} and
 * {@link #error} are guarded by the slot's monitor; the rest is fixed.
 */
final class Fill {
  final long start;
  final long end;
  /** Whether a reader is waiting for it (demand fills run before prefetches). */
  final boolean demand;
  /** When it was asked for (System.nanoTime()). */
  final long createdNanos;
  /** When waiting readers give up (System.nanoTime()); Long.MAX_VALUE when the store has no deadlines. */
  final long deadlineNanos;
  /** Set when the fetch failed; waiters throw it. */
  IOException error;
  boolean done;

  Fill(long start, long end, boolean demand, long createdNanos, long deadlineNanos) {
    assert start < end : start + " >= " + end;
    this.start = start;
    this.end = end;
    this.demand = demand;
    this.createdNanos = createdNanos;
    this.deadlineNanos = deadlineNanos;
  }

  @Override
  public String toString() {
    return "fill [" + start + ", " + end + ")" + (done ? " done" : "") + (error != null ? " failed" : "");
  }
}
