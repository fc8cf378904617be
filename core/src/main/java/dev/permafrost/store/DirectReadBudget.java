/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap that columns read directly from the store ({@link DirectRead}) may take at once, given back when the work
 * that started a read settles or no input refers to it any more: see {@link SharedRegionCache.Builder#directReadHeapBytes}.
 */
final class DirectReadBudget {
  private final AtomicLong available;

  DirectReadBudget(long bytes) {
    this.available = new AtomicLong(bytes);
  }

  /** Takes {@code bytes} if there is room for them. */
  boolean take(long bytes) {
    for (;;) {
      long now = available.get();
      if (now < bytes) {
        return false;
      }
      if (available.compareAndSet(now, now - bytes)) {
        return true;
      }
    }
  }

  void giveBack(long bytes) {
    available.addAndGet(bytes);
  }

  /** The bytes not taken now (for tests). */
  long available() {
    return available.get();
  }
}
