/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A search's {@code fields} (values read from each hit's {@code _source}, printed by the field's mapping) and
 * {@code docvalue_fields} (values read from the hit's doc values), as the body gives them: each entry a field name or
 * pattern ({@code user.*}), alone or as {@code {"field": ..., "format": ..., "include_unmapped": ...}}.
 * {@link HitFields} reads them for a hit.
 *
 * @param fields the {@code fields} entries (empty: none asked)
 * @param docValueFields the {@code docvalue_fields} entries (empty: none asked)
 */
record FieldsSpec(List<Entry> fields, List<Entry> docValueFields) {
  /** Nothing asked. */
  static final FieldsSpec NONE = new FieldsSpec(List.of(), List.of());
  private static final Set<String> ENTRY_KEYS = Set.of("field", "format", "include_unmapped");

  FieldsSpec {
    fields = List.copyOf(fields);
    docValueFields = List.copyOf(docValueFields);
  }

  /**
   * One entry.
   *
   * @param field the field's name, or a pattern with {@code *}
   * @param format the format its values are printed in (a date's, or a number's {@code DecimalFormat} pattern), or
   *     null for the mapping's
   * @param includeUnmapped whether fields of {@code _source} the mapping does not name are shown too ({@code fields}
   *     only)
   */
  record Entry(String field, String format, boolean includeUnmapped) {
    /** Whether {@code path} is the field this entry names, or one its pattern matches. */
    boolean matches(String path) {
      return field.indexOf('*') < 0 ? field.equals(path) : glob().matcher(path).matches();
    }

    boolean isPattern() {
      return field.indexOf('*') >= 0;
    }

    private Pattern glob() {
      return IndexExpression.glob(field);
    }
  }

  /** Whether nothing is asked. */
  boolean isEmpty() {
    return fields.isEmpty() && docValueFields.isEmpty();
  }

  /** The body's {@code fields} and {@code docvalue_fields} (either null: not given). */
  static FieldsSpec parse(JsonNode fields, JsonNode docValueFields) {
    if (fields == null && docValueFields == null) {
      return NONE;
    }
    return new FieldsSpec(entries(fields, "fields"), entries(docValueFields, "docvalue_fields"));
  }

  private static List<Entry> entries(JsonNode node, String key) {
    List<Entry> out = new ArrayList<>();
    if (node == null || node.isNull()) {
      return out;
    }
    if (!node.isArray()) {
      throw DslException.parsing("[" + key + "] must be an array of field names or {\"field\": ...} objects, got "
          + node);
    }
    for (JsonNode e : node) {
      if (e.isTextual()) {
        out.add(new Entry(e.textValue(), null, false));
      } else if (e.isObject()) {
        for (Map.Entry<String, JsonNode> p : e.properties()) {
          if (!ENTRY_KEYS.contains(p.getKey())) {
            throw new DslException(400, "x_content_parse_exception", "[" + key + "] unknown field [" + p.getKey()
                + "]");
          }
        }
        if (!e.path("field").isTextual()) {
          throw new DslException(400, "x_content_parse_exception", "Required [field] in an entry of [" + key + "]");
        }
        if (e.has("include_unmapped") && key.equals("docvalue_fields")) {
          throw new DslException(400, "x_content_parse_exception", "[docvalue_fields] unknown field"
              + " [include_unmapped]");
        }
        JsonNode format = e.get("format");
        out.add(new Entry(e.get("field").textValue(), format == null || format.isNull() ? null : format.asText(),
            e.path("include_unmapped").asBoolean(false) || e.path("include_unmapped").asText().equals("true")));
      } else {
        throw DslException.parsing("[" + key + "] entries must be field names or {\"field\": ...} objects, got " + e);
      }
    }
    return out;
  }
}
