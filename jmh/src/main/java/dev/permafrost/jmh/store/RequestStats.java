/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a blob store's round trips and bytes, and the longest chain of dependent requests.
 *
 * <p>Dependency is tracked per thread: a request gets level 1 + the highest level among the requests that the
 * same thread saw complete before issuing it, so a thread that issues requests one after the other (each after
 * the previous completed) builds a chain, while requests issued while another is in flight (prefetch, parallel
 * fills) share a level. This over-counts when one pool thread serves unrelated fills in turn, and under-counts a
 * chain that hops between threads; it is exact for a single search thread that reads through the store.
 *
 * <p>Because a cache may fetch on its own pool threads, a second, global measure is kept too: a request's global
 * level is 1 + the highest level of any request (of any thread) completed before it was issued. With one search
 * running, that is the number of round-trip "waves" on the critical path, however the fetches hop threads; with
 * several searches running at once it over-counts.
 */
public final class RequestStats {
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong metadataRequests = new AtomicLong();
  private final AtomicLong bytesRequested = new AtomicLong();
  private final AtomicLong bytesRead = new AtomicLong();
  private final AtomicLong maxChain = new AtomicLong();
  private final AtomicLong completedGlobalLevel = new AtomicLong();
  private final AtomicLong maxGlobalChain = new AtomicLong();
  private final AtomicLong generation = new AtomicLong();
  private final ThreadLocal<Chain> chains = ThreadLocal.withInitial(Chain::new);

  /** One thread's chain: the level of the deepest request it saw complete, per stats generation. */
  private static final class Chain {
    long generation = -1;
    int completedLevel;
  }

  /** A request in flight; {@link #complete()} it once its bytes are read or it failed. */
  public final class Request {
    private final Chain chain;
    private final long generation;
    private final int level;
    private final long globalLevel;
    private boolean completed;

    private Request(Chain chain, long generation, int level, long globalLevel) {
      this.chain = chain;
      this.generation = generation;
      this.level = level;
      this.globalLevel = globalLevel;
    }

    /** Records that {@code n} bytes of the response arrived. */
    public void bytesRead(long n) {
      bytesRead.addAndGet(n);
    }

    /** Marks the request done: later requests of the issuing thread depend on it. Idempotent. */
    public void complete() {
      synchronized (chain) {
        if (completed) {
          return;
        }
        completed = true;
        if (chain.generation == generation) {
          chain.completedLevel = Math.max(chain.completedLevel, level);
        }
      }
      if (RequestStats.this.generation.get() == generation) {
        completedGlobalLevel.accumulateAndGet(globalLevel, Math::max);
      }
    }

    /** This request's place in its thread's chain, from 1. */
    public int level() {
      return level;
    }

    /** This request's wave: 1 + the deepest wave of any request completed before it was issued. */
    public long wave() {
      return globalLevel;
    }
  }

  /** Records a data request (a ranged or whole GET) for {@code length} bytes, issued by the current thread. */
  public Request begin(long length) {
    requests.incrementAndGet();
    bytesRequested.addAndGet(length);
    return newRequest();
  }

  /** Records a metadata request (HEAD, LIST) issued by the current thread. */
  public Request beginMetadata() {
    metadataRequests.incrementAndGet();
    return newRequest();
  }

  private Request newRequest() {
    Chain chain = chains.get();
    long gen = generation.get();
    int level;
    synchronized (chain) {
      if (chain.generation != gen) {
        chain.generation = gen;
        chain.completedLevel = 0;
      }
      level = chain.completedLevel + 1;
    }
    maxChain.accumulateAndGet(level, Math::max);
    long globalLevel = completedGlobalLevel.get() + 1;
    maxGlobalChain.accumulateAndGet(globalLevel, Math::max);
    return new Request(chain, gen, level, globalLevel);
  }

  /** Zeroes every counter and starts every thread's chain afresh. */
  public void reset() {
    generation.incrementAndGet();
    requests.set(0);
    metadataRequests.set(0);
    bytesRequested.set(0);
    bytesRead.set(0);
    maxChain.set(0);
    completedGlobalLevel.set(0);
    maxGlobalChain.set(0);
  }

  /** The counters as they are now. */
  public Snapshot snapshot() {
    return new Snapshot(
        requests.get(), metadataRequests.get(), bytesRequested.get(), bytesRead.get(), maxChain.get(), maxGlobalChain.get());
  }

  /**
   * Counters at one moment.
   *
   * @param requests data requests (GETs)
   * @param metadataRequests HEAD and LIST requests
   * @param bytesRequested the sum of the requested ranges' lengths
   * @param bytesRead bytes actually read from responses
   * @param longestChain the longest chain of dependent requests issued by one thread (data and metadata)
   * @param roundTripWaves the longest chain counted across threads (see the class comment)
   */
  public record Snapshot(
      long requests, long metadataRequests, long bytesRequested, long bytesRead, long longestChain, long roundTripWaves) {
    @Override
    public String toString() {
      return requests + " GETs, " + metadataRequests + " HEAD/LIST, " + bytesRead + " bytes read, longest chain "
          + longestChain + " per thread, " + roundTripWaves + " across threads";
    }
  }
}
