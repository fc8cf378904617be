/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.blob.Durations;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.dsl.AggSpec.Source;
import dev.permafrost.elasticsearch.dsl.Aggregator.Encoding;
import java.time.ZoneId;
import java.util.Iterator;
import java.util.Set;
import org.apache.lucene.search.SortField;
import org.apache.lucene.util.NumericUtils;

/**
 * Reads the values of an aggregation's parameters (numbers, integers, dates, time values, order directions,
 * {@code missing}) and the field an aggregation reads, each refusal a {@link DslException} naming the aggregation and the parameter.
 */
final class AggParams {

  private AggParams() {}

  static JsonNode object(String name, String type, JsonNode def) {
    if (def == null || !def.isObject()) {
      throw DslException.parsing("[" + type + "] aggregation [" + name + "] expects an object");
    }
    return def;
  }

  static void allowOnly(String name, String type, JsonNode def, Set<String> allowed) {
    for (Iterator<String> it = def.fieldNames(); it.hasNext(); ) {
      String param = it.next();
      if (!allowed.contains(param)) {
        throw DslException.parsing("[" + type + "] aggregation [" + name + "]: unknown or unsupported parameter ["
            + param + "]");
      }
    }
  }

  /** A {@code missing} value encoded as the field's doc values are. */
  static long missing(String name, Source source, JsonNode value, ZoneId zone, String format) {
    if (source.date()) {
      return date(name, "missing", value, format, zone, false);
    }
    if (source.encoding() == Encoding.LONG && Source.BOOLEAN_FORMAT.equals(source.format())) {
      return value.asBoolean() || "true".equals(value.asText()) ? 1 : 0;
    }
    double d = number(name, "missing", value);
    return switch (source.encoding()) {
      case DOUBLE -> NumericUtils.doubleToSortableLong(d);
      case FLOAT -> NumericUtils.floatToSortableInt((float) d);
      default -> (long) d;
    };
  }

  static double number(String name, String param, JsonNode value) {
    if (value.isNumber()) {
      return value.asDouble();
    }
    if (value.isTextual()) {
      try {
        return Double.parseDouble(value.asText());
      } catch (NumberFormatException e) {
        // refused below
      }
    }
    throw DslException.parsing("aggregation [" + name + "]: [" + param + "] must be a number, got [" + value + "]");
  }

  static long integer(String name, String param, JsonNode value) {
    double d = number(name, param, value);
    if (d != Math.rint(d)) {
      throw DslException.parsing("aggregation [" + name + "]: [" + param + "] must be an integer, got ["
          + value + "]");
    }
    return (long) d;
  }

  static long date(String name, String param, JsonNode value, String format, ZoneId zone,
      boolean roundUp) {
    if (value.isNumber()) {
      return value.asLong();
    }
    if (!value.isTextual()) {
      throw DslException.parsing("aggregation [" + name + "]: [" + param + "] must be a date, got [" + value + "]");
    }
    return DateFormats.parse(value.asText(), format, zone, roundUp, System::currentTimeMillis);
  }

  /**
   * Elasticsearch's time value like {@code 30s}, {@code -1h}, {@code 1d} ({@link Durations#parseTimeValue}) in
   * milliseconds, or null if it is not one.
   */
  static Long timeValue(String text) {
    try {
      return Durations.parseTimeValue(text).toMillis();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  static boolean asc(String name, JsonNode direction) {
    String d = direction.asText();
    if (d.equalsIgnoreCase("asc")) {
      return true;
    }
    if (d.equalsIgnoreCase("desc")) {
      return false;
    }
    throw DslException.parsing("aggregation [" + name + "]: unknown order direction [" + d + "]");
  }

  static void refuseKeyed(String name, String type, JsonNode def) {
    if (def.path("keyed").asBoolean(false)) {
      throw DslException.illegalArgument("[" + type + "] aggregation [" + name + "]: [keyed: true] is not"
          + " supported, only the bucket list");
    }
    if (def.has("hard_bounds")) {
      throw DslException.illegalArgument("[" + type + "] aggregation [" + name + "]: [hard_bounds] is not"
          + " supported");
    }
  }

  /** The field an aggregation reads, checked against the mapping; an unmapped field has no values. */
  static Source source(IndexMapping mapping, String name, String type, JsonNode def, boolean keywordOk, boolean numericOk) {
    JsonNode f = def.get("field");
    if (f == null || !f.isTextual()) {
      throw DslException.illegalArgument("[" + type + "] aggregation [" + name + "] requires a [field]");
    }
    String path = f.asText();
    IndexMapping.Field field = mapping.field(path);
    if (field == null) {
      return new Source(null, keywordOk ? Encoding.ORDINALS : Encoding.LONG, false, false, null); // sterms
    }
    String t = field.type();
    FieldKind kind = field.kind();
    if (kind.isText()) {
      throw DslException.illegalArgument("Text fields are not optimised for operations that require"
          + " per-document field data like aggregations and sorting, so these operations are disabled by default."
          + " Please use a keyword field instead. (aggregation [" + name + "], field [" + path + "])");
    }
    if (!field.docValues()) {
      throw DslException.illegalArgument("Can't load fielddata on [" + path + "] because fielddata is unsupported"
          + " on fields of type [" + t + "]. Use doc values instead. (aggregation [" + name
          + "]: the field has no doc values)");
    }
    Encoding encoding = encoding(kind);
    if (encoding == null || (encoding == Encoding.ORDINALS ? !keywordOk : !numericOk)) {
      throw DslException.illegalArgument("Field [" + path + "] of type [" + t + "] is not supported for aggregation"
          + " [" + name + "] of type [" + type + "]");
    }
    return new Source(path, encoding, field.isDate(), kind == FieldKind.DATE_NANOS,
        field.isDate() ? field.format() : kind == FieldKind.BOOLEAN ? Source.BOOLEAN_FORMAT : null);
  }

  /**
   * How an aggregation reads a field of {@code kind}: a keyword's ordinals (not {@code wildcard}'s or
   * {@code constant_keyword}'s, which keep none of their own), integers, dates and booleans as longs, doubles and
   * floats as their sortable forms; null for a kind no aggregation reads.
   */
  private static Encoding encoding(FieldKind kind) {
    if (kind == FieldKind.KEYWORD) {
      return Encoding.ORDINALS;
    } else if (kind == FieldKind.BOOLEAN) {
      return Encoding.LONG;
    }
    SortField.Type numeric = kind.numericType();
    return numeric == null ? null : switch (numeric) {
      case LONG, INT -> Encoding.LONG;
      case DOUBLE -> Encoding.DOUBLE;
      case FLOAT -> Encoding.FLOAT;
      default -> null;
    };
  }
}
