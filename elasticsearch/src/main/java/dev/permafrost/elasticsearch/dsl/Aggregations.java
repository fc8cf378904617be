/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.dsl.AggSpec.FiltersSpec;
import dev.permafrost.elasticsearch.dsl.AggSpec.HistogramSpec;
import dev.permafrost.elasticsearch.dsl.AggSpec.MetricSpec;
import dev.permafrost.elasticsearch.dsl.AggSpec.RangeSpec;
import dev.permafrost.elasticsearch.dsl.AggSpec.Source;
import dev.permafrost.elasticsearch.dsl.AggSpec.TermsOrder;
import dev.permafrost.elasticsearch.dsl.AggSpec.TermsSpec;
import dev.permafrost.elasticsearch.dsl.Aggregator.Encoding;
import dev.permafrost.store.ColumnPrefetch;
import java.io.IOException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * A search request's aggregations, computed over doc values as Elasticsearch does: {@code date_histogram},
 * {@code histogram}, {@code terms}, {@code range}/{@code date_range}, {@code filter}, {@code filters} and the
 * metrics {@code min}, {@code max}, {@code avg}, {@code sum}, {@code value_count}, {@code stats}, with one level of
 * sub-aggregations under a bucket aggregation. Counts are exact: every segment's counts are merged, so
 * {@code doc_count_error_upper_bound} is always 0.
 */
public final class Aggregations {
  private static final Set<String> DATE_HISTOGRAM_PARAMS = Set.of("field", "fixed_interval", "calendar_interval",
      "interval", "time_zone", "min_doc_count", "extended_bounds", "hard_bounds", "offset", "format", "order",
      "keyed", "missing");
  private static final Set<String> HISTOGRAM_PARAMS = Set.of("field", "interval", "offset", "min_doc_count",
      "extended_bounds", "hard_bounds", "order", "keyed", "missing", "format");
  private static final Set<String> TERMS_PARAMS = Set.of("field", "size", "shard_size", "order", "min_doc_count",
      "shard_min_doc_count", "missing", "execution_hint", "collect_mode", "format", "show_term_doc_count_error");
  private static final Set<String> RANGE_PARAMS = Set.of("field", "ranges", "keyed", "format", "time_zone",
      "missing");
  private static final Set<String> FILTERS_PARAMS = Set.of("filters", "other_bucket", "other_bucket_key", "keyed");
  private static final Set<String> METRIC_PARAMS = Set.of("field", "missing", "format");
  private static final Set<String> METRICS = Set.of("min", "max", "avg", "sum", "value_count", "stats");
  private static final Pattern TIME_VALUE = Pattern.compile("([+-]?\\d+)(ms|s|m|h|d)");

  private final AggSpec[] specs;
  private final String[] fields;

  private Aggregations(AggSpec[] specs) {
    this.specs = specs;
    Set<String> read = new LinkedHashSet<>();
    for (AggSpec spec : specs) {
      spec.fields(read);
    }
    this.fields = read.toArray(new String[0]);
  }

  /**
   * Parses the request's "aggs"/"aggregations" object over the mapping; throws DslException (400) naming the
   * aggregation and what is wrong or unsupported.
   *
   * @param aggs the {@code aggs} object of the request (null or missing: no aggregations)
   * @param mapping the mapping of the searched index, for each field's type and date format
   * @param filterQueries turns a query DSL object (a {@code filter} body, each of {@code filters}) into a query
   */
  public static Aggregations parse(JsonNode aggs, IndexMapping mapping, Function<JsonNode, Query> filterQueries) {
    return new Aggregations(new Parser(mapping, filterQueries).parseAll(aggs, null, 0));
  }

  /**
   * A collector manager computing every aggregation over the documents a search matches (one collector per slice;
   * reduce merges them). Its result also counts the matching documents.
   */
  public CollectorManager<?, Result> collectorManager() {
    return new CollectorManager<SliceCollector, Result>() {
      @Override
      public SliceCollector newCollector() {
        return new SliceCollector();
      }

      @Override
      public Result reduce(Collection<SliceCollector> collectors) throws IOException {
        long docCount = 0;
        Object[] partials = new Object[specs.length];
        for (SliceCollector c : collectors) {
          c.finishLeaf();
          docCount += c.docCount;
          for (int i = 0; i < specs.length; i++) {
            partials[i] = Aggregator.merge(partials[i], c.tops[i].build(1)[0]);
          }
        }
        return new Outcome(docCount, partials);
      }
    };
  }

