/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.Aggregator.Encoding;
import dev.permafrost.elasticsearch.dsl.Aggregator.FieldValues;
import java.util.Set;

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
   * Whether this aggregation or one under it shows what no matching document holds (a terms aggregation's zero-count
   * buckets: every term of every shard's field), so that a shard the query matches nothing in still shapes its answer.
   */
  boolean showsUnmatched() {
    for (AggSpec sub : subs) {
      if (sub.showsUnmatched()) {
        return true;
      }
    }
    return false;
  }

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
    /** The format of a {@code boolean} field's values: printed as {@code true} and {@code false}. */
    static final String BOOLEAN_FORMAT = FieldKind.BOOLEAN.typeName();

    FieldValues values(boolean hasMissing, long missing) {
      return new FieldValues(field, encoding, nanos, hasMissing, missing);
    }
  }
}
