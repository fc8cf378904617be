/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.util.Map;

/**
 * A point-in-time view of a {@link SharedRegionCache}'s use.
 *
 * @param sizeInBytes bytes of the cache file given to regions
 * @param regionSize the size of a full region
 * @param tailRegionSize the size of a region for file tails and small files
 * @param regions slots the cache file is cut into now, free or not (slots of every size are split from free space
 *     when a region needs one, and merged back when freed)
 * @param regionsInUse slots holding a region of some file
 * @param evictions regions taken from one file to give to another
 * @param fillsInFlight fetches from the store asked for and not done yet: fills of the cache, reads directly from the
 *     store, chunk tables (queued or running)
 * @param cacheWriteFailures fills that could not write to the cache file (a full disk): their readers read
 *     directly from the store instead
 * @param total counts over every index and file type
 * @param perIndex counts per mounted index (by the name it was mounted under)
 * @param perExtension counts per Lucene file extension ({@code tim}, {@code doc}, {@code dvd}, ...)
 */
public record CacheStats(
    long sizeInBytes,
    long regionSize,
    long tailRegionSize,
    int regions,
    int regionsInUse,
    long evictions,
    long fillsInFlight,
    long cacheWriteFailures,
    Counts total,
    Map<String, Counts> perIndex,
    Map<String, Counts> perExtension) {

  /**
   * Counts of one kind of read.
   *
   * @param hits lookups of a region answered from bytes already in the cache (one per run of cached bytes a
   *     reader moves into, not one per read call), counted at once
   * @param misses lookups that had to wait for bytes to be fetched (their own fetch or a shared one)
   * @param bytesReadFromCache bytes served from the cache file (a reader adds them in batches, as it moves between
   *     ranges, and when it is closed: this one lags a little behind the reads, at no cost to them)
   * @param fetches requests to the blob store that filled the cache
   * @param bytesFetched bytes those requests brought into the cache
   * @param directReads requests served directly from the store, bypassing the cache (a region was not admitted,
   *     nothing could be evicted, or the cache file could not be written); verified like fills
   * @param bytesReadDirect bytes of those requests
   * @param bytesReadFromWarmSet bytes served from the manifest (files kept whole, headers, footers)
   * @param checksumMismatches fetched chunks (or whole files) whose bytes did not match the checksum the snapshot
   *     recorded: each was fetched again, and never served; a second mismatch failed the read
   * @param chunkTableFetches requests for chunk tables (one per blob when it is first read, sent in parallel with
   *     the data it verifies)
   */
  public record Counts(
      long hits,
      long misses,
      long bytesReadFromCache,
      long fetches,
      long bytesFetched,
      long directReads,
      long bytesReadDirect,
      long bytesReadFromWarmSet,
      long checksumMismatches,
      long chunkTableFetches) {
    public static final Counts ZERO = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    Counts plus(Counts o) {
      return new Counts(
          hits + o.hits,
          misses + o.misses,
          bytesReadFromCache + o.bytesReadFromCache,
          fetches + o.fetches,
          bytesFetched + o.bytesFetched,
          directReads + o.directReads,
          bytesReadDirect + o.bytesReadDirect,
          bytesReadFromWarmSet + o.bytesReadFromWarmSet,
          checksumMismatches + o.checksumMismatches,
          chunkTableFetches + o.chunkTableFetches);
    }

    /** Blob store requests of any kind: fills, direct reads and chunk tables. */
    public long storeRequests() {
      return fetches + directReads + chunkTableFetches;
    }

    /** Hits over hits plus misses, or 0 when there were none. */
    public double hitRatio() {
      long lookups = hits + misses;
      return lookups == 0 ? 0 : (double) hits / lookups;
    }
  }
}
