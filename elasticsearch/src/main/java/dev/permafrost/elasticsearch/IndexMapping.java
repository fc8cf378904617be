/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An index's mapping as its snapshot recorded it: each field by its full dotted path (objects flattened,
 * multi-fields as {@code field.sub}), with its type and {@link FieldKind kind}, the analyzers of a {@code text} field and whether it lies inside
 * a {@code nested} object.
 */
public final class IndexMapping {
  /**
   * One mapped field.
   *
   * @param path the full dotted path, e.g. {@code user.name} or {@code message.raw}
   * @param type the mapping type as the mapping names it, e.g. {@code keyword}, {@code text}, {@code long},
   *     {@code date}: for messages and for what shows the mapping; ask {@code kind} what it means
   * @param kind the kind {@code type} names ({@link FieldKind#of}), {@link FieldKind#UNKNOWN} for a name Permafrost
   *     does not read
   * @param analyzer the analyzer a {@code text} field is indexed with ({@code standard} unless the mapping names one)
   * @param searchAnalyzer the analyzer queries on it use (its {@code search_analyzer}, else {@code analyzer})
   * @param nestedPath the path of the innermost {@code nested} object holding it, or null
   * @param format the {@code format} of a {@code date} or {@code date_nanos} field as the mapping gives it (the engines'
   *     default {@code strict_date_optional_time||epoch_millis} if it gives none), else null
   * @param indexed whether it is searchable from an index of its own ({@code "index": false} makes it not)
   * @param docValues whether it keeps doc values ({@code "doc_values": false} makes it not; {@code text} never does)
   */
  public record Field(String path, String type, FieldKind kind, String analyzer, String searchAnalyzer,
      String nestedPath, String format, boolean indexed, boolean docValues) {
    /** The engines' date format when a mapping names none. */
    public static final String DEFAULT_DATE_FORMAT = "strict_date_optional_time||epoch_millis";

    public Field {
      Objects.requireNonNull(type, "type");
      if (kind != FieldKind.of(type)) {
        throw new IllegalArgumentException("field '" + path + "' of type '" + type + "' is of kind "
            + FieldKind.of(type) + ", not " + kind);
      }
    }

    /** Whether it is a {@code date} or {@code date_nanos} field. */
    public boolean isDate() {
      return kind.isDate();
    }
  }

  private final Map<String, Field> fields;
  /** The indexed {@code dense_vector} fields (indexed is the default since Elasticsearch 8.11). */
  private final Set<String> indexedVectors;
  /** The mapping as given: {@code {"properties": ...}}. */
  private final JsonNode json;
  /** Fields mapped with different types by the indices of a union, with their types. */
  private final Map<String, Set<String>> conflicts;

  private IndexMapping(Map<String, Field> fields, Set<String> indexedVectors, JsonNode json) {
    this(fields, indexedVectors, json, Map.of());
  }

  private IndexMapping(Map<String, Field> fields, Set<String> indexedVectors, JsonNode json,
      Map<String, Set<String>> conflicts) {
    this.conflicts = Collections.unmodifiableMap(conflicts);
    this.fields = Collections.unmodifiableMap(fields);
    this.indexedVectors = Collections.unmodifiableSet(indexedVectors);
    this.json = json;
  }

  /**
   * Reads a mapping: {@code {"properties": ...}}, or the same under one type name as older engines wrote it
   * ({@code {"_doc": {"properties": ...}}}).
   */
  public static IndexMapping of(JsonNode mapping) {
    Map<String, Field> fields = new LinkedHashMap<>();
    Set<String> indexedVectors = new LinkedHashSet<>();
    JsonNode root = mapping;
    if (root != null && !root.has("properties") && root.size() == 1 && root.elements().next().isObject()) {
      root = root.elements().next(); // a single type
    }
    if (root != null && root.has("properties")) {
      addProperties(root.get("properties"), "", null, fields, indexedVectors);
    }
    return new IndexMapping(fields, indexedVectors,
        root != null && root.isObject() ? root.deepCopy() : JsonNodeFactory.instance.objectNode());
  }

  /**
   * Reads a mapping declared as JSON text: an index body ({@code {"mappings": {...}, "settings": ...}}) or the
   * mapping alone, as {@link #of} takes it.
   *
   * @throws IllegalArgumentException if the text is not a JSON object
   */
  public static IndexMapping declared(String json) {
    JsonNode mapping;
    try {
      mapping = new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("a mapping must be JSON: " + e.getMessage(), e);
    }
    if (mapping == null || !mapping.isObject()) {
      throw new IllegalArgumentException("a mapping must be a JSON object, got " + mapping);
    }
    return of(mapping.has("mappings") ? mapping.get("mappings") : mapping);
  }

