/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.Durations;
import java.time.Duration;

/**
 * A deadline for the current thread's reads from {@link BlobDirectory}s: a read that has to wait for bytes from the
 * store (a fetch into the cache, or a read directly from the store) gives up by it with a
 * {@link dev.permafrost.blob.BlobStoreTimeoutException} naming the snapshot, file, blob and range, and calls the fetch
 * off if no other reader waits for it. Without one, a wait ends after the cache's
 * {@link SharedRegionCache.Builder#maxReadWait(Duration) maxReadWait}; with one, at whichever comes first.
 *
 * <pre>{@code
 * try (ReadDeadline.Scope s = ReadDeadline.within(Duration.ofSeconds(5), "search of logs-*")) {
 *   searcher.search(query, 10);
 * }
 * }</pre>
 *
 * <p>Scopes nest: an inner scope can shorten the deadline, never lengthen it, and closing it restores the outer
 * one. A deadline belongs to the thread that set it: work that Lucene hands to an executor does not carry it (the
 * {@code Catalog} sets it on each thread that searches for a request).
 */
public final class ReadDeadline {
  private static final ThreadLocal<ReadDeadline> CURRENT = new ThreadLocal<>();

  final long deadlineNanos;
  final String what;

  private ReadDeadline(long deadlineNanos, String what) {
    this.deadlineNanos = deadlineNanos;
    this.what = what;
  }

  /** Restores the deadline that was in force before. */
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /** Sets a deadline {@code timeout} from now, named by {@code what} in errors (e.g. "the search's timeout"). */
  public static Scope within(Duration timeout, String what) {
    long now = System.nanoTime();
    long nanos = timeout.toNanos();
    return at(nanos >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + nanos,
        what + " of " + Durations.formatNanos(nanos));
  }

  /** Sets a deadline at {@code deadlineNanos} ({@link System#nanoTime()} based), named by {@code what} in errors. */
  public static Scope at(long deadlineNanos, String what) {
    ReadDeadline outer = CURRENT.get();
    ReadDeadline mine = outer != null && outer.deadlineNanos - deadlineNanos <= 0 ? outer : new ReadDeadline(deadlineNanos, what);
    CURRENT.set(mine);
    return () -> {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    };
  }

  /** The current thread's deadline, or null. */
  static ReadDeadline current() {
    return CURRENT.get();
  }

  /**
   * When a reader that begins to wait at {@code now} gives up: the current thread's deadline, or {@code now +
   * maxWaitNanos} (the cache's bound) if that comes first.
   */
  static ReadDeadline forWait(long now, long maxWaitNanos) {
    ReadDeadline d = CURRENT.get();
    long own = maxWaitNanos >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + maxWaitNanos;
    if (d != null && d.deadlineNanos - own <= 0) {
      return d;
    }
    return new ReadDeadline(own, "the cache's maxReadWait of " + Durations.formatNanos(maxWaitNanos));
  }
}