  /** What a search's aggregations came to. */
  public interface Result {
    /** The documents matched (collected). */
    long docCount();

    /**
     * The "aggregations" object of Elasticsearch's response; with typedKeys, each name prefixed by its type as
     * Elasticsearch's typed_keys=true does: "date_histogram#", "histogram#", "sterms#" (terms on keyword),
     * "lterms#" (terms on integer/long/date), "dterms#" (terms on double/float), "range#", "date_range#" (a range
     * agg on a date field), "filter#", "filters#", "min#", "max#", "avg#", "sum#", "value_count#", "stats#".
     */
    ObjectNode toJson(boolean typedKeys);
  }

  /** The merged partials, rendered on demand. */
  private final class Outcome implements Result {
    private final long docCount;
    private final Object[] partials;

    Outcome(long docCount, Object[] partials) {
      this.docCount = docCount;
      this.partials = partials;
    }

    @Override
    public long docCount() {
      return docCount;
    }

    @Override
    public ObjectNode toJson(boolean typedKeys) {
      ObjectNode out = AggSpec.JSON.objectNode();
      for (int i = 0; i < specs.length; i++) {
        out.set(specs[i].key(typedKeys), specs[i].render(partials[i], typedKeys));
      }
      if (countBuckets(specs, out, typedKeys) > AggSpec.MAX_BUCKETS) {
        throw DslException.tooManyBuckets(AggSpec.MAX_BUCKETS);
      }
      return out;
    }
  }

  /** How many empty buckets a histogram adds between two counts of them toward {@code search.max_buckets}. */
  static final int EMPTY_BUCKETS_COUNTED_EVERY = 10_000;

  /**
   * The buckets rendered aggregations count toward {@code search.max_buckets} (65,536), as an Elasticsearch 9.3.3
   * node counts them in its final reduce: every bucket of a multi-bucket aggregation ({@code terms}, histograms,
   * ranges, {@code filters}) at every level, sub-aggregations' too, not a {@code filter}'s single bucket nor a metric;
   * and a histogram's empty buckets ({@code min_doc_count: 0}) once more in every whole {@value
   * #EMPTY_BUCKETS_COUNTED_EVERY} (the node counts them while it adds them, then counts the result): one histogram of 2
   * documents and 35,536 buckets is 30,000 + 35,536, at the limit; one more bucket is past it.
   */
  static long countBuckets(AggSpec[] specs, ObjectNode rendered, boolean typedKeys) {
    long count = 0;
    for (AggSpec spec : specs) {
      JsonNode agg = rendered.get(spec.key(typedKeys));
      if (!(agg instanceof ObjectNode object)) {
        continue;
      }
      JsonNode buckets = object.get("buckets");
      if (buckets == null) { // a single bucket, or a metric
        count += countBuckets(spec.subs, object, typedKeys);
        continue;
      }
      long empty = 0;
      for (JsonNode bucket : buckets) { // an array, or keyed buckets' object
        if (spec instanceof HistogramSpec && bucket.path("doc_count").asLong() == 0) {
          empty++;
        }
        count += 1 + (bucket instanceof ObjectNode b ? countBuckets(spec.subs, b, typedKeys) : 0);
      }
      count += empty / EMPTY_BUCKETS_COUNTED_EVERY * EMPTY_BUCKETS_COUNTED_EVERY;
    }
    return count;
  }

  /** One slice's aggregators; every doc-values column they read is prefetched when a segment starts. */
  private final class SliceCollector implements Collector {
    final Aggregator[] tops = new Aggregator[specs.length];
    private final List<Aggregator> all = new ArrayList<>();
    long docCount;
    private boolean inLeaf;

    SliceCollector() {
      for (int i = 0; i < specs.length; i++) {
        tops[i] = specs[i].create(true);
        addAll(tops[i]);
      }
    }

    private void addAll(Aggregator a) {
      all.add(a);
      for (Aggregator sub : a.subs) {
        addAll(sub);
      }
    }

