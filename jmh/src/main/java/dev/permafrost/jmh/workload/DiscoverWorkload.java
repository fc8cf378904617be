/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import dev.permafrost.sample.AccessLogDocuments;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/**
 * Kibana's Discover: the newest {@code size} events in a time range, sorted by {@code @timestamp} descending,
 * with their stored {@code _source}, and the exact number of matching events. Cold, it reads the points and doc
 * values of {@code @timestamp} and a few blocks of stored fields.
 */
public final class DiscoverWorkload implements Workload {
  private static final Sort NEWEST_FIRST = new Sort(new SortField(AccessLogDocuments.TIMESTAMP, SortField.Type.LONG, true));
  private final long from;
  private final long to;
  private final int size;

  /**
   * @param from start of the time range, inclusive, in epoch milliseconds
   * @param to end of the time range, exclusive
   * @param size how many events to return
   */
  public DiscoverWorkload(long from, long to, int size) {
    this.from = from;
    this.to = to;
    this.size = size;
  }

  @Override
  public String name() {
    return "discover";
  }

  /**
   * @param hits the exact number of events in the range
   * @param sources the {@code _source} of the newest events, newest first
   */
  public record Result(long hits, List<String> sources) implements Workload.Result {}

  @Override
  public Result run(Indices indices) throws IOException {
    Query query = LongPoint.newRangeQuery(AccessLogDocuments.TIMESTAMP, from, to - 1);
    Indices.Hits top = indices.top(query, NEWEST_FIRST, size, AccessLogDocuments.SOURCE);
    return new Result(top.total(), top.values());
  }
}
