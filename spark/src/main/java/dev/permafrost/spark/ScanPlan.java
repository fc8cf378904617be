/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.Serial;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.types.StructType;

/**
 * Everything an executor needs to read its snapshots for one scan, decided on the driver: the options, the fields'
 * kinds, the rows to produce and what was pushed down. Immutable and serializable.
 *
 * @param options the read's options
 * @param fields the fields' kinds, from the field infos of the snapshot the schema came from
 * @param readSchema the rows the readers produce
 * @param conditions the pushed-down filters, all of which every row satisfies
 * @param output what the rows are
 * @param topN the top-N pushed down, or null
 * @param limit the most rows a partition returns, or -1
 * @param counts for {@link Output#COUNT}: the field each count counts values of, null for {@code count(*)}
 * @param groupByIndex for {@link Output#COUNT}: whether the counts are grouped by {@code _index}
 */
record ScanPlan(SourceOptions options, IndexFields fields, StructType readSchema, List<Condition> conditions,
    Output output, TopN topN, int limit, List<String> counts, boolean groupByIndex) implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  /** What a scan's rows are. */
  enum Output {
    /** One row per hit. */
    HITS,
    /** One row of counts per partition (or per index). */
    COUNT,
    /** One row per index and interval of the timestamp field. */
    HISTOGRAM
  }

  /**
   * A top-N on one numeric doc-values field, pushed into each partition.
   *
   * @param field the field
   * @param sortedNumeric whether its doc values are {@code SORTED_NUMERIC} (else {@code NUMERIC})
   * @param descending largest first
   * @param nullsFirst documents without a value first
   * @param limit N
   */
  record TopN(String field, boolean sortedNumeric, boolean descending, boolean nullsFirst, int limit)
      implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
  }
}
