/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.Serial;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * The snapshots one task searches, one after the other (several small ones together, see {@link Grouping}), and the
 * executors whose caches should hold them ({@link Affinity}).
 *
 * @param snapshots the snapshots, each also the index's name in its rows
 * @param locations the preferred executors, best first (empty for no preference)
 */
record SnapshotPartition(String[] snapshots, String[] locations) implements InputPartition {
  @Serial private static final long serialVersionUID = 2L;

  @Override
  public String[] preferredLocations() {
    return locations.clone();
  }
}
