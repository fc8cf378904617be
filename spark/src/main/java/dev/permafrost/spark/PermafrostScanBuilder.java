/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.index.DocValuesType;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTopN;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Takes what Spark pushes down into a read: filters ({@link PredicateTranslator}), the columns needed, a limit, a
 * top-N on one numeric doc-values column (the timestamp, typically), and {@code count(*)} or {@code count(field)},
 * optionally grouped by {@code _index}. Each push-down is partial where Spark allows it (Spark still applies the
 * limit, the sort and the final sum over the partitions), and exact: the rows are those Spark would have kept.
 */
final class PermafrostScanBuilder implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns,
    SupportsPushDownLimit, SupportsPushDownTopN, SupportsPushDownAggregates {
  private final SourceOptions options;
  private final IndexFields fields;
  private final StructType schema;
  private final List<Predicate> pushed = new ArrayList<>();
  private final List<Condition> conditions = new ArrayList<>();
  private StructType readSchema;
  private ScanPlan.Output output;
  private ScanPlan.TopN topN;
  private int limit = -1;
  private List<String> counts = List.of();
  private boolean groupByIndex;

  PermafrostScanBuilder(SourceOptions options, IndexFields fields, StructType schema) {
    this.options = options;
    this.fields = fields;
    this.schema = schema;
    this.readSchema = schema;
    this.output = options.mode == SourceOptions.Mode.HISTOGRAM ? ScanPlan.Output.HISTOGRAM : ScanPlan.Output.HITS;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    PredicateTranslator translator = new PredicateTranslator(schema, fields);
    List<Predicate> rest = new ArrayList<>();
    for (Predicate p : predicates) {
      Optional<Condition> c = output == ScanPlan.Output.HITS ? translator.whereTrue(p) : Optional.empty();
      if (c.isPresent()) {
        pushed.add(p);
        conditions.add(c.get());
      } else {
        rest.add(p);
      }
    }
    return rest.toArray(new Predicate[0]);
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.toArray(new Predicate[0]);
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    if (output == ScanPlan.Output.HITS) {
      readSchema = requiredSchema;
    }
  }

  @Override
  public boolean pushLimit(int limit) {
    if (output != ScanPlan.Output.HITS) {
      return false;
    }
    this.limit = limit;
    return true;
  }

  /** Always: each partition returns at most N rows, and Spark applies the limit (and the sort) over them all. */
  @Override
  public boolean isPartiallyPushed() {
    return true;
  }

  @Override
  public boolean pushTopN(SortOrder[] orders, int limit) {
    if (output != ScanPlan.Output.HITS || orders.length != 1 || !(orders[0].expression() instanceof NamedReference ref)
        || ref.fieldNames().length != 1) {
      return false;
    }
    String name = ref.fieldNames()[0];
    IndexField f = fields.get(name);
    if (f == null || !f.numericDocValues() || !schema.getFieldIndex(name).isDefined()) {
      return false;
    }
    var type = schema.apply(name).dataType();
    if (!type.sameType(DataTypes.LongType) && !type.sameType(DataTypes.TimestampType)
        && !type.sameType(DataTypes.IntegerType)) {
      return false;
    }
    boolean descending = orders[0].direction() == SortDirection.DESCENDING;
    boolean nullsFirst = orders[0].nullOrdering() == NullOrdering.NULLS_FIRST;
    this.topN = new ScanPlan.TopN(name, f.docValues() == DocValuesType.SORTED_NUMERIC,
        descending, nullsFirst, limit);
    return true;
  }

  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    if (output != ScanPlan.Output.HITS) {
      return false;
    }
    Expression[] groupBy = aggregation.groupByExpressions();
    boolean byIndex = false;
    if (groupBy.length == 1 && groupBy[0] instanceof NamedReference g && g.fieldNames().length == 1
        && g.fieldNames()[0].equals(IndexFields.INDEX)) {
      byIndex = true;
    } else if (groupBy.length > 0) {
      return false;
    }
    List<String> countOf = new ArrayList<>();
    List<StructField> columns = new ArrayList<>();
    if (byIndex) {
      columns.add(DataTypes.createStructField(IndexFields.INDEX, DataTypes.StringType, false));
    }
    for (AggregateFunc fn : aggregation.aggregateExpressions()) {
      if (fn instanceof CountStar) {
        countOf.add(null);
      } else if (fn instanceof Count c && !c.isDistinct() && c.column() instanceof NamedReference r
          && r.fieldNames().length == 1) {
        String name = r.fieldNames()[0];
        IndexField f = fields.get(name);
        if (name.equals(IndexFields.INDEX)) {
          countOf.add(null);
        } else if (f != null && f.existsQueryable() && schema.getFieldIndex(name).isDefined()) {
          countOf.add(name);
        } else {
          return false;
        }
      } else {
        return false;
      }
      columns.add(DataTypes.createStructField(fn.describe(), DataTypes.LongType, false));
    }
    this.counts = countOf;
    this.groupByIndex = byIndex;
    this.output = ScanPlan.Output.COUNT;
    this.readSchema = DataTypes.createStructType(columns);
    return true;
  }

  @Override
  public Scan build() {
    StructType rows = output == ScanPlan.Output.HISTOGRAM ? IndexFields.histogramSchema() : readSchema;
    return new PermafrostScan(new ScanPlan(options, fields, rows, List.copyOf(conditions), output,
        output == ScanPlan.Output.HITS ? topN : null, output == ScanPlan.Output.HITS ? limit : -1, counts,
        groupByIndex));
  }
}
