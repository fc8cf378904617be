/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.testutil;

import dev.permafrost.store.SharedRegionCache;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a cache with no fetch queued or running ({@code fillsInFlight() == 0}). A search may return while a fetch
 * it started and did not wait for (a fill carrying on into the next region, a prefetch) is still on its way: a test
 * that compares the cache's counters, or what a store saw, with what the search reported waits for this state first
 * instead of sleeping. The one-minute bound only turns a hang into a failure.
 */
public final class CacheIdle {
  private CacheIdle() {}

  /** Returns once {@code cache} has no fetch in flight; throws an {@link AssertionError} after a minute. */
  public static void await(SharedRegionCache cache) throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (cache.stats().fillsInFlight() > 0) {
      if (System.nanoTime() - giveUp > 0) {
        throw new AssertionError("fetches still in flight after a minute: " + cache.stats());
      }
      Thread.sleep(5);
    }
  }
}
