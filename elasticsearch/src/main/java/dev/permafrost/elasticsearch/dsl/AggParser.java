/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static dev.permafrost.elasticsearch.dsl.AggParams.allowOnly;
import static dev.permafrost.elasticsearch.dsl.AggParams.asc;
import static dev.permafrost.elasticsearch.dsl.AggParams.integer;
import static dev.permafrost.elasticsearch.dsl.AggParams.missing;
import static dev.permafrost.elasticsearch.dsl.AggParams.object;
import static dev.permafrost.elasticsearch.dsl.AggParams.source;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.dsl.AggSpec.Source;
import dev.permafrost.elasticsearch.dsl.TermsSpec.TermsOrder;
import dev.permafrost.elasticsearch.dsl.Aggregator.Encoding;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;

/**
 * Parses a request's aggregations against a mapping into {@link AggSpec}s: which kind each is, its sub-aggregations,
 * the field it reads (checked against the mapping), metrics, {@code terms} and {@code filter(s)};
 * {@link LineAggParser} parses histograms and ranges. Each refusal is a {@link DslException} naming the aggregation.
 */
final class AggParser {
  private static final Set<String> TERMS_PARAMS = Set.of("field", "size", "shard_size", "order", "min_doc_count",
      "shard_min_doc_count", "missing", "execution_hint", "collect_mode", "format", "show_term_doc_count_error");
  private static final Set<String> FILTERS_PARAMS = Set.of("filters", "other_bucket", "other_bucket_key", "keyed");
  private static final Set<String> METRIC_PARAMS = Set.of("field", "missing", "format");
  private static final Set<String> METRICS = Set.of("min", "max", "avg", "sum", "value_count", "stats");

  private final IndexMapping mapping;
  private final Function<JsonNode, Query> filterQueries;
  private final LineAggParser lines;

  AggParser(IndexMapping mapping, Function<JsonNode, Query> filterQueries) {
    this.mapping = mapping;
    this.filterQueries = filterQueries;
    this.lines = new LineAggParser(mapping);
  }

