/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;

/**
 * The daily indices a {@link Workload} searches ({@link Workload#run(Indices)}), all at once: either mounted
 * snapshots searched through a {@code Catalog} (its multi-index search), or local copies searched the same way on a
 * pool of threads, so that both sides of a comparison run the same searches with the same concurrency.
 */
public interface Indices extends Closeable {
  /** Runs {@code query} on every index concurrently, each with collectors from {@code manager}, reduced once. */
  <C extends Collector, T> T collect(Query query, CollectorManager<C, T> manager) throws IOException;

  /**
   * The best {@code size} hits of {@code query} over every index by {@code sort}, with the stored string field
   * {@code field} of each, and the exact number of hits.
   */
  Hits top(Query query, Sort sort, int size, String field) throws IOException;

  /**
   * @param total the exact number of hits over all indices
   * @param values the requested field of the best hits, best first
   */
  record Hits(long total, List<String> values) {}
}