    void finishLeaf() throws IOException {
      if (inLeaf) {
        inLeaf = false;
        for (Aggregator a : all) {
          a.finishLeaf();
        }
      }
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
      finishLeaf();
      if (fields.length > 0) {
        ColumnPrefetch.prefetch(context.reader(), fields);
      }
      for (Aggregator a : all) {
        a.setLeaf(context);
      }
      inLeaf = true;
      Aggregator[] aggregators = tops;
      return new LeafCollector() {
        @Override
        public void setScorer(Scorable scorer) {}

        @Override
        public void collect(int doc) throws IOException {
          docCount++;
          for (Aggregator a : aggregators) {
            a.collect(doc, 0);
          }
        }

        @Override
        public void finish() throws IOException {
          finishLeaf();
        }
      };
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }

  // ---- parsing ------------------------------------------------------------------------------------------------

  /** Parses aggregation definitions against a mapping. */
  private static final class Parser {
    private final IndexMapping mapping;
    private final Function<JsonNode, Query> filterQueries;

    Parser(IndexMapping mapping, Function<JsonNode, Query> filterQueries) {
      this.mapping = mapping;
      this.filterQueries = filterQueries;
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
        case "date_histogram" -> dateHistogram(name, d, children, meta);
        case "histogram" -> histogram(name, d, children, meta);
        case "terms" -> terms(name, d, children, meta);
        case "range", "date_range" -> range(name, type, d, children, meta);
        case "filter" -> new FiltersSpec(name, children, meta, true, null, new Query[] {query(name, d)}, null);
        default -> filters(name, d, children, meta);
      };
    }

    private static JsonNode object(String name, String type, JsonNode def) {
      if (def == null || !def.isObject()) {
        throw DslException.parsing("[" + type + "] aggregation [" + name + "] expects an object");
      }
      return def;
    }

    private static void allowOnly(String name, String type, JsonNode def, Set<String> allowed) {
      for (Iterator<String> it = def.fieldNames(); it.hasNext(); ) {
        String param = it.next();
        if (!allowed.contains(param)) {
          throw DslException.parsing("[" + type + "] aggregation [" + name + "]: unknown or unsupported parameter ["
              + param + "]");
        }
      }
    }

    private Query query(String name, JsonNode def) {
      if (def == null || !def.isObject()) {
        throw DslException.parsing("[filter] aggregation [" + name + "] expects a query object");
      }
      return filterQueries.apply(def);
    }

    /** The field an aggregation reads, checked against the mapping; an unmapped field has no values. */
    private Source source(String name, String type, JsonNode def, boolean keywordOk, boolean numericOk) {
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
      if (t.equals("text") || t.equals("match_only_text")) {
        throw DslException.illegalArgument("Text fields are not optimised for operations that require"
            + " per-document field data like aggregations and sorting, so these operations are disabled by default."
            + " Please use a keyword field instead. (aggregation [" + name + "], field [" + path + "])");
      }
      if (!field.docValues()) {
        throw DslException.illegalArgument("Can't load fielddata on [" + path + "] because fielddata is unsupported"
            + " on fields of type [" + t + "]. Use doc values instead. (aggregation [" + name
            + "]: the field has no doc values)");
      }
      Encoding encoding = switch (t) {
        case "keyword", "constant_keyword", "wildcard" -> keywordOk ? Encoding.ORDINALS : null;
        case "long", "integer", "short", "byte", "date", "date_nanos", "boolean" -> numericOk ? Encoding.LONG : null;
        case "double" -> numericOk ? Encoding.DOUBLE : null;
        case "float" -> numericOk ? Encoding.FLOAT : null;
        default -> null;
      };
      if (encoding == null || t.equals("wildcard") || t.equals("constant_keyword")) {
        throw DslException.illegalArgument("Field [" + path + "] of type [" + t + "] is not supported for aggregation"
            + " [" + name + "] of type [" + type + "]");
      }
      return new Source(path, encoding, field.isDate(), t.equals("date_nanos"),
          field.isDate() ? field.format() : t.equals("boolean") ? "boolean" : null);
    }

