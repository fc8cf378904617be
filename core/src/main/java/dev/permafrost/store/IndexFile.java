/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.FileEntry;
import java.util.List;

/**
 * What every input of one file of one mounted index shares: the manifest entry's facts, the bytes kept in the
 * manifest, the cached view of the file's blob, the store to fetch it from (with its deadlines), the counters its
 * reads go to, and the heap its scans may read into. It is the origin of every fetch made for its inputs.
 */
final class IndexFile implements FetchOrigin {
  final String name;
  final String snapshot;
  final long length;
  final BlobStore store;
  /** Null for a file kept whole in the manifest. */
  final CachedBlob cachedBlob;
  final CacheStatsCounter counter;
  /** The heap columns read directly from the store may take (shared by the whole cache). */
  final DirectReadBudget directReadBudget;
  private final StorePolicy policy;
  private final String storeDescription;
  /** Sorted, disjoint ranges [warmStarts[i], warmEnds[i]) kept in the manifest, and their bytes. */
  private final long[] warmStarts;
  private final long[] warmEnds;
  private final HeapWindow[] warmWindows;

  IndexFile(FileEntry entry, String snapshot, BlobStore store, String storeDescription, CachedBlob cachedBlob,
      CacheStatsCounter counter, DirectReadBudget directReadBudget) {
    this.name = entry.name();
    this.snapshot = snapshot;
    this.length = entry.length();
    this.store = store;
    this.storeDescription = storeDescription;
    this.policy = StorePolicy.of(store);
    this.cachedBlob = cachedBlob;
    this.counter = counter;
    this.directReadBudget = directReadBudget;
    if (entry.isKeptWhole()) {
      warmStarts = new long[] {0};
      warmEnds = new long[] {entry.length()};
      warmWindows = new HeapWindow[] {new HeapWindow(entry.wholeBytes())};
    } else {
      List<FileEntry.WarmRange> ranges = entry.warmRanges();
      warmStarts = new long[ranges.size()];
      warmEnds = new long[ranges.size()];
      warmWindows = new HeapWindow[ranges.size()];
      for (int i = 0; i < ranges.size(); i++) {
        warmStarts[i] = ranges.get(i).offset();
        warmEnds[i] = ranges.get(i).end();
        warmWindows[i] = new HeapWindow(ranges.get(i).bytes());
      }
    }
    assert cachedBlob != null || entry.isKeptWhole();
  }

  /** The index of the manifest range holding {@code position}, or -1. */
  int warmRange(long position) {
    int lo = 0;
    int hi = warmStarts.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (warmEnds[mid] <= position) {
        lo = mid + 1;
      } else if (warmStarts[mid] > position) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  /** The start of the first manifest range after {@code position}, or Long.MAX_VALUE. */
  long nextWarmStart(long position) {
    int lo = 0;
    int hi = warmStarts.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (warmStarts[mid] <= position) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < warmStarts.length ? warmStarts[lo] : Long.MAX_VALUE;
  }

  long warmStart(int range) {
    return warmStarts[range];
  }

  long warmEnd(int range) {
    return warmEnds[range];
  }

  HeapWindow warmWindow(int range) {
    return warmWindows[range];
  }

  @Override
  public BlobStore store() {
    return store;
  }

  @Override
  public String storeDescription() {
    return storeDescription;
  }

  @Override
  public CacheStatsCounter counter() {
    return counter;
  }

  @Override
  public long deadlineAfter(long now, long bytes) {
    if (policy == null) {
      return Long.MAX_VALUE;
    }
    long deadline = now + policy.maxCallNanos(bytes);
    return deadline - now < 0 ? Long.MAX_VALUE : deadline;
  }

  @Override
  public DirectReadBudget directReadBudget() {
    return directReadBudget;
  }

  @Override
  public long bridgedGap() {
    return policy == null ? 0 : policy.bridgedGapBytes();
  }

  @Override
  public String deadlineExplained() {
    return policy == null ? "none" : StorePolicy.RETRY_TIME_LIMIT + " " + policy.retryTimeLimit().toMillis() + "ms + "
        + StorePolicy.REQUEST_TIMEOUT + " " + policy.requestTimeout().toMillis() + "ms + the length at "
        + StorePolicy.MIN_READ_THROUGHPUT + " " + policy.minReadThroughput() + " bytes/s";
  }

  @Override
  public String toString() {
    return name + " of snapshot '" + snapshot + "'";
  }
}
