/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heap a catalog's mounts keep to open their readers with no request ({@link SnapshotSource#checkAndKeep}: an
 * engine's shard keeps what opening it reads, up to a megabyte), bounded for the whole catalog
 * ({@link Catalog.Builder#maxKeptHeap}): a source bounds what one mount keeps, this bounds their sum, which thousands
 * of mounted shards would otherwise take from the heap. A mount past the bound keeps nothing: its manifest is read
 * again through the cache at each open, and opening its reader costs what it costs any mount whose bytes the cache
 * does not hold (for an engine's shard, two waves of requests).
 */
final class KeptOpenings {
  private static final Logger log = LoggerFactory.getLogger(KeptOpenings.class);

  private final long maxBytes;
  /** What the mounts keep now. Guarded by this. */
  private long bytes;
  /** Whether a mount has found the bound reached, since the catalog opened: said once. Guarded by this. */
  private boolean said;

  KeptOpenings(long maxBytes) {
    assert maxBytes > 0 : maxBytes;
    this.maxBytes = maxBytes;
  }

  /**
   * What mount {@code name} keeps of {@code kept} (what its source keeps, or null): {@code kept}, its heap counted
   * until {@link #release}, if the mounts keep no more than the bound with it; else null.
   */
  synchronized SnapshotManifest reserve(String name, SnapshotManifest kept) {
    if (kept == null) {
      return null;
    }
    long more = kept.heapBytes();
    if (bytes + more > maxBytes) {
      if (!said) {
        said = true;
        log.warn("mount '{}' keeps none of what opening it reads ({}): the catalog's mounts keep {} already, and keep"
            + " at most maxKeptHeap ({}) in all; such mounts open their readers with requests (said once)", name,
            ByteSizes.format(more), ByteSizes.format(bytes), ByteSizes.format(maxBytes));
      }
      return null;
    }
    bytes += more;
    return kept;
  }

  /** A mount that kept {@code released} bytes is gone (unmounted, or its mount failed after {@link #reserve}). */
  synchronized void release(long released) {
    bytes -= released;
    assert bytes >= 0 : bytes + " after releasing " + released;
  }
}
