/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static dev.permafrost.elasticsearch.dsl.AggParams.allowOnly;
import static dev.permafrost.elasticsearch.dsl.AggParams.asc;
import static dev.permafrost.elasticsearch.dsl.AggParams.date;
import static dev.permafrost.elasticsearch.dsl.AggParams.integer;
import static dev.permafrost.elasticsearch.dsl.AggParams.missing;
import static dev.permafrost.elasticsearch.dsl.AggParams.number;
import static dev.permafrost.elasticsearch.dsl.AggParams.refuseKeyed;
import static dev.permafrost.elasticsearch.dsl.AggParams.source;
import static dev.permafrost.elasticsearch.dsl.AggParams.timeValue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.dsl.AggSpec.Source;
import dev.permafrost.elasticsearch.dsl.Aggregator.Encoding;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses the aggregations that put a field's values on a line: {@code date_histogram}, {@code histogram},
 * {@code range} and {@code date_range}.
 */
final class LineAggParser {
  private static final Set<String> DATE_HISTOGRAM_PARAMS = Set.of("field", "fixed_interval", "calendar_interval",
      "interval", "time_zone", "min_doc_count", "extended_bounds", "hard_bounds", "offset", "format", "order",
      "keyed", "missing");
  private static final Set<String> HISTOGRAM_PARAMS = Set.of("field", "interval", "offset", "min_doc_count",
      "extended_bounds", "hard_bounds", "order", "keyed", "missing", "format");
  private static final Set<String> RANGE_PARAMS = Set.of("field", "ranges", "keyed", "format", "time_zone",
      "missing");

  private final IndexMapping mapping;

  LineAggParser(IndexMapping mapping) {
    this.mapping = mapping;
  }

  /** Order of a histogram: {@code {"_key"|"_count": "asc"|"desc"}} (default key ascending). */
  private static boolean[] histogramOrder(String name, JsonNode def) {
    JsonNode order = def.get("order");
    if (order == null) {
      return new boolean[] {false, true};
    }
    if (order.isArray() && order.size() == 1) {
      order = order.get(0);
    }
    if (!order.isObject() || order.size() != 1) {
      throw DslException.parsing("aggregation [" + name + "]: [order] must be one {\"_key\"|\"_count\": \"asc\"|"
          + "\"desc\"}");
    }
    Map.Entry<String, JsonNode> e = order.fields().next();
    boolean asc = asc(name, e.getValue());
    return switch (e.getKey()) {
      case "_key" -> new boolean[] {false, asc};
      case "_count" -> new boolean[] {true, asc};
      default -> throw DslException.illegalArgument("aggregation [" + name + "]: ordering histogram buckets by ["
          + e.getKey() + "] is not supported, only by _key or _count");
    };
  }