    /** A {@code missing} value encoded as the field's doc values are. */
    private static long missing(String name, Source source, JsonNode value, ZoneId zone, String format) {
      if (source.date()) {
        return date(name, "missing", value, format, zone, false);
      }
      if (source.encoding() == Encoding.LONG && "boolean".equals(source.format())) {
        return value.asBoolean() || "true".equals(value.asText()) ? 1 : 0;
      }
      double d = number(name, "missing", value);
      return switch (source.encoding()) {
        case DOUBLE -> NumericUtils.doubleToSortableLong(d);
        case FLOAT -> NumericUtils.floatToSortableInt((float) d);
        default -> (long) d;
      };
    }

    private static double number(String name, String param, JsonNode value) {
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

    private static long integer(String name, String param, JsonNode value) {
      double d = number(name, param, value);
      if (d != Math.rint(d)) {
        throw DslException.parsing("aggregation [" + name + "]: [" + param + "] must be an integer, got ["
            + value + "]");
      }
      return (long) d;
    }

    private static long date(String name, String param, JsonNode value, String format, ZoneId zone,
        boolean roundUp) {
      if (value.isNumber()) {
        return value.asLong();
      }
      if (!value.isTextual()) {
        throw DslException.parsing("aggregation [" + name + "]: [" + param + "] must be a date, got [" + value + "]");
      }
      return DateFormats.parse(value.asText(), format, zone, roundUp, System::currentTimeMillis);
    }

    /** A time value like {@code 30s}, {@code -1h}, {@code 1d} in milliseconds, or null if it is not one. */
    private static Long timeValue(String text) {
      Matcher m = TIME_VALUE.matcher(text.trim());
      if (!m.matches()) {
        return null;
      }
      long n = Long.parseLong(m.group(1).startsWith("+") ? m.group(1).substring(1) : m.group(1));
      long unit = switch (m.group(2)) {
        case "ms" -> 1L;
        case "s" -> 1000L;
        case "m" -> DateRounding.MINUTE;
        case "h" -> DateRounding.HOUR;
        default -> DateRounding.DAY;
      };
      return n * unit;
    }

    private static boolean asc(String name, JsonNode direction) {
      String d = direction.asText();
      if (d.equalsIgnoreCase("asc")) {
        return true;
      }
      if (d.equalsIgnoreCase("desc")) {
        return false;
      }
      throw DslException.parsing("aggregation [" + name + "]: unknown order direction [" + d + "]");
    }

    private static void refuseKeyed(String name, String type, JsonNode def) {
      if (def.path("keyed").asBoolean(false)) {
        throw DslException.illegalArgument("[" + type + "] aggregation [" + name + "]: [keyed: true] is not"
            + " supported, only the bucket list");
      }
      if (def.has("hard_bounds")) {
        throw DslException.illegalArgument("[" + type + "] aggregation [" + name + "]: [hard_bounds] is not"
            + " supported");
      }
    }

    private AggSpec metric(String name, String type, JsonNode def, JsonNode meta) {
      allowOnly(name, type, def, METRIC_PARAMS);
      Source source = source(name, type, def, type.equals("value_count"), true);
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

    private AggSpec dateHistogram(String name, JsonNode def, AggSpec[] subs, JsonNode meta) {
      String type = "date_histogram";
      allowOnly(name, type, def, DATE_HISTOGRAM_PARAMS);
      refuseKeyed(name, type, def);
      if (def.has("interval")) {
        throw DslException.illegalArgument("[interval] on [date_histogram] aggregation [" + name + "] is no longer"
            + " supported: use [fixed_interval] or [calendar_interval]");
      }
      Source source = source(name, type, def, false, true);
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

    private AggSpec histogram(String name, JsonNode def, AggSpec[] subs, JsonNode meta) {
      String type = "histogram";
      allowOnly(name, type, def, HISTOGRAM_PARAMS);
      refuseKeyed(name, type, def);
      Source source = source(name, type, def, false, true);
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

    private AggSpec terms(String name, JsonNode def, AggSpec[] subs, JsonNode meta) {
      String type = "terms";
      allowOnly(name, type, def, TERMS_PARAMS);
      Source source = source(name, type, def, true, true);
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

    private AggSpec range(String name, String type, JsonNode def, AggSpec[] subs, JsonNode meta) {
      allowOnly(name, type, def, RANGE_PARAMS);
      refuseKeyed(name, type, def);
      Source source = source(name, type, def, false, true);
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
}
