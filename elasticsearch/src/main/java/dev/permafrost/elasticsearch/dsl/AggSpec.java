/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.DoubleTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.FilterBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.HistogramBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.LongTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.RangeBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.Stats;
import dev.permafrost.elasticsearch.dsl.AggPartial.StringTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.TermCounts;
import dev.permafrost.elasticsearch.dsl.Aggregator.Encoding;
import dev.permafrost.elasticsearch.dsl.Aggregator.FieldValues;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;

/**
 * One parsed aggregation: makes its {@link Aggregator} for each slice and renders the merged partial result as
 * Elasticsearch's response does.
 */
abstract class AggSpec {
  /** Elasticsearch's {@code search.max_buckets} default: more buckets in one response are refused. */
  static final int MAX_BUCKETS = 65_536;
  static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  final String name;
  final AggSpec[] subs;
  final JsonNode meta;

  AggSpec(String name, AggSpec[] subs, JsonNode meta) {
    this.name = name;
    this.subs = subs;
    this.meta = meta;
  }

  /** The type prefix of typed keys, e.g. {@code sterms}. */
  abstract String typeKey();

  /** A new aggregator for one slice; {@code topLevel} if it is not under a bucket aggregation. */
  abstract Aggregator create(boolean topLevel);

  /** Adds the doc-values fields this aggregation and its subs read. */
  abstract void fields(Set<String> out);

  /**
   * The response body of this aggregation from its merged partial, of this aggregation's kind ({@code null}: nothing
   * collected).
   */
  abstract ObjectNode render(AggPartial<?> partial, boolean typedKeys);

  final String key(boolean typedKeys) {
    return typedKeys ? typeKey() + "#" + name : name;
  }

  final Aggregator[] createSubs() {
    Aggregator[] out = new Aggregator[subs.length];
    for (int i = 0; i < subs.length; i++) {
      out[i] = subs[i].create(false);
    }
    return out;
  }

  final void subFields(Set<String> out) {
    for (AggSpec sub : subs) {
      sub.fields(out);
    }
  }

  /** A new response body, with {@code meta} first if the request had one. */
  final ObjectNode body() {
    ObjectNode node = JSON.objectNode();
    if (meta != null) {
      node.set("meta", meta);
    }
    return node;
  }

  /** {@code doc_count} and the sub-aggregations of {@code bucket} (null: an empty bucket) into {@code out}. */
  final void renderBucket(ObjectNode out, Bucket bucket, boolean typedKeys) {
    out.put("doc_count", bucket == null ? 0 : bucket.docCount);
    for (int i = 0; i < subs.length; i++) {
      out.set(subs[i].key(typedKeys), subs[i].render(bucket == null ? null : bucket.subs[i], typedKeys));
    }
  }

  /**
   * Stops one aggregation's buckets before they pass {@link #MAX_BUCKETS} (a guard while empty buckets are added: the
   * whole request's count is {@link Aggregations#countBuckets}'s).
   */
  static void checkBuckets(int count, String name) {
    if (count > MAX_BUCKETS) {
      throw DslException.tooManyBuckets(MAX_BUCKETS);
    }
  }

  /** A field an aggregation reads: its doc values' encoding and, for a date, its format. */
  record Source(String field, Encoding encoding, boolean date, boolean nanos, String format) {
    FieldValues values(boolean hasMissing, long missing) {
      return new FieldValues(field, encoding, nanos, hasMissing, missing);
    }
  }

  // ---- metrics --------------------------------------------------------------------------------------------------