  AggSpec dateHistogram(String name, JsonNode def, AggSpec[] subs, JsonNode meta) {
    String type = "date_histogram";
    allowOnly(name, type, def, DATE_HISTOGRAM_PARAMS);
    refuseKeyed(name, type, def);
    if (def.has("interval")) {
      throw DslException.illegalArgument("[interval] on [date_histogram] aggregation [" + name + "] is no longer"
          + " supported: use [fixed_interval] or [calendar_interval]");
    }
    Source source = source(mapping, name, type, def, false, true);
    if (source.encoding() != Encoding.LONG) {
      throw DslException.illegalArgument("Field [" + def.get("field").asText() + "] of a floating point type is"
          + " not supported for [date_histogram] aggregation [" + name + "]");
    }
    ZoneId zone = def.hasNonNull("time_zone") ? DateFormats.zone(def.get("time_zone").asText())
        : ZoneOffset.UTC;
    long offset = 0;
    if (def.hasNonNull("offset")) {
      JsonNode o = def.get("offset");
      Long value = o.isNumber() ? Long.valueOf(o.asLong()) : timeValue(o.asText());
      if (value == null) {
        throw DslException.illegalArgument("aggregation [" + name + "]: cannot parse [offset] [" + o.asText()
            + "]");
      }
      offset = value;
    }
    DateRounding rounding;
    if (def.hasNonNull("fixed_interval") && def.hasNonNull("calendar_interval")) {
      throw DslException.illegalArgument("aggregation [" + name + "]: cannot use [fixed_interval] together with"
          + " [calendar_interval]");
    } else if (def.hasNonNull("fixed_interval")) {
      String text = def.get("fixed_interval").asText();
      Long interval = timeValue(text);
      if (interval == null || interval <= 0) {
        throw DslException.illegalArgument("failed to parse setting [date_histogram.fixedInterval] with value ["
            + text + "] as a time value (aggregation [" + name + "]; units: ms, s, m, h, d)");
      }
      rounding = DateRounding.fixed(interval, zone, offset);
    } else if (def.hasNonNull("calendar_interval")) {
      String text = def.get("calendar_interval").asText();
      DateRounding.Unit unit = switch (text) {
        case "minute", "1m" -> DateRounding.Unit.MINUTE;
        case "hour", "1h" -> DateRounding.Unit.HOUR;
        case "day", "1d" -> DateRounding.Unit.DAY;
        case "week", "1w" -> DateRounding.Unit.WEEK;
        case "month", "1M" -> DateRounding.Unit.MONTH;
        case "quarter", "1q" -> DateRounding.Unit.QUARTER;
        case "year", "1y" -> DateRounding.Unit.YEAR;
        default -> throw DslException.illegalArgument("The supplied interval [" + text + "] could not be parsed"
            + " as a calendar interval (aggregation [" + name + "])");
      };
      rounding = DateRounding.calendar(unit, zone, offset);
    } else {
      throw DslException.illegalArgument("Invalid interval specified, must be non-null and non-empty: set"
          + " [fixed_interval] or [calendar_interval] (aggregation [" + name + "])");
    }
    String format = def.hasNonNull("format") ? def.get("format").asText()
        : source.format() != null ? source.format() : IndexMapping.Field.DEFAULT_DATE_FORMAT;
    String boundsFormat = source.format() != null ? source.format() + "||" + format : format;
    long minDocCount = def.hasNonNull("min_doc_count") ? integer(name, "min_doc_count", def.get("min_doc_count"))
        : 0;
    Double boundsMin = null;
    Double boundsMax = null;
    JsonNode bounds = def.get("extended_bounds");
    if (bounds != null && !bounds.isNull()) {
      if (bounds.hasNonNull("min")) {
        boundsMin = (double) date(name, "extended_bounds.min", bounds.get("min"), boundsFormat, zone, false);
      }
      if (bounds.hasNonNull("max")) {
        boundsMax = (double) date(name, "extended_bounds.max", bounds.get("max"), boundsFormat, zone, false);
      }
      if (boundsMin != null && boundsMax != null && boundsMin > boundsMax) {
        throw DslException.illegalArgument("[extended_bounds.min][" + boundsMin.longValue() + "] cannot be greater"
            + " than [extended_bounds.max][" + boundsMax.longValue() + "] for histogram aggregation [" + name
            + "]");
      }
      // as the node: the bounds move with the offset, then round as the keys do
      boundsMin = boundsMin == null ? null : boundsMin + offset;
      boundsMax = boundsMax == null ? null : boundsMax + offset;
    }
    boolean hasMissing = def.hasNonNull("missing");
    long missing = hasMissing ? missing(name, source, def.get("missing"), zone, boundsFormat) : 0;
    boolean[] order = histogramOrder(name, def);
    return new HistogramSpec(name, subs, meta, source, rounding, 0, 0, minDocCount, boundsMin, boundsMax,
        order[0], order[1], format, zone, hasMissing, missing);
  }

