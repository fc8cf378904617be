/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.FilterBuckets;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.search.Query;

/** {@code filter} (one unnamed query, a single bucket) and {@code filters} (named or anonymous, maybe other). */
final class FiltersSpec extends AggSpec {
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
    return new FiltersAggregator(queries, otherKey != null, createSubs());
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
