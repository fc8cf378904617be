/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.time.Instant;

/**
 * How a store with a {@link StorePolicy} is doing, from its policy's point of view: the retries it made, its retry
 * budget, and whether it is failing. A snapshot, read with {@link StorePolicy#health(BlobStore)}.
 *
 * @param retries attempts after a first one, over the store's life
 * @param retriesRefused retries not made because the budget was spent
 * @param retryTokens retries the budget allows now (a retry after a time-out takes two); equal to
 *     {@code retryBudget} when the budget is off
 * @param retryBudget the budget's capacity ({@value StorePolicy#RETRY_BUDGET}); 0 when it is off
 * @param failingSince when the budget ran out, while it has not refilled to half; null when the store is not failing
 */
public record StoreHealth(long retries, long retriesRefused, double retryTokens, int retryBudget, Instant failingSince) {
  /** Whether the store is failing now: its calls fail at their first failure, without retries. */
  public boolean failing() {
    return failingSince != null;
  }
}
