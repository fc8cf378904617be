/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.elasticsearch.DatePrinter;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import java.time.ZoneOffset;
import java.util.Set;
import org.apache.lucene.search.SortField;

/**
 * How one sort field's values are shown in a hit's {@code sort} and read back from {@code search_after}, as a node's
 * field sort does with its {@code format} and {@code numeric_type} options (all checked on 9.3.3).
 *
 * <p>The search always sorts on the field's own values; a {@code numeric_type} is honoured where converting the
 * values keeps their order and their ties, so that only what is shown (and read back) changes: a whole number or a
 * date as a double ({@code double}), a {@code date}'s milliseconds as nanoseconds ({@code date_nanos}), and the
 * field's own type. A conversion that could join values the field holds apart ({@code long} of a double, {@code date}
 * of a {@code date_nanos}) would order hits otherwise, and is refused naming the field and the option. A document
 * without a value shows what the node shows for it: {@code null} in a {@code format}, {@code "Infinity"} or
 * {@code "-Infinity"} as a double, {@code 0} or {@link Long#MAX_VALUE} in nanoseconds.
 */
final class SortValueShape {
  /** The field's values as the search sorted them. */
  static final SortValueShape RAW = new SortValueShape(null, Conversion.NONE, false, false);

  private static final Set<String> NUMERIC_TYPES = Set.of("long", "double", "date", "date_nanos");
  private static final long NANOS_PER_MILLI = 1_000_000L;

  private enum Conversion {
    NONE,
    /** A whole number or a date shown as a double. */
    TO_DOUBLE,
    /** A whole number shown as a long (an integer field's missing-value sentinel becomes a long's). */
    TO_LONG,
    /** A {@code date}'s epoch milliseconds shown as nanoseconds. */
    MILLIS_TO_NANOS
  }

  /** The sort's date {@code format}, or null. */
  private final String format;
  private final Conversion conversion;
  /** Whether the field holds nanoseconds ({@code date_nanos}). */
  private final boolean nanos;
  private final boolean descending;

  private SortValueShape(String format, Conversion conversion, boolean nanos, boolean descending) {
    this.format = format;
    this.conversion = conversion;
    this.nanos = nanos;
    this.descending = descending;
  }

  /**
   * The shape of a sort on {@code field} with the given {@code format} and {@code numeric_type} (either null); each
   * refusal names the field, as the node's error does where it has one.
   *
   * @param mixed whether the indices searched map the field with more than one type (a sort sees the first)
   */
  static SortValueShape of(IndexMapping.Field field, String format, String numericType, boolean descending,
      boolean mixed) {
    if (numericType != null && !NUMERIC_TYPES.contains(numericType)) {
      throw new DslException(400, "x_content_parse_exception", "[field_sort] failed to parse field [numeric_type]:"
          + " invalid value for [numeric_type], must be [long, double, date, date_nanos], got " + numericType);
    }
    if (format == null && numericType == null) {
      return RAW;
    }
    FieldKind kind = field.kind();
    boolean number = kind.numericType() != null || kind == FieldKind.SCALED_FLOAT || kind == FieldKind.HALF_FLOAT
        || kind == FieldKind.UNSIGNED_LONG; // numbers to the node, whatever Permafrost reads of them
    if (numericType != null && !number) {
      throw DslException.shard("query_shard_exception", "[numeric_type] option cannot be set on a non-numeric field,"
          + " got " + field.type());
    }
    if (format != null && !kind.isDate()) {
      throw DslException.everyShard(number ? "require a date_time formatter; got [decimal]"
          : "Field [" + field.path() + "] of type [" + field.type() + "] does not support custom formats");
    }
    if (mixed) {
      throw DslException.illegalArgument("[sort] of [" + field.path() + "] with [" + (numericType != null
          ? "numeric_type" : "format") + "] over indices that map it with different types is not supported by"
          + " Permafrost: each index's values would be converted by its own mapping");
    }
    Conversion conversion = numericType == null ? Conversion.NONE : conversion(field, numericType);
    if (conversion == Conversion.TO_DOUBLE) {
      format = null; // the node shows the doubles, whatever the format
    }
    return new SortValueShape(format, conversion, kind == FieldKind.DATE_NANOS, descending);
  }

