/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.elasticsearch.DocumentId;
import dev.permafrost.elasticsearch.EngineDocuments;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.util.BytesRef;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Builds the rows of one segment's hits, which must come in increasing document order: each column is read from the
 * field's doc values when it has them (the first value of a multi-valued field), else from its stored values (the
 * first one), else it is null; {@code _index} and {@code _score} come from the hit.
 */
final class RowAssembler {
  /** Reads one column of a document. */
  private interface ColumnReader {
    Object read(int doc) throws IOException;
  }

  private final ColumnReader[] columns;
  private final int scoreColumn;
  private final StoredValues stored;

  /**
   * @param sourceMapping the engine index's mapping, to rebuild {@code _source} from doc values in a segment that
   *     stores none (Elasticsearch's synthetic source), or null
   */
  RowAssembler(LeafReader leaf, StructType schema, String index, IndexMapping sourceMapping) throws IOException {
    StructField[] fields = schema.fields();
    columns = new ColumnReader[fields.length];
    int score = -1;
    StoredValues storedValues = null;
    UTF8String indexName = UTF8String.fromString(index);
    for (int i = 0; i < fields.length; i++) {
      String name = fields[i].name();
      DataType type = fields[i].dataType();
      if (name.equals(IndexFields.INDEX)) {
        columns[i] = doc -> indexName;
      } else if (name.equals(IndexFields.SCORE)) {
        score = i;
        columns[i] = doc -> null;
      } else {
        FieldInfo info = leaf.getFieldInfos().fieldInfo(name);
        if (info == null && name.equals(EngineDocuments.SOURCE) && sourceMapping != null) {
          columns[i] = doc -> Values.ofStored(EngineDocuments.sourceFromDocValues(leaf, doc, sourceMapping).json(), type);
          continue;
        }
        columns[i] = info == null ? doc -> null : switch (info.getDocValuesType()) {
          case NUMERIC, SORTED_NUMERIC -> numeric(DocValues.getSortedNumeric(leaf, name), type);
          case SORTED -> sorted(DocValues.getSorted(leaf, name), type);
          case SORTED_SET -> sortedSet(DocValues.getSortedSet(leaf, name), type);
          default -> {
            if (storedValues == null) {
              storedValues = new StoredValues(leaf.storedFields());
            }
            yield storedValues.column(name, type);
          }
        };
      }
    }
    this.scoreColumn = score;
    this.stored = storedValues;
  }

  /** The row of document {@code doc} of the segment, with {@code score}. */
  InternalRow row(int doc, float score) throws IOException {
    if (stored != null) {
      stored.load(doc);
    }
    Object[] values = new Object[columns.length];
    for (int i = 0; i < columns.length; i++) {
      values[i] = columns[i].read(doc);
    }
    if (scoreColumn >= 0) {
      values[scoreColumn] = score;
    }
    return new GenericInternalRow(values);
  }

  private static ColumnReader numeric(SortedNumericDocValues dv, DataType type) {
    return doc -> dv.advanceExact(doc) ? Values.ofDocValue(dv.nextValue(), type) : null;
  }

  private static ColumnReader sorted(SortedDocValues dv, DataType type) {
    return doc -> dv.advanceExact(doc) ? Values.ofTerm(dv.lookupOrd(dv.ordValue()), type) : null;
  }

  private static ColumnReader sortedSet(SortedSetDocValues dv, DataType type) {
    return doc -> dv.advanceExact(doc) ? Values.ofTerm(dv.lookupOrd(dv.nextOrd()), type) : null;
  }

  /** The stored values of the columns that have no doc values: the first value of each, loaded once per document. */
  private static final class StoredValues extends StoredFieldVisitor {
    private final StoredFields storedFields;
    private final Map<String, Object> values = new HashMap<>();
    private final Map<String, Boolean> wanted = new HashMap<>();

    StoredValues(StoredFields storedFields) {
      this.storedFields = storedFields;
    }

    ColumnReader column(String name, DataType type) {
      wanted.put(name, Boolean.TRUE);
      return doc -> Values.ofStored(values.get(name), type);
    }

    void load(int doc) throws IOException {
      values.clear();
      storedFields.document(doc, this);
    }

    @Override
    public Status needsField(FieldInfo fieldInfo) {
      return wanted.containsKey(fieldInfo.name) && !values.containsKey(fieldInfo.name) ? Status.YES : Status.NO;
    }

    @Override
    public void stringField(FieldInfo fieldInfo, String value) {
      values.putIfAbsent(fieldInfo.name, value);
    }

    @Override
    public void binaryField(FieldInfo fieldInfo, byte[] value) {
      // an engine keeps _id and _source as bytes of its own encodings
      Object decoded = switch (fieldInfo.name) {
        case "_id" -> DocumentId.decode(value, 0, value.length);
        case "_source" -> EngineDocuments.source(new BytesRef(value));
        default -> value;
      };
      values.putIfAbsent(fieldInfo.name, decoded);
    }

    @Override
    public void intField(FieldInfo fieldInfo, int value) {
      values.putIfAbsent(fieldInfo.name, value);
    }

    @Override
    public void longField(FieldInfo fieldInfo, long value) {
      values.putIfAbsent(fieldInfo.name, value);
    }

    @Override
    public void floatField(FieldInfo fieldInfo, float value) {
      values.putIfAbsent(fieldInfo.name, value);
    }

    @Override
    public void doubleField(FieldInfo fieldInfo, double value) {
      values.putIfAbsent(fieldInfo.name, value);
    }
  }
}
