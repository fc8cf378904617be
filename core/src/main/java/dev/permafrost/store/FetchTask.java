/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.snapshot.ChunkTable;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A fetch from a blob store that the readers waiting for it can call off: queued, it never runs; running, the
 * response it is reading is closed (which aborts the request) and its thread is interrupted (which ends a back-off
 * or a wait for a response), so that an abandoned fetch stops holding a fetch thread and sends no more requests.
 *
 * <p>The one rule: the thread is never interrupted while it writes the cache file (an interrupt during a
 * {@code FileChannel} write closes the channel for everyone). Subclasses bracket every such write with
 * {@link #beginWrite()} and {@link #endWrite()}; a cancellation asked for meanwhile takes effect at
 * {@link #endWrite()}.
 */
abstract class FetchTask implements Runnable {
  private static final int QUEUED = 0;
  private static final int FETCHING = 1;
  private static final int WRITING = 2;
  private static final int DONE = 3;
  private static final int CANCELLED = 4;

  /** What the fetch costs is counted for: the work of the thread that asked for it (see {@link ReadCost}), or null. */
  final ReadCost cost;
  /** The wave of its request in that work: one more than the deepest the asking thread had read. */
  final int wave;
  /** Its request, counted in {@link #cost} when the fetch was asked for; null without a cost. */
  final ReadCost.Request request;
  /**
   * The blob's chunk table as it was when the fetch was asked for (null for a blob without one), set before the task
   * is queued (a reader's promotion may run it first: then it asks the blob): a table a manifest gave stays with the
   * fetch even if the blob drops it meanwhile.
   */
  volatile CompletableFuture<ChunkTable> table;

  /**
   * A fetch of [from, to) of {@code blob} (its identity: what a reader's window is looked up by), asked for by the
   * current thread: counted in its work at once.
   */
  FetchTask(Object blob, long from, long to) {
    ReadCost.Reading reading = ReadCost.reading();
    this.cost = reading == null ? null : reading.cost;
    this.wave = reading == null ? 1 : reading.nextWave();
    this.request = cost == null ? null : cost.request(wave, to - from, blob, from, to);
  }

  /** Guarded by this, as are the fields below. */
  private int state = QUEUED;
  private boolean cancelRequested;
  private Thread runner;
  private Closeable response;

  @Override
  public final void run() {
    synchronized (this) {
      if (state != QUEUED) {
        return; // cancelled while queued, or run already from another lane
      }
      state = FETCHING;
      runner = Thread.currentThread();
    }
    try {
      fetch();
    } finally {
      synchronized (this) {
        state = DONE;
        runner = null;
        response = null;
      }
      Thread.interrupted(); // a cancellation's interrupt must not reach the pool's next task
    }
  }

  /** Fetches; ends whatever waits for it, whether it succeeds, fails or is cancelled. */
  abstract void fetch();

  /** Ends whatever waits for this task, which was cancelled before it ran and never will. */
  abstract void cancelledWhileQueued();

  /** Whether {@link #cancel} was called while it ran. */
  final synchronized boolean cancelRequested() {
    return cancelRequested;
  }

  /**
   * Calls the fetch off (see the class comment). Returns at once: the response is closed on {@code closer}, since
   * closing a response may block.
   */
  final void cancel(Executor closer) {
    Closeable toClose = null;
    boolean neverRuns = false;
    synchronized (this) {
      switch (state) {
        case QUEUED -> {
          state = CANCELLED;
          neverRuns = true;
        }
        case FETCHING -> {
          cancelRequested = true;
          toClose = response;
          runner.interrupt();
        }
        case WRITING -> cancelRequested = true;
        default -> { } // done already
      }
    }
    if (neverRuns) {
      if (request != null) {
        request.calledOff();
      }
      cancelledWhileQueued();
    }
    if (toClose != null) {
      Closeable r = toClose;
      closer.execute(() -> closeQuietly(r));
    }
  }

  /** Notes the response being read, so that a cancellation can close it; closes it at once if cancelled. */
  final void reading(Closeable r) throws IOException {
    synchronized (this) {
      if (!cancelRequested) {
        response = r;
        return;
      }
    }
    closeQuietly(r);
    throw cancelled();
  }

  /** Before a write to the cache file: from here to {@link #endWrite()}, no interrupt reaches the thread. */
  final void beginWrite() throws IOException {
    synchronized (this) {
      assert state == FETCHING : state;
      if (!cancelRequested) {
        state = WRITING;
        return;
      }
    }
    throw cancelled();
  }

  /** After a write to the cache file; throws if a cancellation came meanwhile. */
  final void endWrite() throws IOException {
    synchronized (this) {
      assert state == WRITING : state;
      state = FETCHING;
      if (!cancelRequested) {
        return;
      }
    }
    throw cancelled();
  }

  private static Cancelled cancelled() {
    return new Cancelled("the fetch was called off: every reader waiting for it gave up");
  }

  /**
   * The error of a fetch that was called off because every reader waiting for it gave up: a reader that finds it
   * starts a fetch of its own.
   */
  static final class Cancelled extends IOException {
    private static final long serialVersionUID = 1L;

    Cancelled(String message) {
      super(message);
    }
  }

  static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException | RuntimeException ignored) {
      // aborting a request that nobody waits for
    }
  }
}
