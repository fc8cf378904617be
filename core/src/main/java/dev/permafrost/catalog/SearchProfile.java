/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.store.ReadCost;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts what one search costs while it runs: a {@link ReadCost} per index, counting into the search's, that the
 * index's tasks attach to their threads and settle as they end (reported one by one when the request asks for a
 * profile), and the readers it opened; at the end, its {@link SearchCost}.
 */
final class SearchProfile {
  private final ReadCost total = new ReadCost();
  private final boolean perIndex;
  private final Map<String, ReadCost> indices = new ConcurrentHashMap<>();
  private final Set<String> opened = ConcurrentHashMap.newKeySet();

  SearchProfile(boolean perIndex) {
    this.perIndex = perIndex;
  }

  /**
   * The cost the reads for {@code index} count in: its own, counting in the search's (an index task settles its own
   * inputs as it ends; see {@link ReadCost#settle}).
   */
  ReadCost of(String index) {
    return indices.computeIfAbsent(index, k -> total.child());
  }

  /** The deepest wave whose bytes the search's tasks have read so far (see {@link ReadCost#readDepth()}). */
  int readDepth() {
    return total.readDepth();
  }

  /** Notes that {@code lease}'s acquire opened its reader. */
  void leased(Lease lease) {
    if (lease.opened) {
      opened.add(lease.name());
    }
  }

  SearchCost cost(List<String> searched, Map<String, SkipReason> skipped, Map<String, String> failed,
      List<String> timedOut) {
    int canMatch = 0;
    int earlyStop = 0;
    int unmounted = 0;
    for (SkipReason reason : skipped.values()) {
      switch (reason) {
        case CANNOT_MATCH -> canMatch++;
        case CANNOT_COMPETE -> earlyStop++;
        case UNMOUNTED -> unmounted++;
      }
    }
    // One cut: each index's counts are read once, and the search's are their sums (every request and byte counts
    // through an index's cost), so the totals always equal the sum of the parts, even while a fetch this search
    // queued (a prefetch, the rest of a fill) is sent after its tasks ended
    Map<String, SearchCost.IndexCost> each = new TreeMap<>();
    long requests = 0;
    long bytesFetched = 0;
    long bytesFromCache = 0;
    long waitNanos = 0;
    for (Map.Entry<String, ReadCost> e : indices.entrySet()) {
      ReadCost c = e.getValue();
      SearchCost.IndexCost one = new SearchCost.IndexCost(c.requests(), c.bytesFetched(), c.bytesFromCache(), c.waves(),
          c.clockWaves(), c.waitNanos() / 1_000_000, opened.contains(e.getKey()));
      requests += one.storeRequests();
      bytesFetched += one.bytesFetched();
      bytesFromCache += one.bytesFromCache();
      waitNanos += c.waitNanos();
      if (perIndex) {
        each.put(e.getKey(), one);
      }
    }
    return new SearchCost(requests, bytesFetched, bytesFromCache, total.waves(), total.clockWaves(), waitNanos / 1_000_000,
        opened.size(),
        searched.size(), canMatch, earlyStop, unmounted, failed.size(), timedOut.size(), Collections.unmodifiableMap(each));
  }
}
