/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.search.Query;

/**
 * What a search adds to each hit besides its {@code _source}: {@code fields} and {@code docvalue_fields}
 * ({@link FieldsSpec}, read by {@link HitFields}) and {@code highlight} ({@link HighlightSpec}, written by
 * {@link HitHighlighter}); and what {@code stored_fields} takes away, as a 9.3.3 node does: given at all (names,
 * patterns, even {@code []}), the hit's {@code _source} unless the request asks for it; {@code _none_}, its
 * {@code _id} as well. Fields mapped with {@code "store": true} are not read: a request that names one is refused.
 *
 * @param fields the fields asked ({@link FieldsSpec#NONE}: none)
 * @param highlight the highlight asked (null: none)
 * @param storedFields whether the request gives {@code stored_fields}
 * @param showsId whether hits show their {@code _id} (not with {@code stored_fields: _none_})
 */
record HitShaping(FieldsSpec fields, HighlightSpec highlight, boolean storedFields, boolean showsId) {
  /** Nothing added. */
  static final HitShaping NONE = new HitShaping(FieldsSpec.NONE, null, false, true);

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
    JsonNode stored = request.get("stored_fields");
    boolean storedFields = stored != null && !stored.isNull();
    boolean showsId = true;
    if (storedFields) {
      List<String> names = new ArrayList<>();
      for (JsonNode n : stored.isArray() ? stored : List.of(stored)) {
        if (!n.isTextual()) {
          throw DslException.parsing("[stored_fields] must be a name or an array of names, got " + stored);
        }
        names.add(n.textValue());
      }
      if (names.contains("_none_")) {
        JsonNode source = request.get("_source");
        if (source != null && !(source.isBoolean() && !source.booleanValue())) {
          throw new DslException(400, "action_request_validation_exception",
              "Validation Failed: 1: [stored_fields] cannot be disabled if [_source] is requested;");
        }
        showsId = false;
      } else {
        for (IndexShards index : indices) {
          refuseStoredFields(names, index.mapping().json().get("properties"), "");
        }
      }
    }
    if (fields.isEmpty() && highlight == null && !storedFields) {
      return NONE;
    }
    if (fetchesHits) {
      for (IndexShards index : indices) {
        HitFields.check(fields, index.name(), index.mapping());
      }
    }
    return new HitShaping(fields, highlight, storedFields, showsId);
  }

  /**
   * Refuses {@code names} (names and {@code *} patterns of {@code stored_fields}) where one names a field of
   * {@code properties} (a mapping's, under path {@code prefix}) mapped with {@code "store": true}, whose stored values
   * the search does not read; metadata names ({@code _id}, {@code _routing}) are what a node shows anyway.
   */
  private static void refuseStoredFields(List<String> names, JsonNode properties, String prefix) {
    if (properties == null || !properties.isObject()) {
      return;
    }
    for (Map.Entry<String, JsonNode> e : properties.properties()) {
      String path = prefix + e.getKey();
      JsonNode field = e.getValue();
      if (field.path("store").asBoolean(false)) {
        for (String name : names) {
          if (!name.startsWith("_") && SourceFilter.glob(name, true).matcher(path).matches()) {
            throw DslException.illegalArgument("[stored_fields] [" + name + "] names [" + path + "], a field mapped"
                + " with \"store\": true, whose stored values Permafrost's Elasticsearch-compatible search does not"
                + " read: ask for it in [fields] or [docvalue_fields]");
          }
        }
      }
      refuseStoredFields(names, field.get("properties"), path + ".");
      refuseStoredFields(names, field.get("fields"), path + ".");
    }
  }
}
