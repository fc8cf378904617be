/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.search.SortField;

/**
 * What kind of field a mapping's {@code type} names, and the questions queries, sorts, aggregations, source rebuilding
 * and the tools ask of it, each answered here once (as Lucene's {@code DocValuesType} and {@code IndexOptions} answer
 * for a Lucene field). Every type name the engines' mappings carry that Permafrost reads has a kind; any other name is
 * {@link #UNKNOWN}, its name kept by the {@link IndexMapping.Field} for messages.
 */
public enum FieldKind {
  /** {@code keyword}: one unanalyzed term, sorted-set doc values. */
  KEYWORD("keyword"),
  /** {@code constant_keyword}: one value for the whole index, answered as a keyword. */
  CONSTANT_KEYWORD("constant_keyword"),
  /** {@code wildcard}: one unanalyzed value, indexed as n-grams with binary doc values. */
  WILDCARD("wildcard"),
  /** {@code text}: analyzed, no doc values. */
  TEXT("text"),
  /** {@code match_only_text}: analyzed without positions or norms, no doc values. */
  MATCH_ONLY_TEXT("match_only_text"),
  /** {@code long}: 8-byte points, sorted-numeric doc values. */
  LONG("long"),
  /** {@code integer}: 4-byte points, sorted-numeric doc values. */
  INTEGER("integer"),
  /** {@code short}: an integer's points and doc values, in a short's range. */
  SHORT("short"),
  /** {@code byte}: an integer's points and doc values, in a byte's range. */
  BYTE("byte"),
  /** {@code double}: double points, doc values as sortable longs. */
  DOUBLE("double"),
  /** {@code float}: float points, doc values as sortable ints. */
  FLOAT("float"),
  /** {@code half_float}: half-float points and doc values. */
  HALF_FLOAT("half_float"),
  /** {@code scaled_float}: long points and doc values of the value times its scaling factor. */
  SCALED_FLOAT("scaled_float"),
  /** {@code unsigned_long}: long points and doc values shifted by 2^63. */
  UNSIGNED_LONG("unsigned_long"),
  /** {@code date}: long points and doc values of epoch milliseconds. */
  DATE("date"),
  /** {@code date_nanos}: long points and doc values of epoch nanoseconds. */
  DATE_NANOS("date_nanos"),
  /** {@code boolean}: terms {@code T} and {@code F}, doc values 1 and 0. */
  BOOLEAN("boolean"),
  /** {@code ip}: 16-byte points, sorted-set doc values of the same 16 bytes. */
  IP("ip"),
  /** {@code geo_point}: latitude and longitude points, one sorted-numeric doc value of both. */
  GEO_POINT("geo_point"),
  /** {@code dense_vector}: a vector, in Elasticsearch's own formats when indexed. */
  DENSE_VECTOR("dense_vector"),
  /** {@code object}: holds other fields (a mapping's default when it names no type). */
  OBJECT("object"),
  /** {@code nested}: holds other fields, each object in a hidden document of its own. */
  NESTED("nested"),
  /** Any other type name ({@code geo_shape}, {@code flattened}, ...): not read by Permafrost, its name in the field. */
  UNKNOWN(null);

  private static final Map<String, FieldKind> BY_NAME = new HashMap<>();

  static {
    for (FieldKind k : values()) {
      if (k.typeName != null) {
        BY_NAME.put(k.typeName, k);
      }
    }
  }

  private final String typeName;

  FieldKind(String typeName) {
    this.typeName = typeName;
  }

  /**
   * The kind a mapping's {@code type} names: {@link #OBJECT} when it names none (null), as the engines read a mapping,
   * {@link #UNKNOWN} for a name not listed here.
   */
  public static FieldKind of(String typeName) {
    return typeName == null ? OBJECT : BY_NAME.getOrDefault(typeName, UNKNOWN);
  }

  /** The type name a mapping gives it ({@code keyword}, {@code date_nanos}, ...), or null for {@link #UNKNOWN}. */
  public String typeName() {
    return typeName;
  }

  /** Whether it holds other fields rather than values: {@code object} or {@code nested}. */
  public boolean isObject() {
    return this == OBJECT || this == NESTED;
  }