  AggSpec histogram(String name, JsonNode def, AggSpec[] subs, JsonNode meta) {
    String type = "histogram";
    allowOnly(name, type, def, HISTOGRAM_PARAMS);
    refuseKeyed(name, type, def);
    Source source = source(mapping, name, type, def, false, true);
    if (!def.hasNonNull("interval")) {
      throw DslException.illegalArgument("[interval] must be set for histogram aggregation [" + name + "]");
    }
    double interval = number(name, "interval", def.get("interval"));
    if (!(interval > 0) || Double.isInfinite(interval)) {
      throw DslException.illegalArgument("[interval] must be >0 for histogram aggregation [" + name + "]");
    }
    double offset = def.hasNonNull("offset") ? number(name, "offset", def.get("offset")) : 0;
    long minDocCount = def.hasNonNull("min_doc_count") ? integer(name, "min_doc_count", def.get("min_doc_count"))
        : 0;
    Double boundsMin = null;
    Double boundsMax = null;
    JsonNode bounds = def.get("extended_bounds");
    if (bounds != null && !bounds.isNull()) {
      boundsMin = bounds.hasNonNull("min") ? number(name, "extended_bounds.min", bounds.get("min")) : null;
      boundsMax = bounds.hasNonNull("max") ? number(name, "extended_bounds.max", bounds.get("max")) : null;
      if (boundsMin != null && boundsMax != null && boundsMin > boundsMax) {
        throw DslException.illegalArgument("[extended_bounds.min][" + boundsMin + "] cannot be greater than"
            + " [extended_bounds.max][" + boundsMax + "] for histogram aggregation [" + name + "]");
      }
    }
    boolean hasMissing = def.hasNonNull("missing");
    long missing = hasMissing ? missing(name, source, def.get("missing"), ZoneOffset.UTC, source.format()) : 0;
    boolean[] order = histogramOrder(name, def);
    String format = def.hasNonNull("format") ? def.get("format").asText() : null;
    return new HistogramSpec(name, subs, meta, source, null, interval, offset, minDocCount, boundsMin, boundsMax,
        order[0], order[1], format, ZoneOffset.UTC, hasMissing, missing);
  }

  AggSpec range(String name, String type, JsonNode def, AggSpec[] subs, JsonNode meta) {
    allowOnly(name, type, def, RANGE_PARAMS);
    refuseKeyed(name, type, def);
    Source source = source(mapping, name, type, def, false, true);
    if (type.equals("date_range") && source.field() != null && !source.date()) {
      throw DslException.illegalArgument("Field [" + source.field() + "] is not a date: [date_range] aggregation ["
          + name + "] needs a date field");
    }
    boolean date = source.date() || (type.equals("date_range") && source.field() == null);
    source = new Source(source.field(), source.encoding(), date, source.nanos(),
        date && source.format() == null ? IndexMapping.Field.DEFAULT_DATE_FORMAT : source.format());
    ZoneId zone = def.hasNonNull("time_zone") ? DateFormats.zone(def.get("time_zone").asText())
        : ZoneOffset.UTC;
    String format = def.hasNonNull("format") ? def.get("format").asText() : source.format();
    String parseFormat = date && source.format() != null && !format.equals(source.format())
        ? format + "||" + source.format() : format;
    JsonNode ranges = def.get("ranges");
    if (ranges == null || !ranges.isArray() || ranges.isEmpty()) {
      throw DslException.illegalArgument("No [ranges] specified for the [" + name + "] aggregation");
    }
    record R(String key, double from, double to) {}
    List<R> list = new ArrayList<>();
    for (JsonNode r : ranges) {
      if (!r.isObject()) {
        throw DslException.parsing("aggregation [" + name + "]: each of [ranges] must be an object");
      }
      double from = Double.NEGATIVE_INFINITY;
      double to = Double.POSITIVE_INFINITY;
      if (r.hasNonNull("from")) {
        from = date ? date(name, "from", r.get("from"), parseFormat, zone, false) : number(name, "from",
            r.get("from"));
      }
      if (r.hasNonNull("to")) {
        to = date ? date(name, "to", r.get("to"), parseFormat, zone, false) : number(name, "to", r.get("to"));
      }
      list.add(new R(r.hasNonNull("key") ? r.get("key").asText() : null, from, to));
    }
    list.sort(Comparator.comparingDouble(R::from).thenComparingDouble(R::to));
    String[] keys = new String[list.size()];
    double[] from = new double[list.size()];
    double[] to = new double[list.size()];
    for (int i = 0; i < list.size(); i++) {
      keys[i] = list.get(i).key();
      from[i] = list.get(i).from();
      to[i] = list.get(i).to();
    }
    boolean hasMissing = def.hasNonNull("missing");
    long missing = hasMissing ? missing(name, source, def.get("missing"), zone, parseFormat) : 0;
    return new RangeSpec(name, subs, meta, source, keys, from, to, format, zone, hasMissing, missing);
  }
}
