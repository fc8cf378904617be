/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A search's {@code highlight}, as the unified highlighter (the node's default) reads it: the fields to highlight
 * (names or patterns, in order) with their options, each option of a field overriding the request's. What the node's
 * other highlighters or options ask ({@code type: plain}, {@code fvh}, {@code no_match_size}, {@code tags_schema},
 * ...) is refused by name; a key the node does not know is refused as its parser refuses it. {@link HitHighlighter}
 * highlights a hit.
 *
 * @param fields each field entry, in the order the request gives them
 */
record HighlightSpec(List<Field> fields) {
  /** A field's fragments are at most this long (then cut at a sentence or word boundary), unless it says. */
  static final int DEFAULT_FRAGMENT_SIZE = 100;
  /** At most this many fragments a field, unless it says; 0: the whole value. */
  static final int DEFAULT_NUMBER_OF_FRAGMENTS = 5;
  private static final Set<String> OPTIONS = Set.of("pre_tags", "post_tags", "fragment_size", "number_of_fragments",
      "require_field_match", "highlight_query", "order", "encoder", "type", "boundary_scanner", "no_match_size",
      "tags_schema", "max_analyzed_offset", "fragmenter", "phrase_limit", "boundary_chars", "boundary_max_scan",
      "boundary_scanner_locale", "force_source", "highlight_filter", "options", "matched_fields", "fragment_offset");

  HighlightSpec {
    fields = List.copyOf(fields);
  }

  /**
   * One field entry with its options as they apply to it (the request's, overridden by the field's own).
   *
   * @param pattern the field's name, or a pattern with {@code *}
   * @param fragmentSize the most characters in a fragment ({@code 0}: whole sentences, never cut)
   * @param numberOfFragments the most fragments ({@code 0}: each matching value whole)
   * @param preTag what is written before each match
   * @param postTag what is written after each match
   * @param requireFieldMatch whether only the query's clauses on this field highlight it
   * @param highlightQuery the query that highlights instead of the search's, as parsed (null: the search's), built
   *     for each hit's index by its mapping
   * @param byScore whether fragments are ordered by score ({@code order: score}) rather than by where they are
   * @param html whether the text is HTML-escaped ({@code encoder: html})
   */
  record Field(String pattern, int fragmentSize, int numberOfFragments, String preTag, String postTag,
      boolean requireFieldMatch, QueryNode highlightQuery, boolean byScore, boolean html) {
    boolean matches(String path) {
      return pattern.indexOf('*') < 0 ? pattern.equals(path) : IndexExpression.glob(pattern).matcher(path).matches();
    }
  }

  /**
   * The body's {@code highlight}.
   *
   * @param checkQuery checks a {@code highlight_query}, parsed, against the indices (throws what they refuse)
   * @throws DslException (400) where a {@code highlight_query} is malformed, as the query DSL names it
   */
  static HighlightSpec parse(JsonNode highlight, Consumer<QueryNode> checkQuery) {
    if (!highlight.isObject()) {
      throw new DslException(400, "x_content_parse_exception", "[highlight] must be an object, got " + highlight);
    }
    Field defaults = options(new Field("*", DEFAULT_FRAGMENT_SIZE, DEFAULT_NUMBER_OF_FRAGMENTS, "<em>", "</em>", true,
        null, false, false), highlight, "highlight", checkQuery);
    JsonNode fields = highlight.get("fields");
    List<Field> out = new ArrayList<>();
    if (fields == null || fields.isNull()) {
      return new HighlightSpec(out);
    }
    if (fields.isObject()) {
      for (Map.Entry<String, JsonNode> f : fields.properties()) {
        out.add(field(defaults, f.getKey(), f.getValue(), checkQuery));
      }
    } else if (fields.isArray()) {
      for (JsonNode e : fields) {
        if (!e.isObject() || e.size() != 1) {
          throw new DslException(400, "x_content_parse_exception", "[fields] can be a single object with any number"
              + " of fields or an array where each entry is an object with a single field");
        }
        Map.Entry<String, JsonNode> f = e.properties().iterator().next();
        out.add(field(defaults, f.getKey(), f.getValue(), checkQuery));
      }
    } else {
      throw new DslException(400, "x_content_parse_exception", "[fields] can be a single object with any number"
          + " of fields or an array where each entry is an object with a single field");
    }
    return new HighlightSpec(out);
  }

