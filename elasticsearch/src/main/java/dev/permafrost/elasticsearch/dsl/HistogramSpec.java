/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.HistogramBuckets;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** {@code date_histogram} (a {@link DateRounding}) and {@code histogram} (an interval and offset). */
final class HistogramSpec extends AggSpec {
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
    return new HistogramAggregator(source.values(hasMissing, missing), rounding, interval, offset, createSubs());
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
