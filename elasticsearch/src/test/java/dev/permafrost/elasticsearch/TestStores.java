/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.store.SharedRegionCache;
import java.util.concurrent.TimeUnit;

/** What the engine tests wait for. */
final class TestStores {
  private TestStores() {}

  /** Waits until no fetch of {@code cache} is queued or running (a state, not a time: the bound only ends a hang). */
  static void awaitNoFetch(SharedRegionCache cache) throws InterruptedException {
    for (long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1); cache.stats().fillsInFlight() > 0; ) {
      assertTrue(System.nanoTime() < giveUp, "fetches still running after a minute: " + cache.stats());
      Thread.sleep(1);
    }
  }
}