  private static Field field(Field defaults, String name, JsonNode options, Consumer<QueryNode> checkQuery) {
    if (!options.isObject()) {
      throw new DslException(400, "x_content_parse_exception", "[highlight_field] the options of field [" + name
          + "] must be an object, got " + options);
    }
    Field base = new Field(name, defaults.fragmentSize, defaults.numberOfFragments, defaults.preTag,
        defaults.postTag, defaults.requireFieldMatch, defaults.highlightQuery, defaults.byScore, defaults.html);
    return options(base, options, "highlight_field", checkQuery);
  }

  /** {@code base} with the options {@code node} gives ({@code fields} aside). */
  private static Field options(Field base, JsonNode node, String where, Consumer<QueryNode> checkQuery) {
    int fragmentSize = base.fragmentSize;
    int fragments = base.numberOfFragments;
    String pre = base.preTag;
    String post = base.postTag;
    boolean requireFieldMatch = base.requireFieldMatch;
    QueryNode query = base.highlightQuery;
    boolean byScore = base.byScore;
    boolean html = base.html;
    for (Map.Entry<String, JsonNode> o : node.properties()) {
      String key = o.getKey();
      JsonNode v = o.getValue();
      if (key.equals("fields") && where.equals("highlight")) {
        continue;
      }
      if (!OPTIONS.contains(key)) {
        throw new DslException(400, "x_content_parse_exception", "[" + where + "] unknown field [" + key + "]");
      }
      switch (key) {
        case "fragment_size" -> fragmentSize = nonNegative(key, v);
        case "number_of_fragments" -> fragments = nonNegative(key, v);
        case "pre_tags" -> pre = firstTag(key, v);
        case "post_tags" -> post = firstTag(key, v);
        case "require_field_match" -> requireFieldMatch = v.asBoolean();
        case "highlight_query" -> {
          query = QueryDslParser.parse(v);
          checkQuery.accept(query);
        }
        case "order" -> {
          switch (v.asText()) {
            case "score" -> byScore = true;
            case "none" -> byScore = false;
            default -> throw DslException.illegalArgument("Unknown Order [" + v.asText() + "]");
          }
        }
        case "encoder" -> {
          switch (v.asText()) {
            case "html" -> html = true;
            case "default" -> html = false;
            default -> throw DslException.illegalArgument("Unknown encoder [" + v.asText() + "]");
          }
        }
        case "type" -> refuseUnless(key, v, "unified");
        case "boundary_scanner" -> refuseUnless(key, v, "sentence");
        case "no_match_size" -> refuseUnless(key, v, "0");
        case "force_source" -> { } // deprecated; every value is read from _source here
        default -> throw DslException.illegalArgument("[highlight] option [" + key + "] is not supported by"
            + " Permafrost's Elasticsearch-compatible search (the unified highlighter's defaults only)");
      }
    }
    return new Field(base.pattern, fragmentSize, fragments, pre, post, requireFieldMatch, query, byScore, html);
  }

  private static void refuseUnless(String key, JsonNode v, String supported) {
    if (!v.asText().equals(supported)) {
      throw DslException.illegalArgument("[highlight] " + key + " [" + v.asText() + "] is not supported by Permafrost's"
          + " Elasticsearch-compatible search: only [" + supported + "] (the unified highlighter's)");
    }
  }

  private static int nonNegative(String key, JsonNode v) {
    if (!v.canConvertToInt() && !(v.isTextual() && v.asText().matches("\\d+"))) {
      throw new DslException(400, "x_content_parse_exception", "[highlight] failed to parse field [" + key + "]: "
          + v + " is not an integer");
    }
    int n = v.isTextual() ? Integer.parseInt(v.asText()) : v.intValue();
    if (n < 0) {
      throw DslException.illegalArgument("[" + key + "] must be at least 0, got " + n);
    }
    return n;
  }

  private static String firstTag(String key, JsonNode v) {
    if (v.isTextual()) {
      return v.textValue();
    }
    if (!v.isArray() || v.isEmpty()) {
      throw new DslException(400, "x_content_parse_exception", "[highlight] [" + key + "] must be an array of"
          + " strings, got " + v);
    }
    return v.get(0).asText();
  }
}
