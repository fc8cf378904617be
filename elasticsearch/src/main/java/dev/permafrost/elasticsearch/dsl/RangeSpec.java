/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.RangeBuckets;
import java.time.ZoneId;
import java.util.Map;
import java.util.Set;

/** {@code range} and {@code date_range}: ranges sorted by from, then to. */
final class RangeSpec extends AggSpec {
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
    return new RangeAggregator(source.values(hasMissing, missing), from, to, createSubs());
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
