/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;

/**
 * A fetch of the byte range [start, end) of a region (offsets relative to the region) from the blob store into
 * the cache file. Readers of any byte in the range wait for it instead of fetching again; they wake as pages
 * arrive. All fields but the range are guarded by the region's monitor.
 */
final class Fill {
  final long start;
  final long end;
  /** Bytes written so far from {@link #start}. */
  long written;
  /** Set when the fetch failed; waiters rethrow it. */
  IOException error;
  boolean done;

  Fill(long start, long end) {
    assert start < end;
    this.start = start;
    this.end = end;
  }

  @Override
  public String toString() {
    return "fill [" + start + ", " + end + ")" + (done ? " done" : "") + (error != null ? " failed" : "");
  }
}
