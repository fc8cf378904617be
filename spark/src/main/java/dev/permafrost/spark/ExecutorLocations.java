/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The live executors as Spark's task locations ({@code executor_<host>_<id>}), read on the driver from the block
 * manager master, which learns of an executor when it registers and forgets it when it is lost. Empty in local mode,
 * where the driver runs every task.
 */
final class ExecutorLocations {
  private static final String DRIVER = "driver";

  private ExecutorLocations() {}

  static List<String> live() {
    SparkEnv env = SparkEnv.get();
    if (env == null) {
      return List.of();
    }
    List<String> locations = new ArrayList<>();
    for (BlockManagerId id : CollectionConverters.asJava(env.blockManager().master().getMemoryStatus().keySet())) {
      if (!DRIVER.equals(id.executorId())) {
        locations.add(location(id.host(), id.executorId()));
      }
    }
    locations.sort(null);
    return locations;
  }

  static String location(String host, String executorId) {
    return "executor_" + host + "_" + executorId;
  }
}
