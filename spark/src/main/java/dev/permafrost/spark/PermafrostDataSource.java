/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code permafrost} Spark data source: searches the snapshots of a Permafrost repository with a Lucene query,
 * one partition per snapshot, each run on the executor whose shared cache already holds that snapshot.
 *
 * <pre>{@code
 * Dataset<Row> hits = spark.read().format("permafrost")
 *     .option("repository", "s3://logs/snapshots?region=eu-west-1")
 *     .option("snapshots", "logs-nginx-2024.02.*")
 *     .option("query", "url.path:\"/api/cart\"")
 *     .load();
 * }</pre>
 *
 * <p>The schema comes from the field infos of the newest selected snapshot (a keyword is a string, a number a long,
 * the timestamp field a timestamp, a stored-only field such as {@code _source} a string, plus {@code _index} and
 * {@code _score}), or from {@code .schema(...)} or the {@code schema} option. Filters on keyword, number and timestamp
 * columns, {@code LIMIT}, {@code ORDER BY} a number or the timestamp with {@code LIMIT}, and {@code count(*)} run in
 * Lucene; a time range also skips snapshots by their manifests. See the module's README for every option.
 */
public final class PermafrostDataSource implements TableProvider, DataSourceRegister {
  /** Creates the data source; Spark calls this. */
  public PermafrostDataSource() {}

  @Override
  public String shortName() {
    return "permafrost";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    SourceOptions o = SourceOptions.parse(options);
    if (o.mode == SourceOptions.Mode.HISTOGRAM) {
      return IndexFields.histogramSchema();
    }
    if (o.schemaDdl != null) {
      return withMetadataColumns(ddl(o.schemaDdl));
    }
    return fields(o).hitSchema(o);
  }

  @Override
  public boolean supportsExternalMetadata() {
    return true;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    SourceOptions o = SourceOptions.parse(properties);
    StructType columns = o.mode == SourceOptions.Mode.HISTOGRAM ? IndexFields.histogramSchema()
        : withMetadataColumns(schema);
    for (StructField f : columns.fields()) {
      if (!Values.supported(f.dataType())) {
        throw new IllegalArgumentException("column '" + f.name() + "' has type " + f.dataType().simpleString()
            + "; the permafrost source reads string, long, int, double, float, boolean, timestamp and binary columns");
      }
    }
    IndexFields fields = fields(o);
    QueryBuilder.parse(o.query, o.defaultField, fields); // a bad query fails here, on the driver, not in every task
    return new PermafrostTable(o, fields, columns);
  }

  private static StructType ddl(String ddl) {
    try {
      return StructType.fromDDL(ddl);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("option 'schema' is not a valid DDL schema ('" + ddl + "'): " + e.getMessage(),
          e);
    }
  }

  /** A given schema with {@code _index} and {@code _score} added in front if it lacks them. */
  private static StructType withMetadataColumns(StructType schema) {
    StructType result = schema;
    if (!schema.getFieldIndex(IndexFields.SCORE).isDefined()) {
      result = new StructType().add(IndexFields.SCORE, "float", false).merge(result, true);
    }
    if (!schema.getFieldIndex(IndexFields.INDEX).isDefined()) {
      result = new StructType().add(IndexFields.INDEX, "string", false).merge(result, true);
    }
    return result;
  }

  /** The field infos of the newest selected snapshot. */
  private static IndexFields fields(SourceOptions o) {
    try (BlobStore store = DriverRepository.open(o)) {
      ScanSource source = ScanSource.of(o, store);
      List<String> names = source.units();
      if (names.isEmpty()) {
        throw new IllegalArgumentException("option '" + (o.engine ? "indices" : "snapshots") + "' "
            + (o.engine ? o.indices : o.snapshots) + " matches no " + (o.engine ? "index" : "snapshot") + " of "
            + o.describeRepository() + ", so there is no schema to infer; give one with .schema(...) or the 'schema'"
            + " option");
      }
      return source.fields(names);
    } catch (IOException e) {
      throw new UncheckedIOException("permafrost: cannot read the field infos of " + o.describeRepository() + ": "
          + e.getMessage(), e);
    }
  }
}
