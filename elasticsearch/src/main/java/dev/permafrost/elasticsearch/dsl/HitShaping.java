/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.Function;
import org.apache.lucene.search.Query;

/**
 * What a search adds to each hit besides its {@code _source}: {@code fields} and {@code docvalue_fields}
 * ({@link FieldsSpec}, read by {@link HitFields}) and {@code highlight} ({@link HighlightSpec}, written by
 * {@link HitHighlighter}).
 *
 * @param fields the fields asked ({@link FieldsSpec#NONE}: none)
 * @param highlight the highlight asked (null: none)
 */
record HitShaping(FieldsSpec fields, HighlightSpec highlight) {
  /** Nothing added. */
  static final HitShaping NONE = new HitShaping(FieldsSpec.NONE, null);

  /** Whether a hit's {@code _source} is read for it, shown or not. */
  boolean readsSource() {
    return !fields.fields().isEmpty() || highlight != null;
  }

  /**
   * The body's {@code fields}, {@code docvalue_fields} and {@code highlight}, checked (a {@code highlight_query}, parsed,
   * built by {@code toQuery}) and, where the node refuses them before it reads a hit, against each index's mapping.
   */
  static HitShaping parse(ObjectNode request, Function<QueryNode, Query> toQuery, List<IndexShards> indices,
      boolean fetchesHits) {
    FieldsSpec fields = FieldsSpec.parse(request.get("fields"), request.get("docvalue_fields"));
    JsonNode h = request.get("highlight");
    HighlightSpec highlight = h == null || h.isNull() ? null : HighlightSpec.parse(h, toQuery::apply);
    if (fields.isEmpty() && highlight == null) {
      return NONE;
    }
    if (fetchesHits) {
      for (IndexShards index : indices) {
        HitFields.check(fields, index.name(), index.mapping());
      }
    }
    return new HitShaping(fields, highlight);
  }
}
