/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;

/**
 * One clause of Elasticsearch's query DSL as read from JSON, with its options typed: what a request's
 * {@code "query"} says, before any index's mapping is asked (then it is built into Lucene for each index). A
 * {@code boost} of 1 is none; a field's value stays as JSON typed it ({@link Value}), since what it may be depends on
 * the field's mapping.
 */
sealed interface QueryNode {

  /** {@code match_all}. */
  record MatchAll(float boost) implements QueryNode {}

  /** {@code match_none} (its boost is never read, as nothing it matches has a score). */
  record MatchNone() implements QueryNode {}

  /**
   * {@code bool}: its clauses by occurrence, in the order given.
   *
   * @param minimumShouldMatch an integer or percentage as given, checked when the optional clauses are counted (null:
   *     1 if only optional clauses, else 0)
   */
  record Bool(List<QueryNode> must, List<QueryNode> filter, List<QueryNode> should, List<QueryNode> mustNot,
      String minimumShouldMatch, float boost) implements QueryNode {
    public Bool {
      must = List.copyOf(must);
      filter = List.copyOf(filter);
      should = List.copyOf(should);
      mustNot = List.copyOf(mustNot);
    }
  }

  /** {@code constant_score}. */
  record ConstantScore(QueryNode filter, float boost) implements QueryNode {}

  /** {@code dis_max}, at least one query. */
  record DisMax(List<QueryNode> queries, float tieBreaker, float boost) implements QueryNode {
    public DisMax {
      assert !queries.isEmpty();
      queries = List.copyOf(queries);
    }
  }

  /**
   * A boost given beside the field of a single-field clause ({@code {"term": {"host": "a", "boost": 2}}}), applied
   * over the clause's own.
   */
  record Boosted(QueryNode query, float boost) implements QueryNode {}

  /** {@code term}: the value not analyzed. */
  record Term(String field, Value value, boolean caseInsensitive, float boost) implements QueryNode {}

  /** {@code terms}: any of the values (none: matches nothing, its boost not read). */
  record Terms(String field, List<Value> values, float boost) implements QueryNode {
    public Terms {
      values = List.copyOf(values);
    }
  }

  /**
   * {@code range} between two bounds (either null: unbounded).
   *
   * @param format how date bounds are written (null: the field's format)
   * @param timeZone the zone of date bounds without an offset (null: UTC)
   */
  record Range(String field, Bound lower, Bound upper, String format, ZoneId timeZone, float boost)
      implements QueryNode {}

  /** {@code exists}: a value in the field, or in any field under the object it names. */
  record Exists(String field, float boost) implements QueryNode {}

  /** {@code prefix}. */
  record Prefix(String field, String value, boolean caseInsensitive, float boost) implements QueryNode {}

  /** {@code wildcard} ({@code *} any characters, {@code ?} one, {@code \} escapes). */
  record Wildcard(String field, String pattern, boolean caseInsensitive, float boost) implements QueryNode {}

  /** {@code ids} (none: matches nothing, its boost not read). */
  record Ids(List<String> values, float boost) implements QueryNode {
    public Ids {
      values = List.copyOf(values);
    }
  }

  /**
   * {@code match}: a text field's analyzed terms, another field's term.
   *
   * @param minimumShouldMatch as given (null: none), checked when the optional terms are counted
   * @param lenient whether a value that is not a number or date of the field matches nothing rather than failing
   */
  record Match(String field, Value query, Operator operator, String minimumShouldMatch, boolean lenient,
      ZeroTerms zeroTerms, float boost) implements QueryNode {}

  /** {@code match_phrase}: a text field's analyzed terms in order, up to {@code slop} moves apart. */
  record MatchPhrase(String field, Value query, int slop, ZeroTerms zeroTerms, float boost) implements QueryNode {}

  /**
   * {@code multi_match} of type {@code best_fields}: a {@code match} on each field, the best of them.
   *
   * @param fields the fields (names or {@code *} patterns) with their boosts, in the order given
   */
  record MultiMatch(Value query, List<FieldWeight> fields, Operator operator, String minimumShouldMatch,
      boolean lenient, float tieBreaker, ZeroTerms zeroTerms, float boost) implements QueryNode {
    public MultiMatch {
      fields = List.copyOf(fields);
    }
  }

  /**
   * {@code query_string} (and a request's {@code q} parameter).
   *
   * @param query the query's text, trimmed
   * @param defaultField the one field of terms that name none (null: every field)
   * @param lenient whether a value not of its field matches nothing (null: lenient where no default field is named)
   * @param timeZone the zone of its dates without an offset, and of their rounding (null: UTC)
   */
  record QueryString(String query, String defaultField, Operator defaultOperator, Boolean lenient, ZoneId timeZone,
      float boost) implements QueryNode {}

  /** {@code simple_query_string} over text and keyword fields. */
  record SimpleQueryString(String query, List<FieldWeight> fields, Operator defaultOperator, float boost)
      implements QueryNode {
    public SimpleQueryString {
      fields = List.copyOf(fields);
    }
  }

  /** How the terms of a text are combined. */
  enum Operator { OR, AND }

  /** What a text with no terms (all stop words, say) matches. */
  enum ZeroTerms { NONE, ALL }

  /** One end of a {@code range}: the value and whether it is included. */
  record Bound(Value value, boolean inclusive) {}

  /** A field of {@code multi_match} or {@code simple_query_string}: a name or a {@code *} pattern, with its boost. */
  record FieldWeight(String name, float boost) {
    boolean isPattern() {
      return name.contains("*");
    }
  }

  /**
   * A field's value as JSON gave it: what it is ({@link Type}), its text ({@code asText}) and, for a number, its
   * decimal value. What it may be (a string for a keyword, a number or a numeric string for a number field) is asked
   * when the field's mapping is known.
   */
  record Value(Type type, String asText, BigDecimal number) {
    /** What a JSON value is. */
    enum Type { STRING, INTEGER, DECIMAL, BOOLEAN, NULL, OBJECT, ARRAY }

    public Value {
      assert (number != null) == (type == Type.INTEGER || type == Type.DECIMAL) : type;
    }

    static Value of(JsonNode v) {
      if (v.isNumber()) {
        return new Value(v.isIntegralNumber() ? Type.INTEGER : Type.DECIMAL, v.asText(), v.decimalValue());
      }
      Type type = v.isTextual() ? Type.STRING : v.isBoolean() ? Type.BOOLEAN : v.isObject() ? Type.OBJECT
          : v.isArray() ? Type.ARRAY : Type.NULL;
      return new Value(type, v.asText(), null);
    }

    /** A string value. */
    static Value of(String text) {
      return new Value(Type.STRING, text, null);
    }

    boolean isNumber() {
      return number != null;
    }

    /**
     * The value as text: a decimal number in plain notation.
     *
     * @throws DslException (400) naming {@code clause} and {@code field} where the value is null or not a scalar
     */
    String text(String clause, String field) {
      return switch (type) {
        case NULL, OBJECT, ARRAY -> throw DslException.parsing("[" + clause + "] the value of [" + field
            + "] must be a string, number or boolean, not " + type.name().toLowerCase(Locale.ROOT));
        case DECIMAL -> number.toPlainString();
        default -> asText;
      };
    }
  }
}
