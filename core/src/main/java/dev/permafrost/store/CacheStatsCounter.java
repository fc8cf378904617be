/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link CacheStats}, one set per mounted index and file extension. */
final class CacheStatsCounter {
  final LongAdder hits = new LongAdder();
  final LongAdder misses = new LongAdder();
  final LongAdder bytesReadFromCache = new LongAdder();
  final LongAdder fetches = new LongAdder();
  final LongAdder bytesFetched = new LongAdder();
  final LongAdder directReads = new LongAdder();
  final LongAdder bytesReadDirect = new LongAdder();
  final LongAdder bytesReadFromWarmSet = new LongAdder();
  final LongAdder checksumMismatches = new LongAdder();
  final LongAdder chunkTableFetches = new LongAdder();

  CacheStats.Counts snapshot() {
    return new CacheStats.Counts(
        hits.sum(),
        misses.sum(),
        bytesReadFromCache.sum(),
        fetches.sum(),
        bytesFetched.sum(),
        directReads.sum(),
        bytesReadDirect.sum(),
        bytesReadFromWarmSet.sum(),
        checksumMismatches.sum(),
        chunkTableFetches.sum());
  }
}
