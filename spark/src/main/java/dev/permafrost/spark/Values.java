/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Converts what Lucene holds into Spark's internal values of a column's type. Numbers in doc values are read as Lucene
 * writes them: longs as they are, a timestamp column's as epoch milliseconds, doubles and floats in their sortable
 * encodings ({@code DoubleDocValuesField}, {@code FloatDocValuesField}). A value that does not fit the type is null.
 */
final class Values {
  private Values() {}

  /** The types a column may have. */
  static boolean supported(DataType t) {
    return t.sameType(DataTypes.StringType) || t.sameType(DataTypes.LongType) || t.sameType(DataTypes.IntegerType)
        || t.sameType(DataTypes.DoubleType) || t.sameType(DataTypes.FloatType) || t.sameType(DataTypes.TimestampType)
        || t.sameType(DataTypes.BinaryType) || t.sameType(DataTypes.BooleanType);
  }

  /** A number from doc values. */
  static Object ofDocValue(long v, DataType t) {
    if (t.sameType(DataTypes.LongType)) {
      return v;
    } else if (t.sameType(DataTypes.TimestampType)) {
      return Math.multiplyExact(v, 1000L);
    } else if (t.sameType(DataTypes.IntegerType)) {
      return (int) v;
    } else if (t.sameType(DataTypes.DoubleType)) {
      return NumericUtils.sortableLongToDouble(v);
    } else if (t.sameType(DataTypes.FloatType)) {
      return NumericUtils.sortableIntToFloat((int) v);
    } else if (t.sameType(DataTypes.StringType)) {
      return UTF8String.fromString(Long.toString(v));
    } else if (t.sameType(DataTypes.BooleanType)) {
      return v != 0;
    }
    return null;
  }

  /** A term from doc values. */
  static Object ofTerm(BytesRef term, DataType t) {
    if (t.sameType(DataTypes.StringType)) {
      return UTF8String.fromBytes(Arrays.copyOfRange(term.bytes, term.offset, term.offset + term.length));
    } else if (t.sameType(DataTypes.BinaryType)) {
      return Arrays.copyOfRange(term.bytes, term.offset, term.offset + term.length);
    }
    return ofStored(term.utf8ToString(), t);
  }

  /** A stored value: a string, a number or bytes. */
  static Object ofStored(Object value, DataType t) {
    if (value == null) {
      return null;
    }
    if (t.sameType(DataTypes.StringType)) {
      return UTF8String.fromString(value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
          : value.toString());
    }
    if (t.sameType(DataTypes.BinaryType)) {
      return value instanceof byte[] b ? b : value.toString().getBytes(StandardCharsets.UTF_8);
    }
    try {
      Number n = value instanceof Number num ? num : value instanceof String s ? parse(s.trim()) : null;
      if (n == null) {
        return null;
      }
      if (t.sameType(DataTypes.LongType)) {
        return n.longValue();
      } else if (t.sameType(DataTypes.IntegerType)) {
        return n.intValue();
      } else if (t.sameType(DataTypes.DoubleType)) {
        return n.doubleValue();
      } else if (t.sameType(DataTypes.FloatType)) {
        return n.floatValue();
      } else if (t.sameType(DataTypes.TimestampType)) {
        return Math.multiplyExact(n.longValue(), 1000L);
      } else if (t.sameType(DataTypes.BooleanType)) {
        return n.longValue() != 0;
      }
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
    return null;
  }

  private static Number parse(String s) {
    try {
      return Long.valueOf(s);
    } catch (NumberFormatException e) {
      return Double.valueOf(s);
    }
  }
}
