/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retries one store may still make: a token bucket shared by every call to the store (the AWS SDK's retry
 * quota, gRPC's retry throttling). A retry takes a token (a retry after a time-out takes {@link #TIMEOUT_COST}, as a
 * stalled store wastes the most time); every call that succeeds gives one back, up to the capacity. When a retry
 * finds too few tokens the store is <em>failing</em>: calls fail at their first failure, with no back-off, until
 * successes have refilled half of the bucket. Both transitions are logged once (WARN down, INFO back).
 *
 * <p>Thread-safe; its state is guarded by its monitor, and no I/O happens under it.
 */
final class RetryBudget {
  private static final Logger log = LoggerFactory.getLogger(RetryBudget.class);
  /** What a retry after a time-out costs, in tokens; any other retry costs one. */
  static final int TIMEOUT_COST = 2;

  private final String store;
  private final int capacity;
  /** Guarded by this. */
  private double tokens;
  /** When the store began failing, or null while it is not. Guarded by this. */
  private Instant failingSince;
  /** Retries refused over the store's life. Guarded by this. */
  private long refused;

  RetryBudget(String store, int capacity) {
    assert capacity > 0 : capacity;
    this.store = store;
    this.capacity = capacity;
    this.tokens = capacity;
  }

  /**
   * Takes the tokens for one retry, after a failure that {@code timedOut} or not.
   *
   * @return false if the budget is spent: do not retry
   */
  boolean tryRetry(boolean timedOut) {
    int cost = timedOut ? TIMEOUT_COST : 1;
    boolean logDown = false;
    synchronized (this) {
      if (tokens >= cost) {
        tokens -= cost;
        return true;
      }
      refused++;
      if (failingSince == null) {
        failingSince = Instant.now();
        logDown = true;
      }
    }
    if (logDown) {
      log.warn("blob store {} is failing: its retry budget of {} retries is spent; calls now fail at their first"
          + " failure, without retries, until requests succeed again", store, capacity);
    }
    return false;
  }

  /** A call succeeded: gives a token back, and ends a failing spell once half the budget is back. */
  void succeeded() {
    Instant since;
    synchronized (this) {
      if (tokens >= capacity) {
        return;
      }
      tokens = Math.min(capacity, tokens + 1);
      if (failingSince == null || tokens < capacity / 2.0) {
        return;
      }
      since = failingSince;
      failingSince = null;
    }
    log.info("blob store {} answers again (failing since {}); retries resume", store, since);
  }

  /** When the store began failing, or null if it is not failing now. */
  synchronized Instant failingSince() {
    return failingSince;
  }

  synchronized double tokens() {
    return tokens;
  }

  synchronized long refused() {
    return refused;
  }

  int capacity() {
    return capacity;
  }
}