  AggSpec[] parseAll(JsonNode aggs, String parent, int depth) {
    if (aggs == null || aggs.isNull() || aggs.isMissingNode()) {
      return new AggSpec[0];
    }
    if (!aggs.isObject()) {
      throw DslException.parsing("Expected [START_OBJECT] for the aggregations"
          + (parent == null ? "" : " of [" + parent + "]") + " but found [" + aggs.getNodeType() + "]");
    }
    List<AggSpec> out = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = aggs.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.add(parseOne(e.getKey(), e.getValue(), parent, depth));
    }
    return out.toArray(new AggSpec[0]);
  }

  private AggSpec parseOne(String name, JsonNode body, String parent, int depth) {
    if (!body.isObject()) {
      throw DslException.parsing("Expected [START_OBJECT] under aggregation [" + name + "] but found ["
          + body.getNodeType() + "]");
    }
    String type = null;
    JsonNode def = null;
    JsonNode subs = null;
    JsonNode meta = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      switch (e.getKey()) {
        case "aggs", "aggregations" -> {
          if (subs != null) {
            throw DslException.parsing("Found two sub aggregation definitions under [" + name + "]");
          }
          subs = e.getValue();
        }
        case "meta" -> meta = e.getValue();
        default -> {
          if (type != null) {
            throw DslException.parsing("Found two aggregation type definitions in [" + name + "]: [" + type
                + "] and [" + e.getKey() + "]");
          }
          type = e.getKey();
          def = e.getValue();
        }
      }
    }
    if (type == null) {
      throw DslException.parsing("Missing definition for aggregation [" + name + "]");
    }
    boolean hasSubs = subs != null && subs.size() > 0;
    if (METRICS.contains(type)) {
      if (hasSubs) {
        throw DslException.parsing("Aggregator [" + name + "] of type [" + type
            + "] cannot accept sub-aggregations");
      }
      return metric(name, type, object(name, type, def), meta);
    }
    boolean bucket = switch (type) {
      case "date_histogram", "histogram", "terms", "range", "date_range", "filter", "filters" -> true;
      default -> false;
    };
    if (!bucket) {
      throw DslException.parsing("aggregation [" + name + "]: aggregation type [" + type
          + "] is not supported (supported: date_histogram, histogram, terms, range, date_range, filter, filters,"
          + " min, max, avg, sum, value_count, stats)");
    }
    if (hasSubs && depth >= 1) {
      throw DslException.illegalArgument("aggregation [" + name + "] under [" + parent
          + "] has sub-aggregations: only one level of sub-aggregations is supported");
    }
    AggSpec[] children = parseAll(subs, name, depth + 1);
    JsonNode d = type.equals("filter") ? def : object(name, type, def);
    return switch (type) {
      case "date_histogram" -> lines.dateHistogram(name, d, children, meta);
      case "histogram" -> lines.histogram(name, d, children, meta);
      case "terms" -> terms(name, d, children, meta);
      case "range", "date_range" -> lines.range(name, type, d, children, meta);
      case "filter" -> new FiltersSpec(name, children, meta, true, null, new Query[] {query(name, d)}, null);
      default -> filters(name, d, children, meta);
    };
  }

  private Query query(String name, JsonNode def) {
    if (def == null || !def.isObject()) {
      throw DslException.parsing("[filter] aggregation [" + name + "] expects a query object");
    }
    return filterQueries.apply(def);
  }

  private AggSpec metric(String name, String type, JsonNode def, JsonNode meta) {
    allowOnly(name, type, def, METRIC_PARAMS);
    Source source = source(mapping, name, type, def, type.equals("value_count"), true);
    String format = def.hasNonNull("format") ? def.get("format").asText() : source.format();
    if (def.hasNonNull("format") && !source.date()) {
      try {
        new java.text.DecimalFormat(format);
      } catch (IllegalArgumentException e) {
        throw DslException.illegalArgument("[" + type + "] aggregation [" + name + "]: invalid [format] [" + format
            + "]: " + e.getMessage());
      }
    }
    boolean hasMissing = def.hasNonNull("missing");
    long missing = 0;
    if (hasMissing) {
      if (source.encoding() == Encoding.ORDINALS) {
        missing = -1;
      } else {
        missing = missing(name, source, def.get("missing"), ZoneOffset.UTC, format);
      }
    }
    return new MetricSpec(name, type, source, hasMissing, missing, format, meta);
  }

  private AggSpec terms(String name, JsonNode def, AggSpec[] subs, JsonNode meta) {
    String type = "terms";
    allowOnly(name, type, def, TERMS_PARAMS);
    Source source = source(mapping, name, type, def, true, true);
    long size = def.hasNonNull("size") ? integer(name, "size", def.get("size")) : 10;
    if (size <= 0) {
      throw DslException.illegalArgument("[size] must be greater than 0. Found [" + size + "] in [" + name + "]");
    }
    long minDocCount = def.hasNonNull("min_doc_count") ? integer(name, "min_doc_count", def.get("min_doc_count"))
        : 1;
    if (minDocCount < 0) {
      throw DslException.illegalArgument("[min_doc_count] must be greater than or equal to 0. Found ["
          + minDocCount + "] in [" + name + "]");
    }
    List<TermsOrder> order = new ArrayList<>();
    JsonNode o = def.get("order");
    if (o != null && !o.isNull()) {
      for (JsonNode one : o.isArray() ? o : List.of(o)) {
        for (Iterator<Map.Entry<String, JsonNode>> it = one.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          order.add(termsOrder(name, e.getKey(), asc(name, e.getValue()), subs));
        }
      }
    } else {
      order.add(new TermsOrder("_count", false, -1, null));
    }
    String format = def.hasNonNull("format") ? def.get("format").asText() : source.format();
    boolean hasMissing = def.hasNonNull("missing");
    long missing = 0;
    BytesRef missingTerm = null;
    if (hasMissing) {
      if (source.encoding() == Encoding.ORDINALS) {
        missing = -1;
        missingTerm = new BytesRef(def.get("missing").asText());
      } else {
        missing = missing(name, source, def.get("missing"), ZoneOffset.UTC, source.format() != null
            ? source.format() : IndexMapping.Field.DEFAULT_DATE_FORMAT);
      }
    }
    return new TermsSpec(name, subs, meta, source, (int) Math.min(size, AggSpec.MAX_BUCKETS), minDocCount, order,
        hasMissing, missing, missingTerm, format);
  }

  private static TermsOrder termsOrder(String name, String by, boolean asc, AggSpec[] subs) {
    if (by.equals("_count") || by.equals("_key") || by.equals("_term")) {
      return new TermsOrder(by.equals("_term") ? "_key" : by, asc, -1, null);
    }
    String aggName = by;
    String stat = null;
    int dot = by.indexOf('.');
    if (dot >= 0) {
      aggName = by.substring(0, dot);
      stat = by.substring(dot + 1);
    }
    for (int i = 0; i < subs.length; i++) {
      if (subs[i].name.equals(aggName) && subs[i] instanceof MetricSpec m) {
        if (m.type.equals("stats")) {
          if (stat == null || !Set.of("count", "min", "max", "avg", "sum").contains(stat)) {
            break;
          }
          return new TermsOrder(by, asc, i, stat);
        }
        if (stat == null || stat.equals("value")) {
          return new TermsOrder(by, asc, i, m.type);
        }
      }
    }
    throw DslException.illegalArgument("Invalid aggregation order path [" + by + "] of [terms] aggregation ["
        + name + "]: it must be _count, _key, or a single-value metric sub-aggregation (or a stat of a stats one)");
  }

  private AggSpec filters(String name, JsonNode def, AggSpec[] subs, JsonNode meta) {
    allowOnly(name, "filters", def, FILTERS_PARAMS);
    JsonNode filters = def.get("filters");
    if (filters == null || !(filters.isObject() || filters.isArray())) {
      throw DslException.parsing("[filters] aggregation [" + name + "] needs [filters]: an object of named"
          + " queries or an array of queries");
    }
    String otherKey = null;
    if (def.path("other_bucket").asBoolean(false) || def.hasNonNull("other_bucket_key")) {
      otherKey = def.path("other_bucket_key").asText("_other_");
    }
    List<String> names = new ArrayList<>();
    List<Query> queries = new ArrayList<>();
    if (filters.isObject()) {
      List<String> sorted = new ArrayList<>();
      filters.fieldNames().forEachRemaining(sorted::add);
      sorted.sort(null); // Elasticsearch sorts named filters by name
      for (String key : sorted) {
        names.add(key);
        queries.add(query(name, filters.get(key)));
      }
    } else {
      for (JsonNode q : filters) {
        queries.add(query(name, q));
      }
    }
    return new FiltersSpec(name, subs, meta, false, filters.isObject() ? names.toArray(new String[0]) : null,
        queries.toArray(new Query[0]), otherKey);
  }
}
