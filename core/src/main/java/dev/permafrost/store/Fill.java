/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;

/**
 * A fetch that will make the pages [start, end) of a slot readable (offsets relative to the region). Readers of any
 * of those pages wait for it instead of fetching again, and wake as its chunks arrive. {@link #start}, {@link #end},
 * {@link #createdNanos} and {@link #deadlineNanos} are fixed; everything else is guarded by the slot's monitor
 * ({@link #demand} is also read without it, to decide whether a failure is worth a warning).
 *
 * <p>A fill is registered in its slot first, and given its {@link FetchTask} when it is queued, which for the fills
 * of a prefetch (queued together, one request per run of adjacent ones) happens after the slot's monitor was let go.
 * A reader that comes in between marks it {@link #demand} or {@link #calledOff}, and the queuing acts on it
 * ({@link Fillable#queued}).
 */
final class Fill {
  /** How a fill's fetch is to start when it is queued: what its readers asked before it had a task. */
  enum Start {
    /** On the prefetch lane: no reader waits for it. */
    PREFETCH,
    /** On the demand lane: a reader waits for it. */
    DEMAND,
    /** Not at all: a reader waited for it and gave up, and no other waits. */
    CALLED_OFF
  }

  final long start;
  final long end;
  /** When it was asked for (System.nanoTime()). */
  final long createdNanos;
  /** When the fetcher stops waiting for the blob's chunk table (System.nanoTime()); Long.MAX_VALUE without a policy. */
  final long deadlineNanos;
  /** Whether a reader waits, or waited, for it: such fills run on the filler's demand lane. */
  volatile boolean demand;
  /** Readers waiting for it now; when the last of them gives up, the fill is called off. */
  int waiters;
  /** The fetch that runs it, from when it is queued; null before, and for bytes in hand (a slot's offer). */
  FetchTask task;
  /** Whether its last waiter gave up before it had a task: it is called off as it is queued. */
  boolean calledOff;
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
