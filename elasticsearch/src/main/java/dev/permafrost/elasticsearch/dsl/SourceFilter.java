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
 * whose dotted paths match {@code includes} (an object matched brings its whole content) and not {@code excludes};
 * with {@code "exclude_vectors": false}, with the vectors of indexed {@code dense_vector} fields put back where the node
 * kept them out of the stored source ({@link #vectors}). Immutable.
 *
 * <p>The engines filter in one of two ways, as a node does (checked on Elasticsearch 9.3.3):
 * <ul>
 *   <li>No exclude has a wildcard: by path, as the node filters the source's bytes while parsing them. A {@code *}
 *       stands for any part of one name and never crosses a dot ({@code *name} matches {@code name} and
 *       {@code xname}, not {@code customer.name}; {@code *.name} matches {@code customer.name}), {@code **} for any
 *       depth. An object or array whose every member was filtered out is left out; one that was empty stays where it
 *       is included.
 *   <li>An exclude has a wildcard: over the source as a map, with patterns in which {@code *} matches any run of
 *       characters, dots too ({@code *name} excludes {@code customer.name}). An object or array whose every member
 *       was filtered out stays, empty ({@code customer.*} excluded leaves {@code "customer": {}}), where its own path
 *       is included (every path is when there are no includes); an empty object inside an array is left out.
 * </ul>
 */
final class SourceFilter {
  static final SourceFilter ALL = new SourceFilter(true, List.of(), List.of());
  /** No {@code _source} ({@code _source: false}). */
  static final SourceFilter NONE = new SourceFilter(false, List.of(), List.of());
  private final boolean fetch;
  /** {@code exclude_vectors: false}: the vectors a node keeps out of the stored source are put back. */
  private final boolean vectors;
  private final List<Pattern> includes;
  private final List<Pattern> excludes;
  /** Whether it filters as a map (an exclude has a wildcard), keeping what it empties where included. */
  private final boolean asMap;

  private SourceFilter(boolean fetch, List<String> includes, List<String> excludes) {
    this(fetch, includes, excludes, false);
  }

  private SourceFilter(boolean fetch, List<String> includes, List<String> excludes, boolean vectors) {
    this.fetch = fetch;
    this.vectors = vectors;
    this.asMap = excludes.stream().anyMatch(p -> p.indexOf('*') >= 0);
    this.includes = includes.stream().map(p -> glob(p, asMap)).toList();
    this.excludes = excludes.stream().map(p -> glob(p, asMap)).toList();
  }

  /**
   * A field pattern as a regular expression over a dotted path: {@code *} any characters ({@code anyDepth}), else
   * any characters but a dot, with {@code **} any characters.
   */
  static Pattern glob(String pattern, boolean anyDepth) {
    StringBuilder regex = new StringBuilder();
    int literal = 0;
    for (int i = 0; i < pattern.length(); i++) {
      if (pattern.charAt(i) != '*') {
        continue;
      }
      regex.append(Pattern.quote(pattern.substring(literal, i)));
      if (i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
        regex.append(".*");
        i++;
      } else {
        regex.append(anyDepth ? ".*" : "[^.]*");
      }
      literal = i + 1;
    }
    regex.append(Pattern.quote(pattern.substring(literal)));
    return Pattern.compile(regex.toString());
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
      return option.booleanValue() ? ALL : NONE;
    }
    if (option.isTextual() || option.isArray()) {
      return new SourceFilter(true, patterns(option, "_source"), List.of());
    }
    if (option.isObject()) {
      List<String> includes = List.of();
      List<String> excludes = List.of();
      boolean vectors = false;
      for (Map.Entry<String, JsonNode> e : option.properties()) {
        switch (e.getKey()) {
          case "includes", "include" -> includes = patterns(e.getValue(), "_source." + e.getKey());
          case "excludes", "exclude" -> excludes = patterns(e.getValue(), "_source." + e.getKey());
          case "exclude_vectors" -> {
            if (!e.getValue().isBoolean()) {
              throw DslException.parsing("[_source] [exclude_vectors] must be true or false, got " + e.getValue());
            }
            vectors = !e.getValue().booleanValue();
          }
          default -> throw DslException.parsing("[_source] does not support [" + e.getKey() + "]: give [includes],"
              + " [excludes] and [exclude_vectors]");
        }
      }
      return new SourceFilter(true, includes, excludes, vectors);
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
    List<String> includes = new ArrayList<>();
    for (String p : value.split(",")) {
      includes.add(p.trim());
    }
    return new SourceFilter(true, includes, List.of());
  }

  private static List<String> patterns(JsonNode node, String where) {
    List<String> patterns = new ArrayList<>();
    if (node.isTextual()) {
      patterns.add(node.textValue());
    } else if (node.isArray()) {
      for (JsonNode p : node) {
        if (!p.isTextual()) {
          throw DslException.parsing("[" + where + "] holds a pattern that is not a string: " + p);
        }
        patterns.add(p.textValue());
      }
    } else {
      throw DslException.parsing("[" + where + "] must be a pattern or a list of them, got " + node);
    }
    return patterns;
  }

  /**
   * Whether the vectors of indexed {@code dense_vector} fields that the node keeps out of the stored source are put
   * back ({@code "exclude_vectors": false}; by default they are left out, as Elasticsearch 9.1+ leaves them out).
   */
  boolean vectors() {
    return vectors;
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
        if (!child.isEmpty() || (in && (asMap || value.isEmpty()))) {
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
        if (!array.isEmpty() || (in && asMap)) {
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
