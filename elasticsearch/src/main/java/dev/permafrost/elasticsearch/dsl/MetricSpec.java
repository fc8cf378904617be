/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.dsl.AggPartial.Stats;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Set;

/** {@code min}, {@code max}, {@code avg}, {@code sum}, {@code value_count} and {@code stats}. */
final class MetricSpec extends AggSpec {
  final String type;
  final Source source;
  final boolean hasMissing;
  final long missing;
  final String format;

  MetricSpec(String name, String type, Source source, boolean hasMissing, long missing, String format,
      JsonNode meta) {
    super(name, new AggSpec[0], meta);
    this.type = type;
    this.source = source;
    this.hasMissing = hasMissing;
    this.missing = missing;
    this.format = format;
  }

  @Override
  String typeKey() {
    return type;
  }

  @Override
  Aggregator create(boolean topLevel) {
    return new MetricAggregator(source.values(hasMissing, missing));
  }

  @Override
  void fields(Set<String> out) {
    if (source.field() != null) {
      out.add(source.field());
    }
  }

  /** The single value that orders buckets by this metric ({@code stat}: one of a {@code stats}). */
  static double value(Stats s, String type) {
    long count = s == null ? 0 : s.count;
    return switch (type) {
      case "min" -> count == 0 ? Double.POSITIVE_INFINITY : s.min;
      case "max" -> count == 0 ? Double.NEGATIVE_INFINITY : s.max;
      case "avg" -> count == 0 ? Double.NaN : s.sum / count;
      case "sum" -> count == 0 ? 0.0 : s.sum;
      case "count", "value_count" -> count;
      default -> throw new IllegalArgumentException(type);
    };
  }

  private void putValue(ObjectNode out, String field, Stats s, String stat) {
    double v = value(s, stat);
    if (!Double.isFinite(v) && s != null && s.count > 0 && (stat.equals("sum") || stat.equals("avg"))) {
      out.put(field, String.valueOf(v)); // a sum past the doubles: the node writes "Infinity", "-Infinity", "NaN"
    } else if (Double.isInfinite(v) || Double.isNaN(v)) {
      out.putNull(field);
    } else {
      out.put(field, v);
    }
  }

  /**
   * The value printed as the node prints it where its field has a format (a date's, a boolean's, or the request's
   * {@code format} of a number): a date of the value's whole milliseconds in the field's format (a sum of dates too,
   * {@code 1970-01-01T00:00:00.000Z} when nothing was summed), a boolean as {@code true} unless 0; nothing for a
   * value that is not there (null).
   */
  private void putAsString(ObjectNode out, String field, Stats s, String stat) {
    double v = value(s, stat);
    if (!Double.isFinite(v) || format == null) {
      return;
    }
    if (source.date()) {
      out.put(field, DateFormats.format((long) v, format, ZoneId.of("Z")));
    } else if (format.equals(Source.BOOLEAN_FORMAT) && format.equals(source.format())) {
      out.put(field, v != 0 ? "true" : "false");
    } else if (source.field() != null) {
      out.put(field, new DecimalFormat(format, DecimalFormatSymbols.getInstance(Locale.ROOT)).format(v));
    }
  }

  @Override
  ObjectNode render(AggPartial<?> partial, boolean typedKeys) {
    Stats s = (Stats) partial;
    ObjectNode out = body();
    switch (type) {
      case "value_count" -> out.put("value", s == null ? 0 : s.count);
      case "stats" -> {
        out.put("count", s == null ? 0 : s.count);
        putValue(out, "min", s, "min");
        putValue(out, "max", s, "max");
        putValue(out, "avg", s, "avg");
        putValue(out, "sum", s, "sum");
        if (s != null && s.count > 0) {
          putAsString(out, "min_as_string", s, "min");
          putAsString(out, "max_as_string", s, "max");
          putAsString(out, "avg_as_string", s, "avg");
          putAsString(out, "sum_as_string", s, "sum");
        }
      }
      default -> {
        putValue(out, "value", s, type);
        putAsString(out, "value_as_string", s, type);
      }
    }
    return out;
  }
}