  private static Conversion conversion(IndexMapping.Field field, String numericType) {
    FieldKind kind = field.kind();
    boolean whole = kind.isInteger() || kind == FieldKind.DATE;
    return switch (numericType) {
      case "long", "date" -> {
        if (kind == FieldKind.DATE_NANOS && numericType.equals("long")) {
          yield Conversion.NONE;
        }
        if (!whole) {
          throw refused(field, numericType);
        }
        yield kind.isInteger() && kind != FieldKind.LONG ? Conversion.TO_LONG : Conversion.NONE;
      }
      case "double" -> {
        if (kind == FieldKind.DOUBLE || kind == FieldKind.FLOAT) {
          yield kind == FieldKind.FLOAT ? Conversion.TO_DOUBLE : Conversion.NONE;
        }
        if (!whole) {
          throw refused(field, numericType);
        }
        yield Conversion.TO_DOUBLE;
      }
      case "date_nanos" -> {
        if (kind == FieldKind.DATE_NANOS) {
          yield Conversion.NONE;
        }
        if (kind != FieldKind.DATE) {
          throw DslException.everyShard("trying to convert a known date time formatter to a nanosecond one, wrong"
              + " field used?");
        }
        yield Conversion.MILLIS_TO_NANOS;
      }
      default -> throw new AssertionError(numericType);
    };
  }

  private static DslException refused(IndexMapping.Field field, String numericType) {
    return DslException.illegalArgument("[sort] [numeric_type] [" + numericType + "] of [" + field.path() + "], a ["
        + field.type() + "] field, is not supported by Permafrost: it sorts on the field's own values, and this cast"
        + " could join values the field holds apart, or is not one of the values it reads");
  }

  /** Whether a custom {@code missing} value is given as this shape shows values, not as the field holds them. */
  boolean convertsMissing() {
    return conversion == Conversion.MILLIS_TO_NANOS;
  }

