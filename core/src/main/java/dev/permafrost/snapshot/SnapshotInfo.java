/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a snapshot is, without its file list: read from its manifest.
 *
 * @param name the snapshot's name in its repository
 * @param createdAt when the manifest was written
 * @param luceneVersion the Lucene version that wrote the commit
 * @param generation the commit's generation ({@code segments_N})
 * @param segmentCount segments in the commit
 * @param maxDoc documents including deleted ones
 * @param numDocs live documents
 * @param fileCount index files in the snapshot
 * @param totalBytes the sum of the index files' lengths
 * @param userData the commit's user data
 * @param pointRanges min and max of the point fields named when the snapshot was taken
 */
public record SnapshotInfo(
    String name,
    Instant createdAt,
    String luceneVersion,
    long generation,
    int segmentCount,
    long maxDoc,
    long numDocs,
    int fileCount,
    long totalBytes,
    Map<String, String> userData,
    Map<String, PointRange> pointRanges) {

  /**
   * This snapshot's info with {@code ranges} as its point ranges: those a source records as it checks the snapshot at
   * mount, when the snapshot's own metadata records none (an engine's shard).
   */
  public SnapshotInfo withPointRanges(Map<String, PointRange> ranges) {
    return new SnapshotInfo(name, createdAt, luceneVersion, generation, segmentCount, maxDoc, numDocs, fileCount,
        totalBytes, userData, Collections.unmodifiableMap(new LinkedHashMap<>(ranges)));
  }
}