  /**
   * The mapping a search over several indices sees: every field of each, in order, a field mapped differently by two
   * of them as the first maps it and named in {@link #conflicts()}. Each index is still queried by its own mapping;
   * only what must see all indices alike (a sort, an aggregation) asks the union, and refuses a field in conflict.
   */
  public static IndexMapping union(List<IndexMapping> mappings) {
    if (mappings.size() == 1) {
      return mappings.getFirst();
    }
    Map<String, Field> fields = new LinkedHashMap<>();
    Set<String> indexedVectors = new LinkedHashSet<>();
    Map<String, Set<String>> conflicts = new LinkedHashMap<>();
    ObjectNode properties = JsonNodeFactory.instance.objectNode();
    for (IndexMapping m : mappings) {
      for (Field f : m.fields.values()) {
        Field before = fields.putIfAbsent(f.path(), f);
        if (before != null && !before.type().equals(f.type())) {
          conflicts.computeIfAbsent(f.path(), k -> new LinkedHashSet<>(List.of(before.type()))).add(f.type());
        }
      }
      indexedVectors.addAll(m.indexedVectors);
      if (m.json.get("properties") instanceof ObjectNode p) {
        p.properties().forEach(e -> properties.putIfAbsent(e.getKey(), e.getValue()));
      }
    }
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.set("properties", properties);
    return new IndexMapping(fields, indexedVectors, json, conflicts);
  }

  /**
   * The fields this union of mappings holds with different types in different indices, each with its types in the
   * order the indices give them; empty for one index's mapping.
   */
  public Map<String, Set<String>> conflicts() {
    return conflicts;
  }

  /** The mapping as the snapshot (or the declaration) gave it, {@code {"properties": ...}}: do not change it. */
  public JsonNode json() {
    return json;
  }

  private static void addProperties(JsonNode properties, String prefix, String nested, Map<String, Field> fields,
      Set<String> indexedVectors) {
    for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String path = prefix + e.getKey();
      JsonNode def = e.getValue();
      String type = typeName(def);
      if (def.has("properties")) {
        addProperties(def.get("properties"), path + ".", FieldKind.of(type) == FieldKind.NESTED ? path : nested, fields,
            indexedVectors);
        continue;
      }
      fields.put(path, field(path, type, def, nested));
      if (FieldKind.of(type) == FieldKind.DENSE_VECTOR && def.path("index").asBoolean(true)) {
        indexedVectors.add(path);
      }
      JsonNode multi = def.get("fields");
      if (multi != null) {
        for (Iterator<Map.Entry<String, JsonNode>> m = multi.fields(); m.hasNext(); ) {
          Map.Entry<String, JsonNode> sub = m.next();
          String subPath = path + "." + sub.getKey();
          fields.put(subPath, field(subPath, typeName(sub.getValue()), sub.getValue(), nested));
        }
      }
    }
  }

  /** The type a field's definition names, {@code object} (the engines' default) if it names none. */
  private static String typeName(JsonNode def) {
    JsonNode type = def.get("type");
    return type == null || type.isNull() ? FieldKind.OBJECT.typeName() : type.asText();
  }

  private static Field field(String path, String type, JsonNode def, String nested) {
    FieldKind kind = FieldKind.of(type);
    String analyzer = null;
    String searchAnalyzer = null;
    if (kind.isText()) {
      analyzer = def.path("analyzer").asText("standard");
      searchAnalyzer = def.path("search_analyzer").asText(analyzer);
    }
    String format = kind.isDate() ? def.path("format").asText(Field.DEFAULT_DATE_FORMAT) : null;
    return new Field(path, type, kind, analyzer, searchAnalyzer, nested, format, def.path("index").asBoolean(true),
        kind.hasDocValuesByDefault() && def.path("doc_values").asBoolean(true));
  }

  /** The indexed {@code dense_vector} fields, whose vectors Elasticsearch writes in formats of its own. */
  Set<String> indexedVectorFields() {
    return indexedVectors;
  }

  /** Every mapped field, by path, in mapping order. */
  public Map<String, Field> fields() {
    return fields;
  }

  /** The field at {@code path}, or null if the mapping has none. */
  public Field field(String path) {
    return fields.get(path);
  }

  @Override
  public String toString() {
    return "IndexMapping" + fields.values();
  }
}
