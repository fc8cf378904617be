/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;

/**
 * A fetch that will make the pages [start, end) of a slot readable (offsets relative to the region). Readers of any
 * of those pages wait for it instead of fetching again, and wake as its chunks arrive. {@link #done},
 * {@link #error}, {@link #demand} and {@link #waiters} are guarded by the slot's monitor; the rest is fixed once
 * the fill is registered.
 */
final class Fill {
  final long start;
  final long end;
  /** When it was asked for (System.nanoTime()). */
  final long createdNanos;
  /** When the fetcher stops waiting for the blob's chunk table (System.nanoTime()); Long.MAX_VALUE without a policy. */
  final long deadlineNanos;
  /** Whether a reader waits, or waited, for it: such fills run on the filler's demand lane. */
  boolean demand;
  /** Readers waiting for it now; when the last of them gives up, the fill is called off. */
  int waiters;
  /** The fetch that runs it, set when it is queued. */
  FetchTask task;
  /** Set when the fetch failed; waiters throw it (but for {@link FetchTask.Cancelled}: they start a fetch of their own). */
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
    return "fill [" + start + ", " + end + ")" + (done ? " done" : "") + (error != null ? " failed" : "")
        + (waiters > 0 ? " awaited by " + waiters : "");
  }
}
