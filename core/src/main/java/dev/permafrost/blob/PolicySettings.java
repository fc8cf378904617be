/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.time.Duration;

/**
 * What the store policy's decorators ({@link DeadlineBlobStore}, {@link RequestLimitingBlobStore},
 * {@link RetryingBlobStore}) read of it. {@link StorePolicy} is the one implementation: the decorators it builds name
 * this class, not it, so that the policy and its decorators do not depend on each other; a message that names a
 * setting gets the name from the policy ({@link #explainDeadline}, {@link #explainRetryLimits}), the one home of the
 * settings' names.
 */
abstract class PolicySettings {
  abstract int maxRetries();

  abstract Duration retryDelay();

  abstract Duration retryMaxDelay();

  abstract Duration retryTimeLimit();

  abstract long maxBytesPerSec();

  abstract int maxConcurrentRequests();

  abstract int retryBudget();

  /** The deadline of one request reading {@code length} bytes. */
  abstract long requestTimeoutNanos(long length);

  /** How a deadline was set, for messages. */
  abstract String explainDeadline(long length);

  /** What bounds a call's retries, for messages, under the settings' names. */
  abstract String explainRetryLimits();

  /** The retry budget, for messages, under its setting's name. */
  abstract String explainRetryBudget();

  static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
