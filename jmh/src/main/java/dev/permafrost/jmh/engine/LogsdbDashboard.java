/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.engine;

import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.sample.AccessLogDocuments;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;

/**
 * The dashboard's query ({@link DashboardWorkload#query()}: status 404 and a {@code @timestamp} range, both filters)
 * as it runs over an engine's logsdb index: the range from the points where every segment has points of
 * {@code @timestamp}, else from its sorted-numeric doc values (which a logsdb index may keep with a skipper instead of
 * points), the same range either way. The aggregation is the workload's own collector
 * ({@link DashboardWorkload#collectorManager()}), unchanged.
 */
public final class LogsdbDashboard {
  private LogsdbDashboard() {}

  /** The dashboard's query for the segments of {@code reader}. */
  public static Query query(DashboardWorkload dashboard, IndexReader reader) {
    return hasTimestampPoints(reader) ? dashboard.query() : withDocValuesRange(dashboard.query());
  }

  /** Whether every segment of {@code reader} indexes {@code @timestamp} as points. */
  public static boolean hasTimestampPoints(IndexReader reader) {
    for (LeafReaderContext leaf : reader.leaves()) {
      FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(AccessLogDocuments.TIMESTAMP);
      if (info == null || info.getPointDimensionCount() == 0) {
        return false;
      }
    }
    return true;
  }

  /** {@code query} with its points range on {@code @timestamp} read from the doc values instead. */
  static Query withDocValuesRange(Query query) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    int ranges = 0;
    for (BooleanClause c : ((BooleanQuery) query).clauses()) {
      if (c.query() instanceof PointRangeQuery p && p.getField().equals(AccessLogDocuments.TIMESTAMP)) {
        b.add(SortedNumericDocValuesField.newSlowRangeQuery(p.getField(), LongPoint.decodeDimension(p.getLowerPoint(), 0),
            LongPoint.decodeDimension(p.getUpperPoint(), 0)), c.occur());
        ranges++;
      } else {
        b.add(c);
      }
    }
    if (ranges != 1) {
      throw new IllegalArgumentException("not the dashboard's query (one @timestamp range): " + query);
    }
    return b.build();
  }
}
