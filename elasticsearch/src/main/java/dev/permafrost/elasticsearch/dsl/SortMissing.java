/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.FieldKind;

import dev.permafrost.elasticsearch.IndexMapping;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;

/**
 * A sort's {@code missing} given as a value ({@code {"bytes": {"missing": 0}}}): documents without one sort as if
 * they had it, and show it as their sort value, as the node answers. A number field takes a number of its kind; a
 * date field only epoch milliseconds (the node reads a date's missing value as a number and fails every shard on
 * {@code 2020-01-01}); a keyword's custom value is refused, Lucene's keyword sort placing documents without a value
 * only first or last.
 */
final class SortMissing {
  private SortMissing() {}

  /**
   * Sets {@code value} as the missing value of {@code sort}, the sort on {@code field}.
   *
   * @throws DslException naming the field and value if the value does not fit the field, or the field takes none
   */
  static void set(SortField sort, IndexMapping.Field field, String value) {
    if (!(sort instanceof SortedNumericSortField n) || field.kind() == FieldKind.SCALED_FLOAT) {
      throw DslException.illegalArgument("[sort] [missing] of [" + field.path() + "] must be _first or _last for a"
          + " field of type [" + field.type() + "] in Permafrost's sort, got [" + value + "]");
    }
    try {
      Object missing = switch (n.getNumericType()) {
        case LONG -> field.kind() == FieldKind.DATE_NANOS ? Math.multiplyExact(Long.parseLong(number(value)), 1_000_000L)
            : Long.parseLong(number(value));
        case INT -> Integer.parseInt(number(value));
        case DOUBLE -> Double.parseDouble(value);
        case FLOAT -> Float.parseFloat(value);
        default -> throw new AssertionError(n.getNumericType());
      };
      sort.setMissingValue(missing);
    } catch (NumberFormatException | ArithmeticException e) {
      throw DslException.shard("number_format_exception", "For input string: \"" + value + "\""); // as the node
    }
  }

  /** A whole number given with a zero fraction ({@code 0.0}), as JSON may print it, as the whole number. */
  private static String number(String value) {
    return value.matches("-?\\d+\\.0*") ? value.substring(0, value.indexOf('.')) : value;
  }
}
