/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * The bytes the executors' caches fetched from the store for a scan, summed over its tasks: shown with the scan in
 * Spark's SQL UI. Zero on a warm repeat of a query whose snapshots stayed in their executors' caches.
 */
public final class BytesFetchedMetric extends CustomSumMetric {
  /** The metric's name. */
  public static final String NAME = "permafrostBytesFetched";

  /** Creates the metric; Spark calls this. */
  public BytesFetchedMetric() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "bytes fetched from the store";
  }
}
