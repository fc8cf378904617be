/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Turns Spark's predicates into {@link Condition}s that select exactly the rows for which Spark would find the
 * predicate true: comparisons, {@code IN}, {@code IS [NOT] NULL} and {@code STARTS_WITH} on keyword columns, on
 * number and timestamp columns indexed as points, and on {@code _index}, combined with {@code AND}, {@code OR} and
 * {@code NOT}. SQL's three-valued logic is kept by translating each predicate twice, into the rows where it is true
 * and those where it is false: {@code NOT p} is true where {@code p} is false, and a comparison is false only where
 * the column has a value. A predicate it cannot translate exactly is left to Spark.
 *
 * <p>Timestamp columns hold the timestamp field's milliseconds as Spark's microseconds; bounds with a fraction of a
 * millisecond are rounded the way that keeps the comparison exact.
 */
final class PredicateTranslator {
  private final StructType schema;
  private final IndexFields fields;

  PredicateTranslator(StructType schema, IndexFields fields) {
    this.schema = schema;
    this.fields = fields;
  }

  /** The rows where {@code p} is true, or empty if that cannot be said exactly. */
  Optional<Condition> whereTrue(Predicate p) {
    return Optional.ofNullable(translate(p, true));
  }

  private Condition translate(Predicate p, boolean truth) {
    Expression[] c = p.children();
    switch (p.name()) {
      case "ALWAYS_TRUE":
        return truth ? new Condition.All() : new Condition.None();
      case "ALWAYS_FALSE":
        return truth ? new Condition.None() : new Condition.All();
      case "AND":
      case "OR": {
        Condition left = translate((Predicate) c[0], truth);
        Condition right = translate((Predicate) c[1], truth);
        if (left == null || right == null) {
          return null;
        }
        // true(a AND b) = true(a) & true(b); false(a AND b) = false(a) | false(b); OR the other way round
        return p.name().equals("AND") == truth ? new Condition.And(List.of(left, right))
            : new Condition.Or(List.of(left, right));
      }
      case "NOT":
        return translate((Predicate) c[0], !truth);
      case "IS_NULL":
      case "IS_NOT_NULL": {
        Column col = column(c[0]);
        if (col == null) {
          return null;
        }
        if (col.index) {
          return p.name().equals("IS_NULL") == truth ? new Condition.None() : new Condition.All();
        }
        if (!col.field.existsQueryable()) {
          return null;
        }
        Condition exists = new Condition.Exists(col.field.name());
        return p.name().equals("IS_NOT_NULL") == truth ? exists : new Condition.Not(exists);
      }
      default:
        return leaf(p, truth);
    }
  }

  /** A comparison of a column with literals: true where it holds, false where the column has a value and it fails. */
  private Condition leaf(Predicate p, boolean truth) {
    Expression[] c = p.children();
    if (c.length < 2) {
      return null;
    }
    String op = p.name();
    Column col = column(c[0]);
    int columnAt = 0;
    if (col == null && c.length == 2 && column(c[1]) != null) {
      col = column(c[1]);
      columnAt = 1;
      op = flip(op);
    }
    if (col == null || op == null) {
      return null;
    }
    List<Object> values = new ArrayList<>();
    boolean nullLiteral = false;
    for (int i = 0; i < c.length; i++) {
      if (i == columnAt) {
        continue;
      }
      if (!(c[i] instanceof Literal<?> lit)
          || !lit.dataType().sameType(col.type) && !(isIntegral(lit.dataType()) && isIntegral(col.type))) {
        return null;
      }
      if (lit.value() == null) {
        nullLiteral = true;
      } else {
        values.add(lit.value());
      }
    }
    boolean nullSafe = op.equals("<=>");
    if (nullSafe) {
      if (nullLiteral) { // a <=> NULL is a IS NULL
        Condition exists = col.index ? new Condition.All() : existsOrNull(col);
        return exists == null ? null : truth ? negate(exists) : exists;
      }
      op = "=";
    }
    Condition holds;
    if (op.equals("IN")) {
      holds = values.isEmpty() ? new Condition.None() : in(col, values);
      if (!truth && nullLiteral) {
        return new Condition.None(); // x IN (..., NULL) is never false
      }
    } else {
      if (nullLiteral || values.size() != 1) {
        return nullLiteral ? (nullSafe ? null : new Condition.None()) : null; // a comparison with NULL is never true nor false
      }
      holds = compare(col, op, values.get(0));
    }
    if (holds == null) {
      return null;
    }
    if (truth) {
      return holds;
    }
    if (nullSafe || col.index) {
      return negate(holds);
    }
    Condition exists = existsOrNull(col);
    return exists == null ? null : new Condition.And(List.of(exists, negate(holds)));
  }

  private static Condition negate(Condition c) {
    return c instanceof Condition.Not n ? n.negated() : new Condition.Not(c);
  }

  private static Condition existsOrNull(Column col) {
    return col.field.existsQueryable() ? new Condition.Exists(col.field.name()) : null;
  }

