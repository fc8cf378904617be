/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The threads store policies run on: a cached pool that makes store calls whose caller must be able to stop
 * waiting (a deadline, a hedge), and one timer thread that fires deadlines. Both are daemon threads that end
 * when idle, shared by every store of the process.
 */
final class StoreThreads {
  private static final ExecutorService CALLS = Executors.newCachedThreadPool(daemon("permafrost-store-call"));
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private StoreThreads() {}

  /** A store call that may throw. */
  interface IoCall<T> {
    T call() throws IOException;
  }

  /** Releases a result nobody waits for any more (closes a stream that arrived after its deadline). */
  interface Discard<T> {
    void discard(T result) throws IOException;
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemon("permafrost-store-deadline"));
    timer.setRemoveOnCancelPolicy(true);
    timer.setKeepAliveTime(30, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
    return timer;
  }

  /** Starts {@code call} on a store-call thread. */
  static <T> CompletableFuture<T> start(IoCall<T> call) {
    CompletableFuture<T> future = new CompletableFuture<>();
    CALLS.execute(() -> {
      try {
        future.complete(call.call());
      } catch (Throwable t) {
        future.completeExceptionally(t);
      }
    });
    return future;
  }

  /**
   * Runs {@code call} on a store-call thread and waits at most {@code timeoutNanos} for it. If time runs out,
   * throws {@code onTimeout}'s exception at once; the call goes on in the background and its result, if it ever
   * comes, is given to {@code discard}.
   */
  static <T> T callWithin(IoCall<T> call, long timeoutNanos, Discard<T> discard, Supplier<? extends IOException> onTimeout)
      throws IOException {
    CompletableFuture<T> future = start(call);
    try {
      return await(future, timeoutNanos);
    } catch (TimeoutException e) {
      discardLater(future, discard);
      throw onTimeout.get();
    } catch (InterruptedIOException e) {
      discardLater(future, discard);
      throw e;
    }
  }

  /** Gives the result of {@code future}, when it comes, to {@code discard}. */
  static <T> void discardLater(CompletableFuture<T> future, Discard<T> discard) {
    future.thenAccept(result -> {
      try {
        discard.discard(result);
      } catch (IOException | RuntimeException ignored) {
        // nobody is left to tell
      }
    });
  }

  /** Waits for {@code future} at most {@code timeoutNanos} (forever if it is Long.MAX_VALUE), unwrapping its failure. */
  static <T> T await(CompletableFuture<T> future, long timeoutNanos) throws IOException, TimeoutException {
    try {
      return timeoutNanos == Long.MAX_VALUE ? future.get() : future.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw rethrow(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for a blob store request");
    }
  }

  static IOException rethrow(Throwable t) {
    if (t instanceof IOException io) {
      return io;
    }
    if (t instanceof UncheckedIOException u) {
      return u.getCause();
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IOException(t);
  }

  /** Runs {@code task} once {@code delayNanos} have passed. */
  static ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
    return TIMER.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  /** Sleeps, turning an interrupt into an {@link InterruptedIOException}. */
  static void sleepNanos(long nanos, String what) throws InterruptedIOException {
    if (nanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while " + what);
    }
  }
}
