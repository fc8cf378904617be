/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A search's {@code _source} option: the whole source ({@code true}, the default), none ({@code false}), or the fields
 * whose dotted paths match {@code includes} (an object matched brings its whole content) and not {@code excludes},
 * with {@code *} as a wildcard. Immutable.
 */
final class SourceFilter {
  static final SourceFilter ALL = new SourceFilter(true, List.of(), List.of());
  private final boolean fetch;
  private final List<Pattern> includes;
  private final List<Pattern> excludes;

  private SourceFilter(boolean fetch, List<Pattern> includes, List<Pattern> excludes) {
    this.fetch = fetch;
    this.includes = includes;
    this.excludes = excludes;
  }

  /**
   * The option as a request gives it: a boolean, a pattern, a list of patterns, or {@code {"includes": ...,
   * "excludes": ...}}.
   */
  static SourceFilter parse(JsonNode option) {
    if (option == null || option.isNull()) {
      return ALL;
    }
    if (option.isBoolean()) {
      return option.booleanValue() ? ALL : new SourceFilter(false, List.of(), List.of());
    }
    if (option.isTextual() || option.isArray()) {
      return new SourceFilter(true, patterns(option, "_source"), List.of());
    }
    if (option.isObject()) {
      List<Pattern> includes = List.of();
      List<Pattern> excludes = List.of();
      for (Map.Entry<String, JsonNode> e : option.properties()) {
        switch (e.getKey()) {
          case "includes", "include" -> includes = patterns(e.getValue(), "_source." + e.getKey());
          case "excludes", "exclude" -> excludes = patterns(e.getValue(), "_source." + e.getKey());
          default -> throw DslException.parsing("[_source] does not support [" + e.getKey() + "]: give [includes] and"
              + " [excludes]");
        }
      }
      return new SourceFilter(true, includes, excludes);
    }
    throw DslException.parsing("[_source] must be a boolean, a field pattern, a list of them or an object of"
        + " [includes] and [excludes], got " + option);
  }

  /** The option of the URL parameter {@code _source}: true, false or comma-separated patterns. */
  static SourceFilter parseParameter(String value) {
    if (value == null) {
      return ALL;
    }
    if (value.equals("true") || value.equals("false")) {
      return value.equals("true") ? ALL : new SourceFilter(false, List.of(), List.of());
    }
    List<Pattern> includes = new ArrayList<>();
    for (String p : value.split(",")) {
      includes.add(IndexExpression.glob(p.trim()));
    }
    return new SourceFilter(true, includes, List.of());
  }

  private static List<Pattern> patterns(JsonNode node, String where) {
    List<Pattern> patterns = new ArrayList<>();
    if (node.isTextual()) {
      patterns.add(IndexExpression.glob(node.textValue()));
    } else if (node.isArray()) {
      for (JsonNode p : node) {
        if (!p.isTextual()) {
          throw DslException.parsing("[" + where + "] holds a pattern that is not a string: " + p);
        }
        patterns.add(IndexExpression.glob(p.textValue()));
      }
    } else {
      throw DslException.parsing("[" + where + "] must be a pattern or a list of them, got " + node);
    }
    return patterns;
  }

  /** Whether any source is returned. */
  boolean fetches() {
    return fetch;
  }

  /** The source as this option returns it: the object itself when nothing is filtered, else a filtered copy. */
  JsonNode apply(ObjectNode source) {
    if (includes.isEmpty() && excludes.isEmpty()) {
      return source;
    }
    ObjectNode out = source.objectNode();
    copy(source, "", out, includes.isEmpty());
    return out;
  }

  /** Copies the fields of {@code from} under {@code prefix} that pass; {@code included}: an ancestor was included. */
  private void copy(ObjectNode from, String prefix, ObjectNode to, boolean included) {
    for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String path = prefix + e.getKey();
      if (matches(excludes, path)) {
        continue;
      }
      boolean in = included || matches(includes, path);
      JsonNode value = e.getValue();
      if (value.isObject()) {
        ObjectNode child = to.objectNode();
        copy((ObjectNode) value, path + ".", child, in);
        if (!child.isEmpty() || (in && value.isEmpty())) {
          to.set(e.getKey(), child);
        }
      } else if (value.isArray() && containsObjects(value)) {
        ArrayNode array = to.arrayNode();
        for (JsonNode element : value) {
          if (element.isObject()) {
            ObjectNode child = to.objectNode();
            copy((ObjectNode) element, path + ".", child, in);
            if (!child.isEmpty()) {
              array.add(child);
            }
          } else if (in) {
            array.add(element);
          }
        }
        if (!array.isEmpty()) {
          to.set(e.getKey(), array);
        }
      } else if (in) {
        to.set(e.getKey(), value);
      }
    }
  }

  private static boolean containsObjects(JsonNode array) {
    for (JsonNode element : array) {
      if (element.isObject()) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(List<Pattern> patterns, String path) {
    for (Pattern p : patterns) {
      if (p.matcher(path).matches()) {
        return true;
      }
    }
    return false;
  }
}
