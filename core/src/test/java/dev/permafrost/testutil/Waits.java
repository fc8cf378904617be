/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.testutil;

import static org.junit.jupiter.api.Assertions.fail;

import dev.permafrost.store.SharedRegionCache;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waiting for a state, never for a time: a test that needs something to have happened polls for it. The bound (a
 * minute) only turns a hang into a failure; it is never what a test's verdict rests on, however slow the machine.
 */
public final class Waits {
  private static final long BOUND_NANOS = TimeUnit.MINUTES.toNanos(1);

  private Waits() {}

  /** Waits until {@code state} holds; fails, naming {@code what}, if it still does not after a minute. */
  public static void await(String what, BooleanSupplier state) throws InterruptedException {
    for (long giveUp = System.nanoTime() + BOUND_NANOS; !state.getAsBoolean(); ) {
      if (System.nanoTime() - giveUp > 0) {
        fail("still waiting after a minute for " + what);
      }
      Thread.sleep(1);
    }
  }

  /** Whether {@code thread} waits (parked, in {@code Object.wait} or the like) in a call of {@code method} of {@code owner}. */
  public static boolean waitingIn(Thread thread, Class<?> owner, String method) {
    Thread.State state = thread.getState();
    return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) && Arrays.stream(thread.getStackTrace())
        .anyMatch(f -> f.getClassName().equals(owner.getName()) && f.getMethodName().equals(method));
  }

  /**
   * Waits until {@code thread} waits in a call of {@code method} of {@code owner} ({@link #waitingIn}), seen so in three
   * samples in a row; fails at once if the thread ends.
   */
  public static void awaitWaitingIn(Thread thread, Class<?> owner, String method) throws InterruptedException {
    int[] inARow = {0};
    await(thread.getName() + " to wait in " + owner.getSimpleName() + "." + method, () -> {
      if (!thread.isAlive()) {
        fail(thread.getName() + " ended instead of waiting in " + method);
      }
      inARow[0] = waitingIn(thread, owner, method) ? inARow[0] + 1 : 0;
      return inARow[0] >= 3;
    });
  }

  /**
   * Waits until no fetch of {@code cache} is queued or running: a request counts for the work that asks for it when
   * it asks, and reaches the store when it is sent, which for a prefetch may be after the work returned.
   */
  public static void awaitNoFetch(SharedRegionCache cache) throws InterruptedException {
    await("the cache's fetches to end (" + cache + ")", () -> cache.stats().fillsInFlight() == 0);
  }
}
