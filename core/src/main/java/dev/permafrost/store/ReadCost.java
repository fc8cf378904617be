/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the reads of one piece of work (a search, or one index of it) cost the store, counted for it alone even while
 * other work reads through the same cache: the store requests its reads made (fetches into the cache, reads straight
 * from the store, chunk tables), the bytes they brought, the bytes served from the cache, the time its readers waited
 * for the store, and the waves of dependent requests on its critical path (a request's wave is one more than the
 * deepest of this work's requests that had completed when it was sent).
 *
 * <p>Attach one to the threads that do the work ({@link #attach}); work that Lucene hands to an executor does not
 * carry it. A fetch counts for the work that started it; others that wait for the same fetch count only their wait.
 * A cost can have a parent (the search a per-index cost belongs to): everything counted also counts there.
 * Inputs are attributed to the work of the thread that opened, cloned or sliced them (Lucene makes them per query).
 */
public final class ReadCost {
  private static final ThreadLocal<ReadCost> CURRENT = new ThreadLocal<>();

  private final ReadCost parent;
  private final LongAdder requests = new LongAdder();
  private final LongAdder bytesFetched = new LongAdder();
  private final LongAdder bytesFromCache = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  /** The deepest wave among this work's completed requests. */
  private final AtomicInteger completed = new AtomicInteger();
  private final AtomicInteger waves = new AtomicInteger();
  /**
   * The last input made for this work, linked to the ones before it through {@link Input#nextTracked} (no
   * allocation per input): the bytes they served from the cache and have not reported yet count too.
   */
  private volatile Input tracked;
  /** What this work holds until it settles (the heap of its reads straight from the store). */
  private final java.util.Queue<Held> held = new java.util.concurrent.ConcurrentLinkedQueue<>();
  /** The costs whose counts count in this one: their inputs' unreported bytes count here too. */
  private final java.util.Queue<ReadCost> children = new java.util.concurrent.ConcurrentLinkedQueue<>();

  private static final VarHandle TRACKED;

  static {
    try {
      TRACKED = MethodHandles.lookup().findVarHandle(ReadCost.class, "tracked", Input.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** A cost of its own. */
  public ReadCost() {
    this(null);
  }

  private ReadCost(ReadCost parent) {
    this.parent = parent;
  }

  /** A cost whose counts also count in this one (an index's, of a search). */
  public ReadCost child() {
    ReadCost child = new ReadCost(this);
    children.add(child);
    return child;
  }

  /** Restores the cost that was attached before. */
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /** Counts the current thread's reads in {@code cost} (null: in none) until the scope is closed. */
  public static Scope attach(ReadCost cost) {
    ReadCost outer = CURRENT.get();
    CURRENT.set(cost);
    return () -> {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    };
  }

  /** The current thread's cost, or null. */
  static ReadCost current() {
    return CURRENT.get();
  }

  /**
   * An input whose bytes served from the cache count for a cost: it reports them as it leaves each window, and the
   * cost adds what it holds in its current one. Inputs are linked through themselves, so tracking allocates nothing.
   */
  interface Input {
    /** Bytes served from the cache in the current window and not yet reported (read racily). */
    long servedFromCacheNotReported();

    /** The input tracked by the same cost before this one, or null. */
    Input nextTracked();

    void nextTracked(Input next);
  }

  // ---- counting, by the store package ----

  /** One request sent, with the wave it is in for this work and its parent's. */
  final class Request {
    private final int wave;
    private final ReadCost.Request parentRequest;

    private Request() {
      requests.increment();
      this.wave = completed.get() + 1;
      waves.accumulateAndGet(wave, Math::max);
      this.parentRequest = parent == null ? null : parent.begin();
    }

    /** The request's response was read (or abandoned): later requests are a wave deeper. */
    void end() {
      completed.accumulateAndGet(wave, Math::max);
      if (parentRequest != null) {
        parentRequest.end();
      }
    }
  }

  Request begin() {
    return new Request();
  }

  void fetched(long bytes) {
    for (ReadCost c = this; c != null; c = c.parent) {
      c.bytesFetched.add(bytes);
    }
  }

  void fromCache(long bytes) {
    for (ReadCost c = this; c != null; c = c.parent) {
      c.bytesFromCache.add(bytes);
    }
  }

  /** {@code input} reads for this work (it was opened, cloned or sliced on a thread attached to it). */
  void track(Input input) {
    assert input.nextTracked() == null;
    Input head;
    do {
      head = tracked;
      input.nextTracked(head); // published by the exchange below
    } while (!TRACKED.compareAndSet(this, head, input));
  }

  /** Something a piece of work holds until it is done (a column read straight from the store holds heap). */
  interface Held {
    /** The work is done: let go. Called once by {@link #settle}; must not fail. */
    void release();
  }

  /** {@code h} was taken for this work: it is released when the work settles. */
  void releaseWhenSettled(Held h) {
    held.add(h);
  }

  /**
   * Counts now what this work's inputs served from the cache and have not reported yet, and stops tracking them: for
   * work that is done (an index's part of a search, as its task ends, on the thread that just read through them), so
   * that reading the counts later walks no inputs gone cold. The columns this work read straight from the store
   * ({@code ColumnPrefetch}) give their heap back to the cache's scan budget now, not when the garbage collector
   * finds them unreferenced: the next search has the whole budget. Call it once the work is done: an input it tracked
   * that other work reads later (a reader this work opened) may count its last window here twice, and reads it from
   * the cache rather than from the released column.
   */
  public void settle() {
    for (Held h; (h = held.poll()) != null; ) {
      h.release();
    }
    long pending = 0;
    Input in = (Input) TRACKED.getAndSet(this, null);
    while (in != null) {
      pending += in.servedFromCacheNotReported();
      Input next = in.nextTracked();
      in.nextTracked(null); // a reader's input outlives the work: it does not keep the work's other inputs alive
      in = next;
    }
    if (pending != 0) {
      fromCache(pending);
    }
  }

  void waited(long nanos) {
    for (ReadCost c = this; c != null; c = c.parent) {
      c.waitNanos.add(nanos);
    }
  }

  // ---- reading ----

  /** Store requests sent for this work. */
  public long requests() {
    return requests.sum();
  }

  /** Bytes those requests brought. */
  public long bytesFetched() {
    return bytesFetched.sum();
  }

  /**
   * Bytes served from the cache to this work's inputs: those reported as they left a window, plus what each input
   * holds in its current one. Exact once the work is done; while inputs are read, a snapshot.
   */
  public long bytesFromCache() {
    return bytesFromCache.sum() + notReported();
  }

  /** What this work's inputs, and its children's, served from the cache and have not reported yet. */
  private long notReported() {
    long pending = 0;
    for (Input in = tracked; in != null; in = in.nextTracked()) {
      pending += in.servedFromCacheNotReported();
    }
    for (ReadCost child : children) {
      pending += child.notReported();
    }
    return pending;
  }

  /** Time this work's readers spent waiting for the store, summed over its threads. */
  public long waitNanos() {
    return waitNanos.sum();
  }

  /** Waves of dependent requests on this work's critical path. */
  public int waves() {
    return waves.get();
  }

  @Override
  public String toString() {
    return requests() + " requests in " + waves() + " waves, " + bytesFetched() + " bytes fetched, " + bytesFromCache()
        + " from the cache, " + waitNanos() / 1_000_000 + " ms waiting";
  }
}
