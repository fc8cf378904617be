/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.SearchCost;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.store.CacheStats;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.document.LongPoint;

/** The JSON shapes of the API's answers. */
final class Views {
  private Views() {}

  /** A mounted index. */
  record Index(
      String name,
      String snapshot,
      String repository,
      String mode,
      String state,
      int leases,
      long readerHeapBytes,
      long numDocs,
      long sizeInBytes,
      int fileCount,
      Instant timestampFrom,
      Instant timestampTo,
      double localCopyProgress) {

    static Index of(MountInfo m, String timestampField) {
      long[] range = longRange(m.pointRanges().get(timestampField));
      return new Index(m.name(), m.snapshot(), m.repository(), m.mode().name().toLowerCase(Locale.ROOT),
          m.state().name().toLowerCase(Locale.ROOT), m.leases(), m.readerHeapBytes(), m.numDocs(),
          m.sizeInBytes(), m.fileCount(), range == null ? null : Instant.ofEpochMilli(range[0]),
          range == null ? null : Instant.ofEpochMilli(range[1]), m.localCopyProgress());
    }
  }

  /** A snapshot in the repository. */
  record Snapshot(String name, Instant createdAt, String luceneVersion, long numDocs, int fileCount, long totalBytes,
      Instant timestampFrom, Instant timestampTo) {

    static Snapshot of(SnapshotInfo s, String timestampField) {
      long[] range = longRange(s.pointRanges().get(timestampField));
      return new Snapshot(s.name(), s.createdAt(), s.luceneVersion(), s.numDocs(), s.fileCount(), s.totalBytes(),
          range == null ? null : Instant.ofEpochMilli(range[0]), range == null ? null : Instant.ofEpochMilli(range[1]));
    }
  }

  /** Which indices a search searched, skipped without opening, or failed on (with the failure). */
  record Indices(List<String> searched, List<String> skipped, Map<String, String> failed, List<String> timedOut) {}

  /** One hit: its index, score (null when sorted), sort values, and stored fields. */
  record Hit(String index, Float score, Object[] sort, Map<String, Object> fields) {}

  /** A search's answer. */
  record SearchResult(long total, String totalRelation, long tookMillis, boolean timedOut, List<Hit> hits,
      Indices indices, CacheUse cache, SearchCost cost) {}

  /** One bucket of a histogram: its start, and the matches in it. */
  record Bucket(long key, Instant time, long count) {}

  /** A histogram's answer. */
  record Histogram(long intervalMillis, Instant from, Instant to, long total, List<Bucket> buckets, long tookMillis,
      boolean timedOut, Indices indices, CacheUse cache, SearchCost cost) {}

  /** How the cache's counters moved while a request ran (other requests at the same time count too). */
  record CacheUse(long hits, long misses, double hitRatio, long fetches, long bytesFetched, long directReads,
      long bytesReadDirect) {

    static CacheUse between(CacheStats.Counts before, CacheStats.Counts after) {
      long hits = after.hits() - before.hits();
      long misses = after.misses() - before.misses();
      return new CacheUse(hits, misses, hits + misses == 0 ? 0 : (double) hits / (hits + misses),
          after.fetches() - before.fetches(), after.bytesFetched() - before.bytesFetched(),
          after.directReads() - before.directReads(), after.bytesReadDirect() - before.bytesReadDirect());
    }
  }

  /** Counts of one kind of read. */
  record Counts(long hits, long misses, double hitRatio, long bytesReadFromCache, long fetches, long bytesFetched,
      long directReads, long bytesReadDirect, long bytesReadFromWarmSet, long checksumMismatches,
      long chunkTableFetches, long storeRequests) {

    static Counts of(CacheStats.Counts c) {
      return new Counts(c.hits(), c.misses(), c.hitRatio(), c.bytesReadFromCache(), c.fetches(), c.bytesFetched(),
          c.directReads(), c.bytesReadDirect(), c.bytesReadFromWarmSet(), c.checksumMismatches(),
          c.chunkTableFetches(), c.storeRequests());
    }
  }

  /** The cache's state and counters. */
  record Cache(String path, long sizeInBytes, long regionSize, int regions, int regionsInUse, long evictions,
      long fillsInFlight, long cacheWriteFailures, Counts total, Map<String, Counts> perIndex) {

    static Cache of(String path, CacheStats s) {
      Map<String, Counts> perIndex = new TreeMap<>();
      s.perIndex().forEach((name, counts) -> perIndex.put(name, Counts.of(counts)));
      return new Cache(path, s.sizeInBytes(), s.regionSize(), s.regions(), s.regionsInUse(), s.evictions(),
          s.fillsInFlight(), s.cacheWriteFailures(), Counts.of(s.total()), perIndex);
    }
  }

  /** Min and max of a one-dimensional long point range, or null if it is none. */
  static long[] longRange(PointRange r) {
    if (r == null || r.numDimensions() != 1 || r.bytesPerDimension() != Long.BYTES) {
      return null;
    }
    return new long[] {LongPoint.decodeDimension(r.minPackedValue(), 0), LongPoint.decodeDimension(r.maxPackedValue(), 0)};
  }
}
