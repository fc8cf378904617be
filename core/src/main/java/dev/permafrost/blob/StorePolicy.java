/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * How a repository talks to its store when the store misbehaves: deadlines on reads, retries of transient
 * failures, optional hedging of slow reads, and limits on bytes per second and requests in flight. Immutable;
 * {@link #apply(BlobStore)} puts it around a store as a stack of {@link FilterBlobStore}s:
 *
 * <pre>
 * retries -> hedging -> limits (requests in flight, bytes per second) -> deadlines -> the backend
 * </pre>
 *
 * <ul>
 *   <li><b>Deadlines.</b> Every read (and every {@code length}/{@code exists}) must finish within
 *       {@link #requestTimeout()} plus its length at {@link #minReadThroughput()}; past it the request is abandoned
 *       (its stream closed) and fails with a {@link BlobStoreTimeoutException} naming store, blob and range.
 *   <li><b>Retries.</b> A failure that {@linkplain BlobStoreException#isRetryable() may pass} (5xx, throttling,
 *       resets, short reads, time-outs) is retried up to {@link #maxRetries()} times with exponential back-off and
 *       jitter (a random delay between half and all of {@link #retryDelay()}, doubled on each retry, at most
 *       {@link #retryMaxDelay()}), as long as the call
 *       has run less than {@link #retryTimeLimit()}. A read stream that breaks part way resumes where it stopped.
 *       Not-found, authorization and invalid-request failures are never retried. Retries draw from a budget
 *       shared by the store's calls ({@link #retryBudget()} tokens; a call that succeeds gives one back): once it
 *       is spent the store is <em>failing</em> ({@link #health(BlobStore)}), and calls fail at their first failure
 *       until successes refill it, so that a broken store fails fast instead of making every read wait out its
 *       back-off. Writes are retried only when
 *       their data stream supports {@code mark}/{@code reset} (the snapshot writer's streams do). The backends' own
 *       SDK retries are off: this is the one place that decides.
 *   <li><b>Hedging</b> (off by default). A ranged read with no response after {@link #hedgeAfter()} is sent a
 *       second time; the first response wins and the other request is cancelled.
 *   <li><b>Limits.</b> At most {@link #maxConcurrentRequests()} requests in flight, and (when set) at most
 *       {@link #maxBytesPerSec()} bytes per second read (Elasticsearch's {@code max_restore_bytes_per_sec}); a
 *       ranged read waits for its bytes before it is sent, so waiting never counts against its deadline.
 *   <li><b>The store's model.</b> What a request costs: {@link #firstByteLatency()} before its first byte, then
 *       {@link #readThroughput()} bytes per second (defaults modelled on S3 Standard: 30ms and 80mb/s). The cache
 *       plans its requests by it: two ranges of one blob fetched together are one request when the gap between them
 *       is shorter than {@link #bridgedGapBytes()} (what the store sends in one first-byte latency: reading the gap
 *       costs less than another round trip). It bounds nothing and retries nothing.
 * </ul>
 *
 * <p>{@link BlobStores#open(java.net.URI)} reads these settings from the URI's query with every backend, under
 * the names below; {@code SnapshotRepository.open(store)} applies {@link #DEFAULT} to a store that has no policy.
 */
public final class StorePolicy extends PolicySettings {
  /** Setting: retries of a failed request (default 3; 0 disables retries). */
  public static final String MAX_RETRIES = "max_retries";
  /** Setting: the first back-off delay; it doubles on each retry (default 100ms). */
  public static final String RETRY_DELAY = "retry_delay";
  /** Setting: the longest back-off delay (default 5s). */
  public static final String RETRY_MAX_DELAY = "retry_max_delay";
  /** Setting: no retry starts once a call has run this long (default 30s). */
  public static final String RETRY_TIME_LIMIT = "retry_time_limit";
  /** Setting: the fixed part of a read's deadline (default 5s). */
  public static final String REQUEST_TIMEOUT = "request_timeout";
  /** Setting: the slowest transfer a read is allowed, in bytes per second, added to its deadline (default 1mb). */
  public static final String MIN_READ_THROUGHPUT = "min_read_throughput";
  /** Setting: send a second copy of a ranged read with no response after this long (default 0: never). */
  public static final String HEDGE_AFTER = "hedge_after";
  /** Setting: the most bytes per second read from the store (default 0: unlimited). */
  public static final String MAX_BYTES_PER_SEC = "max_bytes_per_sec";
  /** Setting: the most requests in flight at once (default 64). */
  public static final String MAX_CONCURRENT_REQUESTS = "max_concurrent_requests";
  /**
   * Setting: the retries a store may make before it counts as failing, refilled one per call that succeeds
   * (default 100; 0 turns the budget off).
   */
  public static final String RETRY_BUDGET = "retry_budget";
  /**
   * Setting: the store's time to a response's first byte, in the model the cache plans requests by (default 30ms,
   * S3 Standard's; 0 turns off reading across gaps, see {@link #bridgedGapBytes()}).
   */
  public static final String FIRST_BYTE_LATENCY = "first_byte_latency";
  /** Setting: the store's transfer rate per request, in the model the cache plans requests by (default 80mb/s). */
  public static final String READ_THROUGHPUT = "read_throughput";

  private static final Set<String> SETTINGS = Set.of(MAX_RETRIES, RETRY_DELAY, RETRY_MAX_DELAY,
      RETRY_TIME_LIMIT, REQUEST_TIMEOUT, MIN_READ_THROUGHPUT, HEDGE_AFTER, MAX_BYTES_PER_SEC, MAX_CONCURRENT_REQUESTS,
      RETRY_BUDGET, FIRST_BYTE_LATENCY, READ_THROUGHPUT);

  /** Whether {@code name} is one of the policy's settings (which every backend's URI takes). */
  public static boolean isPolicySetting(String name) {
    return SETTINGS.contains(name);
  }

  /**
   * The defaults: 3 retries from 100ms up to 5s within 30s from a budget of 100, deadlines of 5s + length at 1mb/s,
   * 64 requests; a store modelled as 30ms to the first byte and 80mb/s.
   */
  public static final StorePolicy DEFAULT = builder().build();

  private final int maxRetries;
  private final Duration retryDelay;
  private final Duration retryMaxDelay;
  private final Duration retryTimeLimit;
  private final Duration requestTimeout;
  private final long minReadThroughput;
  private final Duration hedgeAfter;
  private final long maxBytesPerSec;
  private final int maxConcurrentRequests;
  private final int retryBudget;
  private final Duration firstByteLatency;
  private final long readThroughput;

  private StorePolicy(Builder b) {
    this.maxRetries = b.maxRetries;
    this.retryDelay = b.retryDelay;
    this.retryMaxDelay = b.retryMaxDelay;
    this.retryTimeLimit = b.retryTimeLimit;
    this.requestTimeout = b.requestTimeout;
    this.minReadThroughput = b.minReadThroughput;
    this.hedgeAfter = b.hedgeAfter;
    this.maxBytesPerSec = b.maxBytesPerSec;
    this.maxConcurrentRequests = b.maxConcurrentRequests;
    this.retryBudget = b.retryBudget;
    this.firstByteLatency = b.firstByteLatency;
    this.readThroughput = b.readThroughput;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads the policy settings from {@code settings} (marking them as known, so that a backend's
   * {@link StoreSettings#rejectUnknown()} accepts them); absent ones keep their defaults.
   *
   * @throws IllegalArgumentException naming the setting whose value is malformed or out of range
   */
  public static StorePolicy fromSettings(StoreSettings settings) {
    Builder b = builder();
    b.maxRetries(settings.getInt(MAX_RETRIES, b.maxRetries));
    b.retryDelay(settings.getDuration(RETRY_DELAY, b.retryDelay));
    b.retryMaxDelay(settings.getDuration(RETRY_MAX_DELAY, b.retryMaxDelay));
    b.retryTimeLimit(settings.getDuration(RETRY_TIME_LIMIT, b.retryTimeLimit));
    b.requestTimeout(settings.getDuration(REQUEST_TIMEOUT, b.requestTimeout));
    b.minReadThroughput(settings.getBytes(MIN_READ_THROUGHPUT, b.minReadThroughput));
    b.hedgeAfter(settings.getDuration(HEDGE_AFTER, b.hedgeAfter));
    b.maxBytesPerSec(settings.getBytes(MAX_BYTES_PER_SEC, b.maxBytesPerSec));
    b.maxConcurrentRequests(settings.getInt(MAX_CONCURRENT_REQUESTS, b.maxConcurrentRequests));
    b.retryBudget(settings.getInt(RETRY_BUDGET, b.retryBudget));
    b.firstByteLatency(settings.getDuration(FIRST_BYTE_LATENCY, b.firstByteLatency));
    b.readThroughput(settings.getBytes(READ_THROUGHPUT, b.readThroughput));
    return b.build();
  }

  /**
   * The policy governing {@code store}: the one applied somewhere in its chain of {@link FilterBlobStore}s, or
   * null if there is none.
   */
  public static StorePolicy of(BlobStore store) {
    for (BlobStore s = store; s instanceof FilterBlobStore f; s = f.getDelegate()) {
      if (s instanceof RetryingBlobStore r) {
        return (StorePolicy) r.policy(); // the policy that built it: the one implementation
      }
    }
    return null;
  }

  /**
   * How {@code store} is doing by its policy's account (retries made and refused, the retry budget, whether it is
   * failing), or null if it has no policy.
   */
  public static StoreHealth health(BlobStore store) {
    for (BlobStore s = store; s instanceof FilterBlobStore f; s = f.getDelegate()) {
      if (s instanceof RetryingBlobStore r) {
        return r.health();
      }
    }
    return null;
  }

  /**
   * Wraps {@code store} in this policy's decorators. Closing the result closes {@code store}.
   *
   * @throws IllegalArgumentException if {@code store} already has a policy (two would retry each other's retries)
   */
  public BlobStore apply(BlobStore store) {
    StorePolicy existing = of(store);
    if (existing != null) {
      throw new IllegalArgumentException("blob store " + store.describe() + " already has a store policy (" + existing
          + "); apply a policy once");
    }
    BlobStore s = new DeadlineBlobStore(store, this);
    if (maxConcurrentRequests > 0 || maxBytesPerSec > 0) {
      s = new RequestLimitingBlobStore(s, this);
    }
    if (!hedgeAfter.isZero()) {
      s = new HedgingBlobStore(s, hedgeAfter);
    }
    return new RetryingBlobStore(s, this);
  }

  @Override
  public int maxRetries() {
    return maxRetries;
  }

  @Override
  public Duration retryDelay() {
    return retryDelay;
  }

  @Override
  public Duration retryMaxDelay() {
    return retryMaxDelay;
  }

  @Override
  public Duration retryTimeLimit() {
    return retryTimeLimit;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  /** Bytes per second. */
  public long minReadThroughput() {
    return minReadThroughput;
  }

  /** Zero when hedging is off. */
  public Duration hedgeAfter() {
    return hedgeAfter;
  }

  /** Zero when unlimited. */
  @Override
  public long maxBytesPerSec() {
    return maxBytesPerSec;
  }

  @Override
  public int maxConcurrentRequests() {
    return maxConcurrentRequests;
  }

  /** Zero when there is no budget: retries are bounded by {@link #maxRetries()} and {@link #retryTimeLimit()} alone. */
  @Override
  public int retryBudget() {
    return retryBudget;
  }

  /** The store's modelled time to a response's first byte; zero turns off reading across gaps. */
  public Duration firstByteLatency() {
    return firstByteLatency;
  }

  /** The store's modelled transfer rate per request, in bytes per second. */
  public long readThroughput() {
    return readThroughput;
  }

  /**
   * The longest gap between two ranges of one blob that is worth reading to fetch both in one request: what the
   * store sends in {@link #firstByteLatency()} at {@link #readThroughput()} (2.4 MB by default). Reading a shorter gap
   * takes less time than the first byte of another request, and a request costs more than its bytes wherever a store
   * bills by request. The one home of that rule: the cache's fetches ask here.
   */
  public long bridgedGapBytes() {
    return (long) (firstByteLatency.toNanos() / 1e9 * readThroughput);
  }

  /** The deadline of one request reading {@code length} bytes: the request timeout plus the length at the minimum throughput. */
  @Override
  public long requestTimeoutNanos(long length) {
    long transfer = (long) (Math.max(0, length) * 1e9 / minReadThroughput);
    return saturatedAdd(requestTimeout.toNanos(), transfer);
  }

  /**
   * The longest a read of {@code length} bytes can take through this policy, retries and hedging included (not
   * counting waits for {@link #maxConcurrentRequests()} or {@link #maxBytesPerSec()}): no retry starts after
   * {@link #retryTimeLimit()}, and the last attempt has its own deadline.
   */
  public long maxCallNanos(long length) {
    return saturatedAdd(saturatedAdd(retryTimeLimit.toNanos(), hedgeAfter.toNanos()), requestTimeoutNanos(length));
  }

  /** How a deadline was set, for messages: {@code request_timeout 5s + 65536 bytes at min_read_throughput 1mb/s}. */
  @Override
  String explainDeadline(long length) {
    return REQUEST_TIMEOUT + " " + Durations.formatSetting(requestTimeout) + (length > 0 ? " + " + length + " bytes at "
        + MIN_READ_THROUGHPUT + " " + ByteSizes.format(minReadThroughput) + "/s" : "");
  }

  /** What bounds a call's retries, for messages: {@code max_retries=3, retry_time_limit=30s}. */
  @Override
  String explainRetryLimits() {
    return MAX_RETRIES + "=" + maxRetries + ", " + RETRY_TIME_LIMIT + "=" + Durations.formatSetting(retryTimeLimit);
  }

  /** The retry budget, for messages: {@code retry_budget=100}. */
  @Override
  String explainRetryBudget() {
    return RETRY_BUDGET + "=" + retryBudget;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StorePolicy p && p.maxRetries == maxRetries && p.retryDelay.equals(retryDelay)
        && p.retryMaxDelay.equals(retryMaxDelay) && p.retryTimeLimit.equals(retryTimeLimit)
        && p.requestTimeout.equals(requestTimeout) && p.minReadThroughput == minReadThroughput
        && p.hedgeAfter.equals(hedgeAfter) && p.maxBytesPerSec == maxBytesPerSec
        && p.maxConcurrentRequests == maxConcurrentRequests && p.retryBudget == retryBudget
        && p.firstByteLatency.equals(firstByteLatency) && p.readThroughput == readThroughput;
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxRetries, retryDelay, retryMaxDelay, retryTimeLimit, requestTimeout, minReadThroughput,
        hedgeAfter, maxBytesPerSec, maxConcurrentRequests, retryBudget, firstByteLatency, readThroughput);
  }

  @Override
  public String toString() {
    return MAX_RETRIES + "=" + maxRetries + ", " + RETRY_DELAY + "=" + Durations.formatSetting(retryDelay) + ", " + RETRY_MAX_DELAY + "="
        + Durations.formatSetting(retryMaxDelay) + ", " + RETRY_TIME_LIMIT + "=" + Durations.formatSetting(retryTimeLimit) + ", " + REQUEST_TIMEOUT + "="
        + Durations.formatSetting(requestTimeout) + ", " + MIN_READ_THROUGHPUT + "=" + ByteSizes.format(minReadThroughput) + ", "
        + HEDGE_AFTER + "=" + Durations.formatSetting(hedgeAfter) + ", " + MAX_BYTES_PER_SEC + "=" + ByteSizes.format(maxBytesPerSec)
        + ", " + MAX_CONCURRENT_REQUESTS + "=" + maxConcurrentRequests + ", " + RETRY_BUDGET + "=" + retryBudget
        + ", " + FIRST_BYTE_LATENCY + "=" + Durations.formatSetting(firstByteLatency) + ", " + READ_THROUGHPUT + "="
        + ByteSizes.format(readThroughput);
  }

  /** Settings of a {@link StorePolicy}; each method names the URI setting it stands for. */
  public static final class Builder {
    private int maxRetries = 3;
    private Duration retryDelay = Duration.ofMillis(100);
    private Duration retryMaxDelay = Duration.ofSeconds(5);
    private Duration retryTimeLimit = Duration.ofSeconds(30);
    private Duration requestTimeout = Duration.ofSeconds(5);
    private long minReadThroughput = 1 << 20;
    private Duration hedgeAfter = Duration.ZERO;
    private long maxBytesPerSec;
    private int maxConcurrentRequests = 64;
    private int retryBudget = 100;
    private Duration firstByteLatency = Duration.ofMillis(30);
    private long readThroughput = 80L << 20;

    private Builder() {}

    /** {@value StorePolicy#MAX_RETRIES}: retries of a failed request, 0 or more. */
    public Builder maxRetries(int retries) {
      if (retries < 0) {
        throw new IllegalArgumentException(MAX_RETRIES + " must not be negative, got " + retries);
      }
      this.maxRetries = retries;
      return this;
    }

    /** {@value StorePolicy#RETRY_DELAY}: the first back-off delay, positive. */
    public Builder retryDelay(Duration delay) {
      this.retryDelay = positive(RETRY_DELAY, delay);
      return this;
    }

    /** {@value StorePolicy#RETRY_MAX_DELAY}: the longest back-off delay, positive. */
    public Builder retryMaxDelay(Duration delay) {
      this.retryMaxDelay = positive(RETRY_MAX_DELAY, delay);
      return this;
    }

    /** {@value StorePolicy#RETRY_TIME_LIMIT}: no retry starts once a call has run this long. */
    public Builder retryTimeLimit(Duration limit) {
      this.retryTimeLimit = notNegative(RETRY_TIME_LIMIT, limit);
      return this;
    }

    /** {@value StorePolicy#REQUEST_TIMEOUT}: the fixed part of every read's deadline, positive. */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(REQUEST_TIMEOUT, timeout);
      return this;
    }

    /** {@value StorePolicy#MIN_READ_THROUGHPUT}: the slowest transfer a read may have, in bytes per second. */
    public Builder minReadThroughput(long bytesPerSecond) {
      if (bytesPerSecond < 1) {
        throw new IllegalArgumentException(MIN_READ_THROUGHPUT + " must be at least 1 byte per second, got " + bytesPerSecond);
      }
      this.minReadThroughput = bytesPerSecond;
      return this;
    }

    /** {@value StorePolicy#HEDGE_AFTER}: hedge ranged reads with no response after this long; zero turns hedging off. */
    public Builder hedgeAfter(Duration delay) {
      this.hedgeAfter = notNegative(HEDGE_AFTER, delay);
      return this;
    }

    /** {@value StorePolicy#MAX_BYTES_PER_SEC}: the most bytes read per second; zero means unlimited. */
    public Builder maxBytesPerSec(long bytesPerSecond) {
      if (bytesPerSecond < 0) {
        throw new IllegalArgumentException(MAX_BYTES_PER_SEC + " must not be negative, got " + bytesPerSecond);
      }
      this.maxBytesPerSec = bytesPerSecond;
      return this;
    }

    /** {@value StorePolicy#MAX_CONCURRENT_REQUESTS}: the most requests in flight; zero means unlimited. */
    public Builder maxConcurrentRequests(int requests) {
      if (requests < 0) {
        throw new IllegalArgumentException(MAX_CONCURRENT_REQUESTS + " must not be negative, got " + requests);
      }
      this.maxConcurrentRequests = requests;
      return this;
    }

    /** {@value StorePolicy#RETRY_BUDGET}: retries before the store counts as failing; zero turns the budget off. */
    public Builder retryBudget(int retries) {
      if (retries < 0) {
        throw new IllegalArgumentException(RETRY_BUDGET + " must not be negative, got " + retries);
      }
      this.retryBudget = retries;
      return this;
    }

    /**
     * {@value StorePolicy#FIRST_BYTE_LATENCY}: the store's modelled time to a first byte; zero turns off reading
     * across gaps.
     */
    public Builder firstByteLatency(Duration latency) {
      this.firstByteLatency = notNegative(FIRST_BYTE_LATENCY, latency);
      return this;
    }

    /** {@value StorePolicy#READ_THROUGHPUT}: the store's modelled transfer rate per request, in bytes per second. */
    public Builder readThroughput(long bytesPerSecond) {
      if (bytesPerSecond < 1) {
        throw new IllegalArgumentException(READ_THROUGHPUT + " must be at least 1 byte per second, got " + bytesPerSecond);
      }
      this.readThroughput = bytesPerSecond;
      return this;
    }

    public StorePolicy build() {
      if (retryMaxDelay.compareTo(retryDelay) < 0) {
        throw new IllegalArgumentException(RETRY_MAX_DELAY + " (" + Durations.formatSetting(retryMaxDelay) + ") must not be shorter than "
            + RETRY_DELAY + " (" + Durations.formatSetting(retryDelay) + ")");
      }
      return new StorePolicy(this);
    }

    private static Duration positive(String setting, Duration d) {
      Objects.requireNonNull(d, setting);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(setting + " must be positive, got " + d);
      }
      return d;
    }

    private static Duration notNegative(String setting, Duration d) {
      Objects.requireNonNull(d, setting);
      if (d.isNegative()) {
        throw new IllegalArgumentException(setting + " must not be negative, got " + d);
      }
      return d;
    }
  }
}
