/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import java.io.IOException;

/**
 * A search over all the daily indices of a data set, as a user of a logging UI would run it. Its result is a
 * value: two runs over the same data, through any {@code Directory}, give equal results.
 */
public interface Workload {
  /** A short name: {@code needle}, {@code dashboard} or {@code discover}. */
  String name();

  /** Runs the search over every index at once and merges the answers. */
  Result run(Indices indices) throws IOException;

  /** What a workload found. */
  interface Result {
    /** How many documents matched the query, over all indices. */
    long hits();
  }
}