  /**
   * A custom {@code missing} value given in nanoseconds for a {@code date} shown as {@code date_nanos}, as the field
   * holds it (milliseconds); refused unless it is a whole millisecond.
   */
  String missingAsHeld(String path, String value) {
    assert conversion == Conversion.MILLIS_TO_NANOS;
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw DslException.shard("number_format_exception", "For input string: \"" + value + "\""); // as the node
    }
    if (n % NANOS_PER_MILLI != 0) {
      throw DslException.illegalArgument("[sort] [missing] [" + value + "] of [" + path + "] with [numeric_type]"
          + " [date_nanos] is not a whole millisecond, which a [date] field holds: not supported by Permafrost");
    }
    return Long.toString(n / NANOS_PER_MILLI);
  }

  /** {@code raw} (a hit's sort value for this field) as the node shows it: a number, a string or null. */
  Object shown(Object raw) {
    if (this == RAW || raw == null) {
      return raw;
    }
    return switch (conversion) {
      case TO_DOUBLE -> switch (raw) {
        case Long l when l == Long.MIN_VALUE -> Double.NEGATIVE_INFINITY;
        case Long l when l == Long.MAX_VALUE -> Double.POSITIVE_INFINITY;
        case Integer i when i == Integer.MIN_VALUE -> Double.NEGATIVE_INFINITY;
        case Integer i when i == Integer.MAX_VALUE -> Double.POSITIVE_INFINITY;
        case Number n -> n.doubleValue();
        default -> raw;
      };
      case TO_LONG -> switch (raw) {
        case Integer i when i == Integer.MIN_VALUE -> Long.MIN_VALUE;
        case Integer i when i == Integer.MAX_VALUE -> Long.MAX_VALUE;
        case Integer i -> (long) i;
        default -> raw;
      };
      case MILLIS_TO_NANOS -> {
        long millis = (Long) raw;
        yield format != null && (millis == Long.MIN_VALUE || millis == Long.MAX_VALUE) ? null
            : formatted(millisAsNanos(millis), true);
      }
      case NONE -> raw instanceof Long l ? formatted(l, nanos) : raw;
    };
  }

  private static long millisAsNanos(long millis) {
    if (millis == Long.MAX_VALUE || millis > Long.MAX_VALUE / NANOS_PER_MILLI) {
      return Long.MAX_VALUE;
    }
    return millis <= 0 ? 0 : millis * NANOS_PER_MILLI; // the node's nanoseconds start at the epoch
  }

  /** A date's value in the sort's format, or the value itself without one; a document without one: null. */
  private Object formatted(long value, boolean inNanos) {
    if (format == null) {
      return value;
    }
    if (value == Long.MIN_VALUE || value == Long.MAX_VALUE) {
      return null; // no value: the node shows none in a format
    }
    String first = format.split("\\|\\|")[0];
    return inNanos ? DatePrinter.printNanos(value, first, ZoneOffset.UTC)
        : DatePrinter.print(value, first, ZoneOffset.UTC);
  }

  /** The sort's date format for reading {@code search_after}'s strings, or null for the field's own. */
  String format() {
    return format;
  }

  /**
   * {@code search_after}'s number {@code v} for this field, given as this shape shows values, as the field holds
   * them ({@code type}: the sort's, {@code INT}, {@code LONG} or {@code FLOAT}); refused where no value the field
   * holds stands exactly where {@code v} does. Only for a shape that {@link #convertsAfter converts} them.
   */
  Object afterAsHeld(String path, JsonNode v, SortField.Type type) {
    boolean ints = type == SortField.Type.INT;
    if (conversion == Conversion.TO_DOUBLE) {
      double d = v.isNumber() ? v.doubleValue() : Double.parseDouble(v.asText());
      if (type == SortField.Type.FLOAT) { // a float widened: the float it was, if it was one
        if ((float) d != d && !Double.isNaN(d)) {
          throw notExact(path, v, "double");
        }
        return (float) d;
      }
      if (Double.isInfinite(d)) { // a document without a value, as the node shows it
        return ints ? (Object) (d > 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE)
            : (Object) (d > 0 ? Long.MAX_VALUE : Long.MIN_VALUE);
      }
      if (d != Math.rint(d) || Math.abs(d) >= (ints ? 0x1p31 : 0x1p63)) {
        throw notExact(path, v, "double");
      }
      return ints ? (Object) (int) d : (Object) (long) d;
    }
    if (conversion == Conversion.TO_LONG) { // an integer field's values shown as longs
      long l = v.isNumber() ? v.longValue() : Long.parseLong(v.asText());
      if (l == Long.MAX_VALUE || l == Long.MIN_VALUE) {
        return l > 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE; // a document without a value, as the node shows it
      }
      if (l != (int) l) {
        throw notExact(path, v, "long");
      }
      return (int) l;
    }
    assert conversion == Conversion.MILLIS_TO_NANOS : conversion;
    long n = v.isNumber() ? v.longValue() : Long.parseLong(v.asText());
    if (n == Long.MAX_VALUE) {
      return n;
    }
    if (n == 0 && descending) {
      return Long.MIN_VALUE; // the node's value of a document without one, descending: ties with it
    }
    if (n % NANOS_PER_MILLI != 0) {
      throw notExact(path, v, "date_nanos");
    }
    return n / NANOS_PER_MILLI;
  }

  /** Whether {@code search_after}'s numbers for this field are given in another unit than the field's values. */
  boolean convertsAfter() {
    return conversion != Conversion.NONE;
  }

  private static DslException notExact(String path, JsonNode v, String numericType) {
    return DslException.illegalArgument("[search_after] value [" + v.asText() + "] of [" + path + "] sorted with"
        + " [numeric_type] [" + numericType + "] is not a value the field can hold: not supported by Permafrost,"
        + " which sorts on the field's own values");
  }
}
