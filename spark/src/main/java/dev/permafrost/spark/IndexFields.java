/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The fields of a snapshot, by name, and the columns they make: keywords (term doc values) are strings, numbers
 * (numeric doc values) are longs and the timestamp field a timestamp, and stored-only fields (such as
 * {@code _source}) strings. Fields with neither doc values nor a stored-only form (analyzed text, say) are not
 * columns, but the query can use them. Every row also has {@value #INDEX} and {@value #SCORE}.
 */
final class IndexFields implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  /** The column naming the index (snapshot) a row comes from. */
  static final String INDEX = "_index";
  /** The column holding a hit's score. */
  static final String SCORE = "_score";
  /** Histogram mode: the start of a bucket. */
  static final String BUCKET = "bucket";
  /** Histogram mode and count push-down: a count of hits. */
  static final String COUNT = "count";

  private final String snapshot;
  private final Map<String, IndexField> fields;

  IndexFields(String snapshot, Map<String, IndexField> fields) {
    this.snapshot = snapshot;
    this.fields = Map.copyOf(fields);
  }

  static IndexFields of(String snapshot, FieldInfos infos) {
    Map<String, IndexField> fields = new TreeMap<>();
    for (FieldInfo info : infos) {
      fields.put(info.name, IndexField.of(info));
    }
    return new IndexFields(snapshot, fields);
  }

  /** The named field, or null if the snapshot the schema came from has none. */
  IndexField get(String name) {
    return fields.get(name);
  }

  /** Every field's name. */
  Set<String> names() {
    return fields.keySet();
  }

  /** The snapshot whose field infos these are. */
  String snapshot() {
    return snapshot;
  }

  /** The inferred schema of a hits read: every field that makes a column, or those the {@code fields} option names. */
  StructType hitSchema(SourceOptions options) {
    List<StructField> columns = new ArrayList<>();
    columns.add(DataTypes.createStructField(INDEX, DataTypes.StringType, false));
    columns.add(DataTypes.createStructField(SCORE, DataTypes.FloatType, false));
    if (options.fields.isEmpty()) {
      for (IndexField f : new TreeMap<>(fields).values()) {
        DataType type = columnType(f, options.timestampField);
        if (type != null) {
          columns.add(DataTypes.createStructField(f.name(), type, true));
        }
      }
    } else {
      for (String name : options.fields) {
        if (name.equals(INDEX) || name.equals(SCORE)) {
          continue;
        }
        IndexField f = fields.get(name);
        DataType type = f == null ? null : columnType(f, options.timestampField);
        if (type == null) {
          throw new IllegalArgumentException("option 'fields' names '" + name + "', which "
              + (f == null ? "is not a field of" : "has neither doc values nor a stored-only form in")
              + " snapshot '" + snapshot + "'; its columns are " + columnNames(options));
        }
        columns.add(DataTypes.createStructField(name, type, true));
      }
    }
    return DataTypes.createStructType(columns);
  }

  private List<String> columnNames(SourceOptions options) {
    List<String> names = new ArrayList<>();
    for (IndexField f : new TreeMap<>(fields).values()) {
      if (columnType(f, options.timestampField) != null) {
        names.add(f.name());
      }
    }
    return names;
  }

  /** The schema of a histogram read. */
  static StructType histogramSchema() {
    return DataTypes.createStructType(List.of(
        DataTypes.createStructField(INDEX, DataTypes.StringType, false),
        DataTypes.createStructField(BUCKET, DataTypes.TimestampType, false),
        DataTypes.createStructField(COUNT, DataTypes.LongType, false)));
  }

  /** The column type of a field, or null if it makes no column. */
  static DataType columnType(IndexField f, String timestampField) {
    if (f.termDocValues()) {
      return DataTypes.StringType;
    }
    if (f.numericDocValues()) {
      return f.name().equals(timestampField) ? DataTypes.TimestampType : DataTypes.LongType;
    }
    if (f.storedOnly()) {
      return DataTypes.StringType;
    }
    return null;
  }
}
