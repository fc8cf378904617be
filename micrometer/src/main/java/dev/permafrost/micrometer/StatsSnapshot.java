/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import java.util.function.Supplier;

/**
 * The last value of an expensive supplier, read again once it is older than a maximum age: one scrape of many
 * meters computes the cache's stats once, not once per meter. Thread-safe.
 */
final class StatsSnapshot<T> {
  private final Supplier<T> supplier;
  private final long maxAgeNanos;
  private T value;
  private long readAt;
  private boolean read;

  StatsSnapshot(Supplier<T> supplier, long maxAgeNanos) {
    assert maxAgeNanos >= 0;
    this.supplier = supplier;
    this.maxAgeNanos = maxAgeNanos;
  }

  /** The value, read again if the last read is older than the maximum age; null if the supplier gives none. */
  synchronized T get() {
    long now = System.nanoTime();
    if (!read || now - readAt >= maxAgeNanos) {
      value = supplier.get();
      readAt = now;
      read = true;
    }
    return value;
  }
}
