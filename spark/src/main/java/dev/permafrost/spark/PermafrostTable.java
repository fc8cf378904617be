/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The snapshots of one read, as a Spark table that can only be read in batches. */
final class PermafrostTable implements SupportsRead {
  private final SourceOptions options;
  private final IndexFields fields;
  private final StructType schema;

  PermafrostTable(SourceOptions options, IndexFields fields, StructType schema) {
    this.options = options;
    this.fields = fields;
    this.schema = schema;
  }

  @Override
  public String name() {
    return "permafrost " + options.describeRepository() + " " + options.snapshots;
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
    return new PermafrostScanBuilder(options, fields, schema);
  }
}