  /** {@code min}, {@code max}, {@code avg}, {@code sum}, {@code value_count} and {@code stats}. */
  static final class MetricSpec extends AggSpec {
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
      return new Aggregator.Metric(source.values(hasMissing, missing));
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
      if (Double.isInfinite(v) || Double.isNaN(v)) {
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
      } else if (format.equals("boolean") && format.equals(source.format())) {
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

  // ---- histograms -----------------------------------------------------------------------------------------------

  /** {@code date_histogram} (a {@link DateRounding}) and {@code histogram} (an interval and offset). */
  static final class HistogramSpec extends AggSpec {
    final Source source;
    final DateRounding rounding;
    final double interval;
    final double offset;
    final long minDocCount;
    final Double boundsMin;
    final Double boundsMax;
    final boolean byCount;
    final boolean asc;
    final String format;
    final ZoneId zone;
    final boolean hasMissing;
    final long missing;

    HistogramSpec(String name, AggSpec[] subs, JsonNode meta, Source source, DateRounding rounding, double interval,
        double offset, long minDocCount, Double boundsMin, Double boundsMax, boolean byCount, boolean asc,
        String format, ZoneId zone, boolean hasMissing, long missing) {
      super(name, subs, meta);
      this.source = source;
      this.rounding = rounding;
      this.interval = interval;
      this.offset = offset;
      this.minDocCount = minDocCount;
      this.boundsMin = boundsMin;
      this.boundsMax = boundsMax;
      this.byCount = byCount;
      this.asc = asc;
      this.format = format;
      this.zone = zone;
      this.hasMissing = hasMissing;
      this.missing = missing;
    }

    @Override
    String typeKey() {
      return rounding != null ? "date_histogram" : "histogram";
    }

    @Override
    Aggregator create(boolean topLevel) {
      return new Aggregator.Histogram(source.values(hasMissing, missing), rounding, interval, offset, createSubs());
    }

    @Override
    void fields(Set<String> out) {
      if (source.field() != null) {
        out.add(source.field());
      }
      subFields(out);
    }

    /** The partial key (a date key, or a numeric bucket index) of the bucket holding {@code value}. */
    private long keyOf(double value) {
      return rounding != null ? rounding.round((long) value) : (long) Math.floor((value - offset) / interval);
    }

    private long next(long key) {
      return rounding != null ? rounding.next(key) : key + 1;
    }

    @Override
    ObjectNode render(AggPartial<?> partial, boolean typedKeys) {
      TreeMap<Long, Bucket> sorted = new TreeMap<>();
      if (partial != null) {
        sorted.putAll(((HistogramBuckets) partial).map);
      }
      List<Map.Entry<Long, Bucket>> buckets = new ArrayList<>();
      if (minDocCount == 0) {
        Long lo = sorted.isEmpty() ? null : sorted.firstKey();
        Long hi = sorted.isEmpty() ? null : sorted.lastKey();
        if (boundsMin != null) {
          long b = keyOf(boundsMin);
          lo = lo == null ? b : Math.min(lo, b);
          hi = hi == null ? b : Math.max(hi, b);
        }
        if (boundsMax != null) {
          long b = keyOf(boundsMax);
          lo = lo == null ? b : Math.min(lo, b);
          hi = hi == null ? b : Math.max(hi, b);
        }
        if (lo != null) {
          long k = lo;
          for (Map.Entry<Long, Bucket> e : sorted.entrySet()) {
            for (; k < e.getKey(); k = next(k)) {
              buckets.add(Map.entry(k, Bucket.empty(subs.length)));
              checkBuckets(buckets.size(), name);
            }
            buckets.add(e);
            k = next(e.getKey());
          }
          for (; k <= hi; k = next(k)) {
            buckets.add(Map.entry(k, Bucket.empty(subs.length)));
            checkBuckets(buckets.size(), name);
          }
        }
      } else {
        for (Map.Entry<Long, Bucket> e : sorted.entrySet()) {
          if (e.getValue().docCount >= minDocCount) {
            buckets.add(e);
          }
        }
      }
      checkBuckets(buckets.size(), name);
      Comparator<Map.Entry<Long, Bucket>> order = Map.Entry.comparingByKey();
      if (byCount) {
        Comparator<Map.Entry<Long, Bucket>> counts = Comparator.comparingLong(e -> e.getValue().docCount);
        order = (asc ? counts : counts.reversed()).thenComparing(order);
      } else if (!asc) {
        order = order.reversed();
      }
      buckets.sort(order);
      ArrayNode array = JSON.arrayNode();
      for (Map.Entry<Long, Bucket> e : buckets) {
        ObjectNode b = array.addObject();
        if (rounding != null) {
          b.put("key_as_string", DateFormats.format(e.getKey(), format, zone));
          b.put("key", e.getKey());
        } else {
          double key = e.getKey() * interval + offset;
          if (format != null) {
            b.put("key_as_string", new DecimalFormat(format, DecimalFormatSymbols.getInstance(Locale.ROOT))
                .format(key));
          }
          b.put("key", key);
        }
        renderBucket(b, e.getValue(), typedKeys);
      }
      ObjectNode out = body();
      out.set("buckets", array);
      return out;
    }
  }

  // ---- terms ----------------------------------------------------------------------------------------------------

  /** One criterion of a terms order: {@code _count}, {@code _key}, or a sub-aggregation's metric. */
  record TermsOrder(String by, boolean asc, int sub, String stat) {}

  /** {@code terms} over a keyword, numeric or date field. */
  static final class TermsSpec extends AggSpec {
    final Source source;
    final int size;
    final long minDocCount;
    final List<TermsOrder> order;
    final boolean hasMissing;
    final long missing;
    final BytesRef missingTerm;
    final String format;

    TermsSpec(String name, AggSpec[] subs, JsonNode meta, Source source, int size, long minDocCount,
        List<TermsOrder> order, boolean hasMissing, long missing, BytesRef missingTerm, String format) {
      super(name, subs, meta);
      this.source = source;
      this.size = size;
      this.minDocCount = minDocCount;
      this.order = order;
      this.hasMissing = hasMissing;
      this.missing = missing;
      this.missingTerm = missingTerm;
      this.format = format;
    }

    @Override
    String typeKey() {
      return switch (source.encoding()) {
        case ORDINALS -> "sterms";
        case LONG -> "lterms";
        default -> "dterms";
      };
    }

    @Override
    Aggregator create(boolean topLevel) {
      FieldValues values = source.values(hasMissing, missing);
      return source.encoding() == Encoding.ORDINALS
          ? new Aggregator.KeywordTerms(values, missingTerm, topLevel, minDocCount == 0, createSubs())
          : Aggregator.NumericTerms.of(values, minDocCount == 0, createSubs());
    }

    @Override
    void fields(Set<String> out) {
      if (source.field() != null) {
        out.add(source.field());
      }
      subFields(out);
    }

    private <K extends Comparable<K>> Comparator<Map.Entry<K, Bucket>> comparator() {
      Comparator<Map.Entry<K, Bucket>> c = null;
      for (TermsOrder o : order) {
        Comparator<Map.Entry<K, Bucket>> next = switch (o.by()) {
          case "_count" -> Comparator.comparingLong(e -> e.getValue().docCount);
          case "_key" -> Map.Entry.comparingByKey();
          default -> Comparator.comparingDouble(
              e -> MetricSpec.value((Stats) e.getValue().subs[o.sub()], o.stat()));
        };
        if (!o.asc()) {
          next = next.reversed();
        }
        c = c == null ? next : c.thenComparing(next);
      }
      Comparator<Map.Entry<K, Bucket>> byKey = Map.Entry.comparingByKey();
      return c == null ? byKey : c.thenComparing(byKey);
    }

    /** A term and its count over every segment. */
    private record Counted(BytesRef term, long count) {}

    /** One segment's run of terms (in term order) and counts, at its current term. */
    private static final class Run implements Comparable<Run> {
      final BytesRef[] terms;
      final long[] counts;
      int at;

      Run(BytesRef[] terms, long[] counts) {
        this.terms = terms;
        this.counts = counts;
      }

      BytesRef term() {
        return terms[at];
      }

      @Override
      public int compareTo(Run other) {
        return terms[at].compareTo(other.terms[other.at]);
      }
    }

    /**
     * The counted terms' buckets: the segments' runs merged term by term (each in term order), the best {@code size}
     * kept in a bounded queue as they come and only those made strings, the others summed into
     * {@code sum_other_doc_count}.
     */
    private ObjectNode renderCounts(TermCounts counts) {
      Comparator<Counted> better = (a, b) -> {
        for (TermsOrder o : order) {
          int c = o.by().equals("_count") ? Long.compare(a.count(), b.count()) : a.term().compareTo(b.term());
          if (c != 0) {
            return o.asc() ? c : -c;
          }
        }
        return a.term().compareTo(b.term());
      };
      PriorityQueue<Counted> best = new PriorityQueue<>(Math.max(1, size), better.reversed()); // the worst on top
      boolean byCountDescending = !order.isEmpty() && order.getFirst().by().equals("_count") && !order.getFirst().asc();
      // each run at its current term, the smallest first
      PriorityQueue<Run> runs = new PriorityQueue<>(Math.max(1, counts.terms.size()));
      for (int r = 0; r < counts.terms.size(); r++) {
        runs.add(new Run(counts.terms.get(r), counts.counts.get(r)));
      }
      long total = 0;
      while (!runs.isEmpty()) {
        Run run = runs.poll();
        BytesRef term = run.term();
        long count = 0;
        for (;;) {
          count += run.counts[run.at];
          if (++run.at < run.terms.length) {
            runs.add(run);
          }
          if (runs.isEmpty() || !runs.peek().term().bytesEquals(term)) {
            break;
          }
          run = runs.poll();
        }
        if (count < minDocCount) {
          continue;
        }
        total += count;
        if (best.size() < size) {
          best.add(new Counted(term, count));
        } else if (!(byCountDescending && count < best.peek().count())) { // most terms cannot enter: no object made
          Counted c = new Counted(term, count);
          if (better.compare(c, best.peek()) < 0) {
            best.poll();
            best.add(c);
          }
        }
      }
      List<Counted> shown = new ArrayList<>(best);
      shown.sort(better);
      long inBuckets = 0;
      ObjectNode out = body();
      out.put("doc_count_error_upper_bound", 0);
      ArrayNode array = JSON.arrayNode();
      for (Counted c : shown) {
        ObjectNode b = array.addObject();
        b.put("key", c.term().utf8ToString());
        b.put("doc_count", c.count());
        inBuckets += c.count();
      }
      out.put("sum_other_doc_count", total - inBuckets);
      out.set("buckets", array);
      return out;
    }

    @Override
    ObjectNode render(AggPartial<?> partial, boolean typedKeys) {
      return switch (partial) {
        case null -> renderBuckets(Map.<String, Bucket>of(), (b, key) -> { }, typedKeys);
        case TermCounts counts -> renderCounts(counts);
        case StringTerms terms -> renderBuckets(terms.map, (b, key) -> b.put("key", key), typedKeys);
        case DoubleTerms terms -> renderBuckets(terms.map, (b, key) -> b.put("key", key), typedKeys);
        case LongTerms terms -> renderBuckets(terms.map, (b, key) -> {
          b.put("key", key);
          if (source.date()) {
            b.put("key_as_string", DateFormats.format(key, format, ZoneId.of("Z")));
          } else if ("boolean".equals(format)) {
            b.put("key_as_string", key != 0 ? "true" : "false");
          }
        }, typedKeys);
        default -> throw new AssertionError("not a terms partial: " + partial);
      };
    }

    private <K extends Comparable<K>> ObjectNode renderBuckets(Map<K, Bucket> map, BiConsumer<ObjectNode, K> putKey,
        boolean typedKeys) {
      List<Map.Entry<K, Bucket>> buckets = new ArrayList<>();
      for (Map.Entry<K, Bucket> e : map.entrySet()) {
        if (e.getValue().docCount >= minDocCount) {
          buckets.add(e);
        }
      }
      buckets.sort(comparator());
      long other = 0;
      for (int i = size; i < buckets.size(); i++) {
        other += buckets.get(i).getValue().docCount;
      }
      ObjectNode out = body();
      out.put("doc_count_error_upper_bound", 0);
      out.put("sum_other_doc_count", other);
      ArrayNode array = out.putArray("buckets");
      for (int i = 0; i < Math.min(size, buckets.size()); i++) {
        Map.Entry<K, Bucket> e = buckets.get(i);
        ObjectNode b = array.addObject();
        putKey.accept(b, e.getKey());
        renderBucket(b, e.getValue(), typedKeys);
      }
      return out;
    }
  }

  // ---- ranges ---------------------------------------------------------------------------------------------------

  /** {@code range} and {@code date_range}: ranges sorted by from, then to. */
  static final class RangeSpec extends AggSpec {
    final Source source;
    final String[] keys;
    final double[] from;
    final double[] to;
    final String format;
    final ZoneId zone;
    final boolean hasMissing;
    final long missing;

    RangeSpec(String name, AggSpec[] subs, JsonNode meta, Source source, String[] keys, double[] from, double[] to,
        String format, ZoneId zone, boolean hasMissing, long missing) {
      super(name, subs, meta);
      this.source = source;
      this.keys = keys;
      this.from = from;
      this.to = to;
      this.format = format;
      this.zone = zone;
      this.hasMissing = hasMissing;
      this.missing = missing;
    }

    @Override
    String typeKey() {
      return source.date() ? "date_range" : "range";
    }

    @Override
    Aggregator create(boolean topLevel) {
      return new Aggregator.Range(source.values(hasMissing, missing), from, to, createSubs());
    }

    @Override
    void fields(Set<String> out) {
      if (source.field() != null) {
        out.add(source.field());
      }
      subFields(out);
    }

    private String asString(double bound) {
      return source.date() ? DateFormats.format((long) bound, format, zone) : Double.toString(bound);
    }

    @Override
    ObjectNode render(AggPartial<?> partial, boolean typedKeys) {
      Map<Integer, Bucket> map = partial == null ? Map.of() : ((RangeBuckets) partial).map;
      ObjectNode out = body();
      ArrayNode array = out.putArray("buckets");
      for (int r = 0; r < from.length; r++) {
        ObjectNode b = array.addObject();
        boolean hasFrom = from[r] != Double.NEGATIVE_INFINITY;
        boolean hasTo = to[r] != Double.POSITIVE_INFINITY;
        b.put("key", keys[r] != null ? keys[r]
            : (hasFrom ? asString(from[r]) : "*") + "-" + (hasTo ? asString(to[r]) : "*"));
        if (hasFrom) {
          b.put("from", from[r]);
          if (source.date()) {
            b.put("from_as_string", asString(from[r]));
          }
        }
        if (hasTo) {
          b.put("to", to[r]);
          if (source.date()) {
            b.put("to_as_string", asString(to[r]));
          }
        }
        renderBucket(b, map.get(r), typedKeys);
      }
      return out;
    }
  }

  // ---- filters --------------------------------------------------------------------------------------------------

  /** {@code filter} (one unnamed query, a single bucket) and {@code filters} (named or anonymous, maybe other). */
  static final class FiltersSpec extends AggSpec {
    final boolean single;
    final String[] names;
    final Query[] queries;
    final String otherKey;

    /** {@code names} null: the anonymous form; {@code otherKey} null: no other bucket. */
    FiltersSpec(String name, AggSpec[] subs, JsonNode meta, boolean single, String[] names, Query[] queries,
        String otherKey) {
      super(name, subs, meta);
      this.single = single;
      this.names = names;
      this.queries = queries;
      this.otherKey = otherKey;
    }

    @Override
    String typeKey() {
      return single ? "filter" : "filters";
    }

    @Override
    Aggregator create(boolean topLevel) {
      return new Aggregator.Filters(queries, otherKey != null, createSubs());
    }

    @Override
    void fields(Set<String> out) {
      subFields(out);
    }

    @Override
    ObjectNode render(AggPartial<?> partial, boolean typedKeys) {
      Map<Integer, Bucket> map = partial == null ? Map.of() : ((FilterBuckets) partial).map;
      ObjectNode out = body();
      if (single) {
        renderBucket(out, map.get(0), typedKeys);
        return out;
      }
      int n = queries.length + (otherKey != null ? 1 : 0);
      if (names == null) {
        ArrayNode array = out.putArray("buckets");
        for (int i = 0; i < n; i++) {
          renderBucket(array.addObject(), map.get(i), typedKeys);
        }
      } else {
        ObjectNode keyed = out.putObject("buckets");
        for (int i = 0; i < n; i++) {
          renderBucket(keyed.putObject(i < queries.length ? names[i] : otherKey), map.get(i), typedKeys);
        }
      }
      return out;
    }
  }
}
