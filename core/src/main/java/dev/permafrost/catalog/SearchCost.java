/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.util.Map;

/**
 * What one search cost, counted for it alone even while other searches run (see
 * {@link dev.permafrost.store.ReadCost}): its store requests, the bytes they brought, the bytes served from the cache
 * (a lower bound: inputs report them in batches), the waves of dependent requests on its critical path, the time its
 * threads waited for the store, the readers it opened, and what became of its indices. Per index with
 * {@link SearchRequest.Builder#profile(boolean)}.
 *
 * @param storeRequests requests sent to the store for this search (fetches into the cache, direct reads, chunk tables)
 *     by the time it returned: a prefetch it queued and that was sent later is not in it; always the sum of
 *     {@link #perIndex}'s when that is filled
 * @param bytesFetched bytes those requests brought
 * @param bytesFromCache bytes served from the cache, at least
 * @param waves waves of dependent requests: a request's wave is one more than the deepest of this search's requests
 *     completed when it was sent
 * @param storeWaitMillis time the search's threads spent waiting for the store, summed over them
 * @param readersOpened readers this search opened (the others were open already)
 * @param indicesSearched indices searched
 * @param skippedCanMatch indices skipped because their recorded ranges cannot match
 * @param skippedEarlyStop indices a sorted top-N did not need to open
 * @param skippedUnmounted indices a glob selected that were unmounted before the search reached them
 * @param failed indices that failed (with partial results allowed)
 * @param timedOut indices not finished at the timeout
 * @param perIndex each index's own costs, by name, with profiling on; else empty
 */
public record SearchCost(long storeRequests, long bytesFetched, long bytesFromCache, int waves, long storeWaitMillis,
    int readersOpened, int indicesSearched, int skippedCanMatch, int skippedEarlyStop, int skippedUnmounted, int failed,
    int timedOut, Map<String, IndexCost> perIndex) {

  /**
   * One index's part of a search's cost.
   *
   * @param storeRequests requests sent to the store for it
   * @param bytesFetched bytes they brought
   * @param bytesFromCache bytes served from the cache, at least
   * @param waves waves of dependent requests among its own
   * @param storeWaitMillis time its readers waited for the store
   * @param readerOpened whether this search opened its reader
   */
  public record IndexCost(long storeRequests, long bytesFetched, long bytesFromCache, int waves, long storeWaitMillis,
      boolean readerOpened) {}

  /** One line for a log: the requests, waves, bytes, wait and indices. */
  public String summary() {
    return storeRequests + " store requests in " + waves + " waves, " + bytesFetched + " bytes fetched, " + bytesFromCache
        + "+ bytes from the cache, " + storeWaitMillis + " ms waiting for the store, " + readersOpened + " readers opened;"
        + " indices: " + indicesSearched + " searched, " + skippedCanMatch + " skipped by their ranges, " + skippedEarlyStop
        + " not needed by the sorted top-N, " + skippedUnmounted + " unmounted, " + failed + " failed, " + timedOut
        + " timed out";
  }
}
