/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.snapshot.FileEntry;
import java.util.List;

/**
 * What every input of one file of one mounted index shares: the manifest entry, the bytes kept in the manifest,
 * the cached view of the file's blob, and the counters its reads go to.
 */
final class BlobFile {
  final String name;
  final long length;
  final BlobStore store;
  final SharedRegionCache cache;
  /** Null for a file kept whole in the manifest. */
  final CacheFile cacheFile;
  final CacheStatsCounter counter;
  /** Sorted, disjoint ranges [hotStarts[i], hotEnds[i]) kept in the manifest, and their bytes. */
  private final long[] hotStarts;
  private final long[] hotEnds;
  private final HeapWindow[] hotWindows;

  BlobFile(FileEntry entry, BlobStore store, SharedRegionCache cache, CacheFile cacheFile, CacheStatsCounter counter) {
    this.name = entry.name();
    this.length = entry.length();
    this.store = store;
    this.cache = cache;
    this.cacheFile = cacheFile;
    this.counter = counter;
    if (entry.isInlined()) {
      hotStarts = new long[] {0};
      hotEnds = new long[] {entry.length()};
      hotWindows = new HeapWindow[] {new HeapWindow(entry.inlinedBytes())};
    } else {
      List<FileEntry.HotRange> ranges = entry.hotRanges();
      hotStarts = new long[ranges.size()];
      hotEnds = new long[ranges.size()];
      hotWindows = new HeapWindow[ranges.size()];
      for (int i = 0; i < ranges.size(); i++) {
        hotStarts[i] = ranges.get(i).offset();
        hotEnds[i] = ranges.get(i).end();
        hotWindows[i] = new HeapWindow(ranges.get(i).bytes());
      }
    }
    assert cacheFile != null || entry.isInlined();
  }

  /** The index of the manifest range holding {@code position}, or -1. */
  int hotRange(long position) {
    int lo = 0;
    int hi = hotStarts.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (hotEnds[mid] <= position) {
        lo = mid + 1;
      } else if (hotStarts[mid] > position) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  long hotStart(int range) {
    return hotStarts[range];
  }

  long hotEnd(int range) {
    return hotEnds[range];
  }

  HeapWindow hotWindow(int range) {
    return hotWindows[range];
  }
}
