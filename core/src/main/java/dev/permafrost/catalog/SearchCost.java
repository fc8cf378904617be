/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.blob.Durations;
import java.time.Duration;
import java.util.Map;

/**
 * What one search cost, counted for it alone even while other searches run (see
 * {@link dev.permafrost.store.ReadCost}): its store requests, the bytes they brought, the bytes served from the cache
 * (a lower bound: inputs report them in batches), the waves of dependent requests on its critical path, the time its
 * threads waited for the store, the readers it opened, and what became of its indices. Per index with
 * {@link SearchRequest.Builder#profile(boolean)}.
 *
 * @param storeRequests requests this search asked the store for (fetches into the cache, direct reads, chunk tables),
 *     each counted when asked for: a prefetch it queued counts even if it is sent after the search returned, and one
 *     called off before it was sent does not; always the sum of {@link #perIndex}'s when that is filled
 * @param bytesFetched bytes those requests asked for (one cut short, as when called off part way, counts whole)
 * @param bytesFromCache bytes served from the cache, at least
 * @param waves waves of dependent requests, by dependency: a request's wave is one more than the deepest wave whose
 *     bytes the thread that asked for it had read (see {@link dev.permafrost.store.ReadCost}): the same on any
 *     machine for the same reads
 * @param clockWaves waves as the clock saw them: a request's wave is one more than the deepest of this search's
 *     requests completed when it was sent (a busy CPU that makes independent requests follow each other adds some)
 * @param storeWaitMillis time the search's threads spent waiting for the store, summed over them
 * @param readersOpened readers this search opened (the others were open already)
 * @param indicesSearched indices searched
 * @param skippedCanMatch indices skipped because their recorded ranges cannot match
 * @param skippedEarlyStop indices a sorted top-N did not need to search for hits (with an exact total, each was
 *     counted: from its index statistics where Lucene can, which reads nothing)
 * @param skippedUnmounted indices a glob selected that were unmounted before the search reached them
 * @param failed indices that failed (with partial results allowed)
 * @param timedOut indices not finished at the timeout
 * @param perIndex each index's own costs, by name, with profiling on; else empty
 */
public record SearchCost(long storeRequests, long bytesFetched, long bytesFromCache, int waves, int clockWaves,
    long storeWaitMillis,
    int readersOpened, int indicesSearched, int skippedCanMatch, int skippedEarlyStop, int skippedUnmounted, int failed,
    int timedOut, Map<String, IndexCost> perIndex) {

  /**
   * One index's part of a search's cost.
   *
   * @param storeRequests requests asked of the store for it
   * @param bytesFetched bytes they asked for
   * @param bytesFromCache bytes served from the cache, at least
   * @param waves waves of dependent requests among its own, by dependency, counted from the search's start
   * @param clockWaves its waves as the clock saw them
   * @param storeWaitMillis time its readers waited for the store
   * @param readerOpened whether this search opened its reader
   */
  public record IndexCost(long storeRequests, long bytesFetched, long bytesFromCache, int waves, int clockWaves,
      long storeWaitMillis, boolean readerOpened) {}

  /** One line for a log: the requests, waves, bytes, wait and indices. */
  public String summary() {
    return storeRequests + " store requests in " + waves + " waves (" + clockWaves + " by the clock), " + bytesFetched + " bytes fetched, " + bytesFromCache
        + "+ bytes from the cache, " + Durations.format(Duration.ofMillis(storeWaitMillis)) + " waiting for the store, "
        + readersOpened + " readers opened;"
        + " indices: " + indicesSearched + " searched, " + skippedCanMatch + " skipped by their ranges, " + skippedEarlyStop
        + " not needed by the sorted top-N, " + skippedUnmounted + " unmounted, " + failed + " failed, " + timedOut
        + " timed out";
  }
}
