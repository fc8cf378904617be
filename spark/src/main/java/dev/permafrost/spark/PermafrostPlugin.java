/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Closes each executor's Permafrost cache and readers when the executor stops, before the JVM exits. Optional (a JVM
 * shutdown hook closes them otherwise); enable it with {@code spark.plugins=dev.permafrost.spark.PermafrostPlugin}.
 */
public final class PermafrostPlugin implements SparkPlugin {
  /** Creates the plugin; Spark calls this. */
  public PermafrostPlugin() {}

  @Override
  public DriverPlugin driverPlugin() {
    return null;
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new ExecutorPlugin() {
      @Override
      public void shutdown() {
        ExecutorNode.closeAll();
      }
    };
  }
}
