/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.Serial;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One snapshot to search, and the executors whose caches should hold it ({@link Affinity}).
 *
 * @param snapshot the snapshot, which is also the index's name in every row
 * @param locations the preferred executors, best first (empty for no preference)
 */
record SnapshotPartition(String snapshot, String[] locations) implements InputPartition {
  @Serial private static final long serialVersionUID = 1L;

  @Override
  public String[] preferredLocations() {
    return locations.clone();
  }
}