  /** Whether it is analyzed text ({@code text}, {@code match_only_text}): searched by its terms, with no doc values. */
  public boolean isText() {
    return this == TEXT || this == MATCH_ONLY_TEXT;
  }

  /**
   * Whether its value is indexed as one unanalyzed term, as a keyword's is ({@code keyword}, {@code constant_keyword},
   * {@code wildcard}): a query's value is analyzed as one term.
   */
  public boolean isKeywordFamily() {
    return this == KEYWORD || this == CONSTANT_KEYWORD || this == WILDCARD;
  }

  /**
   * Whether its terms are sorted-set doc values, so that it sorts by term and its term queries can run from doc
   * values: {@code keyword}, and {@code constant_keyword}, whose one value the engines answer alike. Not
   * {@code wildcard} (binary doc values) nor {@code ip} (the same 16 bytes as its points).
   */
  public boolean hasTermOrdinals() {
    return this == KEYWORD || this == CONSTANT_KEYWORD;
  }

  /** Whether it is a {@code date} or {@code date_nanos} field. */
  public boolean isDate() {
    return this == DATE || this == DATE_NANOS;
  }

  /** Whether it holds whole numbers read as points by Permafrost: {@code long}, {@code integer}, {@code short}, {@code byte}. */
  public boolean isInteger() {
    return this == LONG || this == INTEGER || this == SHORT || this == BYTE;
  }

  /**
   * The Lucene numeric type of its points and sorted-numeric doc values where Permafrost reads them as numbers:
   * {@link SortField.Type#LONG} for {@code long} and dates (epoch milliseconds or nanoseconds),
   * {@link SortField.Type#INT} for {@code integer}, {@code short} and {@code byte} (4-byte points, doc values as longs),
   * {@link SortField.Type#DOUBLE} for {@code double} (doc values as sortable longs), {@link SortField.Type#FLOAT} for
   * {@code float} (sortable ints); null for any other kind ({@code half_float}, {@code scaled_float},
   * {@code unsigned_long}, {@code boolean} and {@code ip} have encodings of their own).
   */
  public SortField.Type numericType() {
    return switch (this) {
      case LONG, DATE, DATE_NANOS -> SortField.Type.LONG;
      case INTEGER, SHORT, BYTE -> SortField.Type.INT;
      case DOUBLE -> SortField.Type.DOUBLE;
      case FLOAT -> SortField.Type.FLOAT;
      default -> null;
    };
  }

  /**
   * How it sorts, as the engines sort it: {@link SortField.Type#STRING} by its terms' doc values for
   * {@link #hasTermOrdinals() keywords}, its {@link #numericType() numeric type} for numbers and dates, a
   * {@code scaled_float} by its scaled longs ({@link SortField.Type#LONG}, in the order of its values); null if it
   * cannot be sorted on.
   */
  public SortField.Type sortType() {
    if (hasTermOrdinals()) {
      return SortField.Type.STRING;
    }
    return this == SCALED_FLOAT ? SortField.Type.LONG : numericType();
  }

  /** The smallest value an {@link #isInteger() integer kind} holds. */
  public long minValue() {
    return switch (this) {
      case LONG -> Long.MIN_VALUE;
      case INTEGER -> Integer.MIN_VALUE;
      case SHORT -> Short.MIN_VALUE;
      case BYTE -> Byte.MIN_VALUE;
      default -> throw new IllegalStateException(this + " is not an integer kind");
    };
  }

  /** The largest value an {@link #isInteger() integer kind} holds. */
  public long maxValue() {
    return switch (this) {
      case LONG -> Long.MAX_VALUE;
      case INTEGER -> Integer.MAX_VALUE;
      case SHORT -> Short.MAX_VALUE;
      case BYTE -> Byte.MAX_VALUE;
      default -> throw new IllegalStateException(this + " is not an integer kind");
    };
  }

  /**
   * Whether a field of this kind keeps doc values unless its mapping says {@code "doc_values": false}: every kind but
   * {@link #isText() text}, which never has them.
   */
  public boolean hasDocValuesByDefault() {
    return !isText();
  }
}
