/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Elasticsearch's {@code filter_path} parameter: which parts of a JSON answer are kept, applied to the answer once it
 * is rendered, whatever the endpoint. The rules are those a 9.3.3 node follows (each checked against one in
 * {@code FilterPathTest} and the service's differential test):
 *
 * <ul>
 *   <li>filters are comma-separated; each is a path of names separated by dots, matched against the answer's field
 *       names level by level, an array being no level of its own (a path through {@code hits.hits} reaches each
 *       hit); a field name with a dot in it ({@code docs.count}) is one name, which a path with a dot never
 *       matches;
 *   <li>{@code *} in a name matches any characters of one name ({@code _shards.*ed}); {@code **} matches one level
 *       or more ({@code **.total} is every {@code total} below the first level, never {@code took});
 *   <li>a filter that starts with {@code -} excludes what it matches; exclusions apply first, then the inclusions (so
 *       {@code took,-took} keeps nothing);
 *   <li>what an inclusion matches is kept whole, and an object or array is kept only with something kept in it; what
 *       an exclusion matches is removed, and an object or array that had something and lost all of it is removed
 *       too (one that was empty stays);
 *   <li>an answer of which nothing is kept is {@code {}}, or nothing at all where it is an array (the {@code _cat}
 *       APIs' JSON): {@link #apply} then returns null;
 *   <li>an empty filter is ignored, and a path with an empty name in it ({@code hits..total}) matches nothing.
 * </ul>
 *
 * <p>Error answers are not filtered (the node does not filter them either): callers apply it to answers only.
 * Immutable and thread-safe.
 */
public final class FilterPath {
  private static final String ANY_LEVELS = "**";
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final List<Path> inclusions;
  private final List<Path> exclusions;

  private FilterPath(List<Path> inclusions, List<Path> exclusions) {
    this.inclusions = List.copyOf(inclusions);
    this.exclusions = List.copyOf(exclusions);
  }

  /** The filter of a {@code filter_path} value; null or blank filters nothing. */
  public static FilterPath parse(String filterPath) {
    List<Path> inclusions = new ArrayList<>();
    List<Path> exclusions = new ArrayList<>();
    if (filterPath != null) {
      for (String filter : filterPath.split(",")) {
        String f = filter.trim();
        if (f.isEmpty()) {
          continue;
        }
        boolean exclude = f.startsWith("-");
        (exclude ? exclusions : inclusions).add(Path.of(exclude ? f.substring(1) : f));
      }
    }
    return new FilterPath(inclusions, exclusions);
  }

  /** The filter of a request's {@code filter_path} parameter ({@link #parse}; none if the parameter is absent). */
  public static FilterPath of(Map<String, String> parameters) {
    return parse(parameters.get("filter_path"));
  }

  /** Whether this filter keeps every answer whole. */
  public boolean isEmpty() {
    return inclusions.isEmpty() && exclusions.isEmpty();
  }

  /**
   * What the filter keeps of {@code answer} (an object or an array; never changed): the answer itself if the filter
   * is empty, {@code {}} for an object of which nothing is kept, null for an array of which nothing is kept (the
   * node then answers an empty body).
   */
  public JsonNode apply(JsonNode answer) {
    if (isEmpty()) {
      return answer;
    }
    JsonNode kept = answer;
    if (!exclusions.isEmpty()) {
      kept = exclude(kept, States.start(exclusions));
    }
    if (kept != null && !inclusions.isEmpty()) {
      kept = include(kept, States.start(inclusions));
    }
    if (kept == null) {
      return answer.isObject() ? NODES.objectNode() : null;
    }
    return kept;
  }

  /** What the inclusions in {@code at} keep of {@code node}, or null for nothing. */
  private static JsonNode include(JsonNode node, States at) {
    if (at.complete()) {
      return node;
    }
    if (node.isObject()) {
      ObjectNode out = NODES.objectNode();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        States next = at.advance(field.getKey());
        JsonNode kept = next.isEmpty() ? null : include(field.getValue(), next);
        if (kept != null) {
          out.set(field.getKey(), kept);
        }
      }
      return out.isEmpty() ? null : out;
    }
    if (node.isArray()) {
      ArrayNode out = NODES.arrayNode();
      for (JsonNode element : node) {
        JsonNode kept = include(element, at);
        if (kept != null) {
          out.add(kept);
        }
      }
      return out.isEmpty() ? null : out;
    }
    return null; // a value the path would have to go through
  }

  /** What is left of {@code node} once the exclusions in {@code at} have removed what they match, or null. */
  private static JsonNode exclude(JsonNode node, States at) {
    if (at.complete()) {
      return null;
    }
    if (node.isObject() && !node.isEmpty()) {
      ObjectNode out = NODES.objectNode();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        States next = at.advance(field.getKey());
        JsonNode kept = next.isEmpty() ? field.getValue() : exclude(field.getValue(), next);
        if (kept != null) {
          out.set(field.getKey(), kept);
        }
      }
      return out.isEmpty() ? null : out;
    }
    if (node.isArray() && !node.isEmpty()) {
      ArrayNode out = NODES.arrayNode();
      for (JsonNode element : node) {
        JsonNode kept = exclude(element, at);
        if (kept != null) {
          out.add(kept);
        }
      }
      return out.isEmpty() ? null : out;
    }
    return node;
  }

  /** One filter's path: its names, each a pattern of one name or {@link #ANY_LEVELS}. */
  private record Path(List<String> names, List<Pattern> patterns) {
    static Path of(String filter) {
      List<String> names = List.of(filter.split("\\.", -1));
      List<Pattern> patterns = new ArrayList<>(names.size());
      for (String name : names) {
        patterns.add(name.equals(ANY_LEVELS) ? null : IndexExpression.glob(name));
      }
      return new Path(names, patterns);
    }

    int length() {
      return names.size();
    }

    boolean anyLevels(int at) {
      return patterns.get(at) == null;
    }

    boolean matches(int at, String name) {
      return patterns.get(at) == null || patterns.get(at).matcher(name).matches();
    }
  }

  /**
   * Where the filters stand at one level of the answer: for each filter that still may match below, the positions in
   * its path reached so far ({@code positions[i]} a bit set of filter {@code i}'s positions; a filter's length means
   * it matched whole).
   */
  private static final class States {
    private final List<Path> paths;
    private final long[][] positions;
    private final boolean complete;
    private final boolean empty;

    private States(List<Path> paths, long[][] positions) {
      this.paths = paths;
      this.positions = positions;
      boolean complete = false;
      boolean empty = true;
      for (int i = 0; i < paths.size(); i++) {
        empty &= isZero(positions[i]);
        complete |= get(positions[i], paths.get(i).length());
      }
      this.complete = complete;
      this.empty = empty;
    }

    static States start(List<Path> paths) {
      long[][] positions = new long[paths.size()][];
      for (int i = 0; i < paths.size(); i++) {
        positions[i] = new long[paths.get(i).length() / 64 + 1];
        set(positions[i], 0);
      }
      return new States(paths, positions);
    }

    /** Some filter matched whole here. */
    boolean complete() {
      return complete;
    }

    /** No filter can match here or below. */
    boolean isEmpty() {
      return empty;
    }

    /** The states one level down, through a field named {@code name}. */
    States advance(String name) {
      long[][] next = new long[paths.size()][];
      for (int i = 0; i < paths.size(); i++) {
        Path path = paths.get(i);
        next[i] = new long[positions[i].length];
        for (int at = 0; at < path.length(); at++) {
          if (!get(positions[i], at) || !path.matches(at, name)) {
            continue;
          }
          set(next[i], at + 1); // this name matched the path's name at `at`
          if (path.anyLevels(at)) {
            set(next[i], at); // ** matches one level or more: it may go on matching below
          }
        }
      }
      return new States(paths, next);
    }

    private static boolean get(long[] bits, int i) {
      return (bits[i >>> 6] & (1L << i)) != 0;
    }

    private static void set(long[] bits, int i) {
      bits[i >>> 6] |= 1L << i;
    }

    private static boolean isZero(long[] bits) {
      for (long b : bits) {
        if (b != 0) {
          return false;
        }
      }
      return true;
    }
  }
}