  private static boolean isIntegral(DataType t) {
    return t.sameType(DataTypes.LongType) || t.sameType(DataTypes.IntegerType) || t.sameType(DataTypes.ShortType)
        || t.sameType(DataTypes.ByteType);
  }

  private static String flip(String op) {
    return switch (op) {
      case "=", "<=>" -> op;
      case "<" -> ">";
      case "<=" -> ">=";
      case ">" -> "<";
      case ">=" -> "<=";
      default -> null;
    };
  }

  private Condition in(Column col, List<Object> values) {
    if (col.index) {
      Set<String> names = new LinkedHashSet<>();
      values.forEach(v -> names.add(v.toString()));
      return new Condition.Indices(names);
    }
    if (col.keyword) {
      List<String> terms = new ArrayList<>();
      values.forEach(v -> terms.add(v.toString()));
      return new Condition.Terms(col.field.name(), terms);
    }
    if (col.points) {
      List<Long> longs = new ArrayList<>();
      for (Object v : values) {
        Long exact = col.timestamp ? exactMillis(((Number) v).longValue()) : Long.valueOf(((Number) v).longValue());
        if (exact != null) {
          longs.add(exact);
        }
      }
      return longs.isEmpty() ? new Condition.None() : new Condition.PointSet(col.field.name(), col.field.intPoint(), longs);
    }
    return null;
  }

  private Condition compare(Column col, String op, Object value) {
    if (col.index) {
      return op.equals("=") ? new Condition.Indices(Set.of(value.toString())) : null;
    }
    if (col.keyword) {
      String v = value.toString();
      return switch (op) {
        case "=" -> new Condition.Terms(col.field.name(), List.of(v));
        case "<" -> new Condition.TermRange(col.field.name(), null, false, v, false);
        case "<=" -> new Condition.TermRange(col.field.name(), null, false, v, true);
        case ">" -> new Condition.TermRange(col.field.name(), v, false, null, false);
        case ">=" -> new Condition.TermRange(col.field.name(), v, true, null, false);
        case "STARTS_WITH" -> new Condition.Prefix(col.field.name(), v);
        default -> null;
      };
    }
    if (!col.points || !(value instanceof Number n)) {
      return null;
    }
    long v = n.longValue();
    String f = col.field.name();
    boolean ints = col.field.intPoint();
    if (col.timestamp) { // the column is microseconds, the field milliseconds
      long floor = Math.floorDiv(v, 1000);
      long ceil = -Math.floorDiv(-v, 1000);
      return switch (op) {
        case "=" -> floor == ceil ? new Condition.PointRange(f, ints, floor, floor) : new Condition.None();
        case "<" -> new Condition.PointRange(f, ints, Long.MIN_VALUE, ceil - 1);
        case "<=" -> new Condition.PointRange(f, ints, Long.MIN_VALUE, floor);
        case ">" -> new Condition.PointRange(f, ints, floor + 1, Long.MAX_VALUE);
        case ">=" -> new Condition.PointRange(f, ints, ceil, Long.MAX_VALUE);
        default -> null;
      };
    }
    return switch (op) {
      case "=" -> new Condition.PointRange(f, ints, v, v);
      case "<" -> v == Long.MIN_VALUE ? new Condition.None() : new Condition.PointRange(f, ints, Long.MIN_VALUE, v - 1);
      case "<=" -> new Condition.PointRange(f, ints, Long.MIN_VALUE, v);
      case ">" -> v == Long.MAX_VALUE ? new Condition.None() : new Condition.PointRange(f, ints, v + 1, Long.MAX_VALUE);
      case ">=" -> new Condition.PointRange(f, ints, v, Long.MAX_VALUE);
      default -> null;
    };
  }

  /** The milliseconds of {@code micros} if it is a whole millisecond, else null (no millisecond value equals it). */
  private static Long exactMillis(long micros) {
    return micros % 1000 == 0 ? micros / 1000 : null;
  }

  /** A reference to a column this source can filter on, or null. */
  private Column column(Expression e) {
    if (!(e instanceof NamedReference ref) || ref.fieldNames().length != 1) {
      return null;
    }
    String name = ref.fieldNames()[0];
    int i = schema.getFieldIndex(name).isDefined() ? schema.fieldIndex(name) : -1;
    if (i < 0) {
      return null;
    }
    StructField sf = schema.fields()[i];
    if (name.equals(IndexFields.INDEX)) {
      return new Column(null, sf.dataType(), true, false, false, false);
    }
    IndexField f = fields.get(name);
    if (f == null || name.equals(IndexFields.SCORE)) {
      return null;
    }
    DataType t = sf.dataType();
    boolean keyword = t.sameType(DataTypes.StringType) && f.terms() && f.termDocValues();
    boolean timestamp = t.sameType(DataTypes.TimestampType) && f.numericDocValues();
    boolean points = (f.longPoint() || f.intPoint()) && f.numericDocValues()
        && (timestamp || isIntegral(t));
    if (!keyword && !points) {
      return null;
    }
    return new Column(f, t, false, keyword, points, timestamp);
  }

  private record Column(IndexField field, DataType type, boolean index, boolean keyword, boolean points,
      boolean timestamp) {}
}
