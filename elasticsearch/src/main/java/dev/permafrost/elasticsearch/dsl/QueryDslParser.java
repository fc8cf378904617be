/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.elasticsearch.dsl.QueryNode.Bound;
import dev.permafrost.elasticsearch.dsl.QueryNode.FieldWeight;
import dev.permafrost.elasticsearch.dsl.QueryNode.Operator;
import dev.permafrost.elasticsearch.dsl.QueryNode.Value;
import dev.permafrost.elasticsearch.dsl.QueryNode.ZeroTerms;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads Elasticsearch's query DSL ({@code {"bool": {"filter": [{"term": {"host": "web-01"}}]}}}) into a
 * {@link QueryNode}, checking what needs no mapping: each clause's shape, its parameters and their types. A clause it
 * does not know, a parameter a clause does not take or a value of the wrong type fails with a {@link DslException}
 * (400) naming the clause and the parameter; what a field's mapping decides is {@link QueryTranslator}'s. Stateless.
 */
final class QueryDslParser {
  /**
   * Why a {@code knn} search or query is refused (400): the vectors of Elasticsearch 9.4/9.5's {@code dense_vector}
   * fields are read (and given back in {@code _source}), but a search over them is not the node's search yet:
   * approximate, over quantized vectors with the node's own scorers and rescoring, its hits and scores would not be the
   * node's.
   */
  static final String KNN_NOT_SUPPORTED = "[knn] search is not supported by Permafrost's query DSL: the vectors of"
      + " dense_vector fields are read (Elasticsearch 9.4 and 9.5's formats) and given back in _source, but no"
      + " k-nearest-neighbour search over them is wired (its hits and scores would not be the node's: it searches"
      + " quantized vectors with its own scorers); search the other fields, or ask the engine";

  static final String SUPPORTED = "bool, term, terms, range, exists, prefix, wildcard, ids, match,"
      + " match_phrase, multi_match, query_string, simple_query_string, constant_score, dis_max, match_all, match_none";

  private QueryDslParser() {}

  /**
   * The query of {@code query}, the value of a search request's {@code "query"}; a missing or null one matches every
   * document.
   *
   * @throws DslException (400) naming the clause or parameter that is malformed or not supported
   */
  static QueryNode parse(JsonNode query) {
    if (query == null || query.isMissingNode() || query.isNull()) {
      return new QueryNode.MatchAll(1f);
    }
    return clause(query);
  }

  /** The query of a request's {@code q} parameter: a {@code query_string} of every field. */
  static QueryNode queryStringParameter(String q) {
    return new QueryNode.QueryString(q.trim(), null, Operator.OR, null, null, 1f);
  }

  private static QueryNode clause(JsonNode node) {
    if (!node.isObject()) {
      throw DslException.parsing("[_na] query malformed, must start with start_object");
    }
    if (node.size() != 1) {
      throw DslException.parsing(node.isEmpty() ? "query malformed, empty clause found"
          : "[_na] query malformed, a query must have one key, found " + names(node));
    }
    Map.Entry<String, JsonNode> e = node.properties().iterator().next();
    String name = e.getKey();
    JsonNode body = e.getValue();
    if (!body.isObject()) {
      throw DslException.parsing("[" + name + "] query malformed, no start_object after query name");
    }
    return switch (name) {
      case "match_all" -> {
        allow(name, body, "boost", "_name");
        yield new QueryNode.MatchAll(boost(name, body));
      }
      case "match_none" -> {
        allow(name, body, "boost", "_name");
        yield new QueryNode.MatchNone();
      }
      case "bool" -> bool(body);
      case "constant_score" -> {
        allow(name, body, "filter", "boost", "_name");
        QueryNode filter = clause(required(name, body, "filter"));
        yield new QueryNode.ConstantScore(filter, boost(name, body));
      }
      case "dis_max" -> disMax(body);
      case "term" -> term(body);
      case "terms" -> terms(body);
      case "range" -> range(body);
      case "exists" -> {
        allow(name, body, "field", "boost", "_name");
        String field = string(name, "field", required(name, body, "field"));
        yield new QueryNode.Exists(field, boost(name, body));
      }
      case "prefix", "wildcard" -> prefixOrWildcard(name, body);
      case "ids" -> ids(body);
      case "match" -> match(body);
      case "match_phrase" -> matchPhrase(body);
      case "multi_match" -> multiMatch(body);
      case "query_string" -> queryString(body);
      case "simple_query_string" -> simpleQueryString(body);
      case "knn" -> throw DslException.parsing(KNN_NOT_SUPPORTED);
      default -> throw DslException.parsing("[" + name + "] query is not supported by Permafrost's query DSL"
          + " (supported: " + SUPPORTED + ")");
    };
  }

  private static QueryNode bool(JsonNode body) {
    allow("bool", body, "must", "filter", "should", "must_not", "minimum_should_match", "boost",
        "adjust_pure_negative", "_name");
    List<QueryNode> must = clauses(body, "must");
    List<QueryNode> filter = clauses(body, "filter");
    List<QueryNode> should = clauses(body, "should");
    List<QueryNode> mustNot = clauses(body, "must_not");
    String msm = null;
    JsonNode m = body.get("minimum_should_match");
    boolean any = !must.isEmpty() || !filter.isEmpty() || !should.isEmpty() || !mustNot.isEmpty();
    if (any && m != null && !m.isNull()) { // with no clause, a bool matches all and reads no minimum
      if (!m.isTextual() && !m.isIntegralNumber()) {
        throw DslException.parsing("[bool] [minimum_should_match] must be an integer or a percentage, not " + m);
      }
      msm = m.asText();
    }
    return new QueryNode.Bool(must, filter, should, mustNot, msm, boost("bool", body));
  }

  /** The clause or clauses of a bool's {@code key}. */
  private static List<QueryNode> clauses(JsonNode body, String key) {
    JsonNode value = body.get(key);
    List<QueryNode> clauses = new ArrayList<>();
    if (value == null || value.isNull()) {
      return clauses;
    }
    if (value.isArray()) {
      value.forEach(c -> clauses.add(clause(c)));
    } else if (value.isObject()) {
      clauses.add(clause(value));
    } else {
      throw DslException.parsing("[bool] [" + key + "] must be a query or an array of queries");
    }
    return clauses;
  }

  private static QueryNode disMax(JsonNode body) {
    allow("dis_max", body, "queries", "tie_breaker", "boost", "_name");
    JsonNode queries = required("dis_max", body, "queries");
    if (!queries.isArray()) {
      throw DslException.parsing("[dis_max] [queries] must be an array of queries");
    }
    List<QueryNode> disjuncts = new ArrayList<>();
    queries.forEach(q -> disjuncts.add(clause(q)));
    if (disjuncts.isEmpty()) {
      throw DslException.parsing("[dis_max] requires at least one query in [queries]");
    }
    return new QueryNode.DisMax(disjuncts, floatParam("dis_max", body, "tie_breaker", 0f), boost("dis_max", body));
  }

  private static QueryNode term(JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField("term", body);
    JsonNode value = f.getValue();
    float boost = 1f;
    boolean caseInsensitive = false;
    if (value.isObject()) {
      allow("term", value, "value", "boost", "case_insensitive", "_name");
      boost = floatParam("term", value, "boost", 1f);
      caseInsensitive = boolParam("term", value, "case_insensitive");
      value = required("term", value, "value");
    }
    Value v = Value.of(value);
    v.text("term", f.getKey());
    return outerBoost(new QueryNode.Term(f.getKey(), v, caseInsensitive, boost), "term", body);
  }

  private static QueryNode terms(JsonNode body) {
    String field = null;
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (key.equals("boost") || key.equals("_name")) {
        continue;
      }
      if (field != null) {
        throw DslException.parsing("[terms] query does not support multiple fields, found [" + field + "] and [" + key
            + "]");
      }
      field = key;
    }
    if (field == null) {
      throw DslException.parsing("[terms] query requires a field with an array of values");
    }
    JsonNode values = body.get(field);
    if (values.isObject()) {
      throw DslException.parsing("[terms] query lookup of terms from another document ([" + field + "] is an object)"
          + " is not supported by Permafrost's query DSL: give the values as an array");
    }
    if (!values.isArray()) {
      throw DslException.parsing("[terms] query requires an array of values for field [" + field + "]");
    }
    List<Value> list = new ArrayList<>();
    for (JsonNode v : values) {
      list.add(Value.of(v));
    }
    if (list.isEmpty()) {
      return new QueryNode.Terms(field, list, 1f);
    }
    for (Value v : list) {
      v.text("terms", field);
    }
    return new QueryNode.Terms(field, list, boost("terms", body));
  }

  private static QueryNode range(JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField("range", body);
    JsonNode params = f.getValue();
    if (!params.isObject()) {
      throw DslException.parsing("[range] query malformed: the value of [" + f.getKey() + "] must be an object");
    }
    Bound lower = null;
    Bound upper = null;
    String format = null;
    ZoneId zone = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = params.properties().iterator(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      JsonNode v = p.getValue();
      switch (p.getKey()) {
        case "gt", "gte" -> lower = v.isNull() ? null : new Bound(Value.of(v), p.getKey().equals("gte"));
        case "lt", "lte" -> upper = v.isNull() ? null : new Bound(Value.of(v), p.getKey().equals("lte"));
        case "format" -> format = v.isNull() ? null : string("range", "format", v);
        case "time_zone" -> zone = v.isNull() ? null : DateFormats.zone(string("range", "time_zone", v));
        case "boost", "_name" -> { }
        case "relation" -> relation(v); // of range fields' ranges: a value's range, for other fields, is one value
        case "from", "to", "include_lower", "include_upper" -> throw DslException.parsing("[range] query parameter ["
            + p.getKey() + "] (deprecated in Elasticsearch) is not supported by Permafrost's query DSL: use gt, gte, lt"
            + " and lte");
        default -> throw DslException.parsing("[range] query does not support [" + p.getKey() + "]");
      }
    }
    return outerBoost(new QueryNode.Range(f.getKey(), lower, upper, format, zone, boost("range", params)), "range",
        body);
  }

  /** A range query's {@code relation}, which the node checks and which has no effect on fields of single values. */
  private static void relation(JsonNode v) {
    String text = v.asText();
    if (!List.of("intersects", "contains", "within").contains(text.toLowerCase(Locale.ROOT))) {
      throw DslException.parsing("[range] query malformed: " + text + " is not a valid relation (intersects, contains,"
          + " within)");
    }
  }

  private static QueryNode prefixOrWildcard(String clause, JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField(clause, body);
    JsonNode value = f.getValue();
    float boost = 1f;
    boolean caseInsensitive = false;
    if (value.isObject()) {
      JsonNode params = value;
      if (clause.equals("wildcard")) {
        allow(clause, params, "value", "wildcard", "boost", "case_insensitive", "_name");
        value = params.has("value") ? params.get("value") : params.get("wildcard");
        if (value == null) {
          throw DslException.parsing("[wildcard] query requires [value] or [wildcard] for field [" + f.getKey() + "]");
        }
      } else {
        allow(clause, params, "value", "boost", "case_insensitive", "_name");
        value = required(clause, params, "value");
      }
      boost = floatParam(clause, params, "boost", 1f);
      caseInsensitive = boolParam(clause, params, "case_insensitive");
    }
    String text = Value.of(value).text(clause, f.getKey());
    QueryNode q = clause.equals("prefix") ? new QueryNode.Prefix(f.getKey(), text, caseInsensitive, boost)
        : new QueryNode.Wildcard(f.getKey(), text, caseInsensitive, boost);
    return outerBoost(q, clause, body);
  }

  private static QueryNode ids(JsonNode body) {
    allow("ids", body, "values", "boost", "_name");
    JsonNode values = required("ids", body, "values");
    if (!values.isArray()) {
      throw DslException.parsing("[ids] [values] must be an array");
    }
    List<String> ids = new ArrayList<>();
    for (JsonNode v : values) {
      ids.add(Value.of(v).text("ids", "_id"));
    }
    return new QueryNode.Ids(ids, ids.isEmpty() ? 1f : boost("ids", body));
  }

  private static QueryNode match(JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField("match", body);
    JsonNode params = f.getValue();
    if (!params.isObject()) {
      return outerBoost(new QueryNode.Match(f.getKey(), Value.of(params), Operator.OR, null, false, ZeroTerms.NONE,
          1f), "match", body);
    }
    allow("match", params, "query", "operator", "minimum_should_match", "boost", "lenient", "zero_terms_query",
        "auto_generate_synonyms_phrase_query", "_name");
    JsonNode query = required("match", params, "query");
    QueryNode q = new QueryNode.Match(f.getKey(), Value.of(query), operator("match", params, "operator"),
        msm("match", params), boolParam("match", params, "lenient"), zeroTerms("match", params),
        boost("match", params));
    return outerBoost(q, "match", body);
  }

  private static QueryNode matchPhrase(JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField("match_phrase", body);
    JsonNode params = f.getValue();
    if (!params.isObject()) {
      return outerBoost(new QueryNode.MatchPhrase(f.getKey(), Value.of(params), 0, ZeroTerms.NONE, 1f), "match_phrase",
          body);
    }
    allow("match_phrase", params, "query", "slop", "boost", "zero_terms_query", "_name");
    JsonNode slop = params.get("slop");
    if (slop != null && !slop.canConvertToInt()) {
      throw DslException.parsing("[match_phrase] [slop] must be an integer, not " + slop);
    }
    JsonNode query = required("match_phrase", params, "query");
    QueryNode q = new QueryNode.MatchPhrase(f.getKey(), Value.of(query), slop == null ? 0 : slop.asInt(),
        zeroTerms("match_phrase", params), boost("match_phrase", params));
    return outerBoost(q, "match_phrase", body);
  }

  private static QueryNode multiMatch(JsonNode body) {
    String clause = "multi_match";
    allow(clause, body, "query", "fields", "type", "operator", "tie_breaker", "minimum_should_match", "boost",
        "lenient", "zero_terms_query", "auto_generate_synonyms_phrase_query", "_name");
    JsonNode type = body.get("type");
    if (type != null && !type.asText().equals("best_fields")) {
      throw DslException.illegalArgument("[multi_match] query type [" + type.asText() + "] is not supported by"
          + " Permafrost's query DSL (supported: best_fields)");
    }
    Value query = Value.of(required(clause, body, "query"));
    Operator operator = operator(clause, body, "operator");
    String msm = msm(clause, body);
    boolean lenient = boolParam(clause, body, "lenient");
    List<FieldWeight> fields = fields(clause, body.get("fields"));
    return new QueryNode.MultiMatch(query, fields, operator, msm, lenient, floatParam(clause, body, "tie_breaker", 0f),
        zeroTerms(clause, body), boost(clause, body));
  }

  private static QueryNode queryString(JsonNode body) {
    String clause = "query_string";
    allow(clause, body, "query", "default_field", "fields", "default_operator", "analyze_wildcard", "time_zone", "lenient",
        "boost", "_name");
    String text = string(clause, "query", required(clause, body, "query")).trim();
    JsonNode timeZone = body.get("time_zone");
    ZoneId zone = timeZone == null || timeZone.isNull() ? null : DateFormats.zone(string(clause, "time_zone", timeZone));
    if (text.equals("*") || text.equals("*:*")) { // every document, whatever else it says
      return new QueryNode.QueryString(text, null, Operator.OR, null, zone, boost(clause, body));
    }
    String defaultField = null;
    JsonNode df = body.get("default_field");
    JsonNode fs = body.get("fields");
    if (df != null && fs != null) {
      throw DslException.parsing("[query_string] give [default_field] or [fields], not both");
    }
    if (df != null) {
      defaultField = string(clause, "default_field", df);
    } else if (fs != null) {
      if (!fs.isArray() || fs.size() != 1 || !fs.get(0).isTextual()) {
        throw DslException.illegalArgument("[query_string] [fields] with more than one field is not supported by"
            + " Permafrost's query DSL: give one field, or name the field of every term (field:value)");
      }
      defaultField = fs.get(0).asText();
    }
    if (defaultField != null && (defaultField.contains("*") || defaultField.contains("^"))) {
      throw DslException.illegalArgument("[query_string] default field [" + defaultField + "] is not supported by"
          + " Permafrost's query DSL: give one field without a pattern or boost, or name the field of every term");
    }
    Boolean lenient = body.hasNonNull("lenient") ? boolParam(clause, body, "lenient") : null;
    return new QueryNode.QueryString(text, defaultField, operator(clause, body, "default_operator"), lenient, zone,
        boost(clause, body));
  }

  private static QueryNode simpleQueryString(JsonNode body) {
    String clause = "simple_query_string";
    allow(clause, body, "query", "fields", "default_operator", "analyze_wildcard", "lenient", "boost", "_name");
    String text = string(clause, "query", required(clause, body, "query"));
    if (text.trim().equals("*")) { // every document, whatever else it says
      return new QueryNode.SimpleQueryString(text, List.of(), Operator.OR, boost(clause, body));
    }
    if (text.contains("~")) {
      throw DslException.illegalArgument("[simple_query_string] fuzzy and near operators (~) are not supported by"
          + " Permafrost's query DSL");
    }
    List<FieldWeight> fields = fields(clause, body.get("fields"));
    return new QueryNode.SimpleQueryString(text, fields, operator(clause, body, "default_operator"),
        boost(clause, body));
  }

  /** The fields of {@code fields} (names, {@code name^boost}, {@code *} patterns; all fields if missing). */
  private static List<FieldWeight> fields(String clause, JsonNode node) {
    List<String> specs = new ArrayList<>();
    if (node == null || node.isNull()) {
      specs.add("*");
    } else if (node.isTextual()) {
      specs.add(node.asText());
    } else if (node.isArray()) {
      for (JsonNode n : node) {
        specs.add(string(clause, "fields", n));
      }
    } else {
      throw DslException.parsing("[" + clause + "] [fields] must be an array of field names");
    }
    List<FieldWeight> out = new ArrayList<>();
    for (String spec : specs) {
      int caret = spec.lastIndexOf('^');
      float boost = 1f;
      if (caret >= 0) {
        try {
          boost = Float.parseFloat(spec.substring(caret + 1));
        } catch (NumberFormatException e) {
          throw DslException.parsing("[" + clause + "] field [" + spec + "] has an invalid boost");
        }
      }
      out.add(new FieldWeight(caret < 0 ? spec : spec.substring(0, caret), boost));
    }
    return out;
  }

  private static ZeroTerms zeroTerms(String clause, JsonNode params) {
    JsonNode z = params.get("zero_terms_query");
    if (z == null) {
      return ZeroTerms.NONE;
    }
    return switch (z.asText().toLowerCase(Locale.ROOT)) {
      case "none" -> ZeroTerms.NONE;
      case "all" -> ZeroTerms.ALL;
      default -> throw DslException.parsing("[" + clause + "] [zero_terms_query] must be none or all, not " + z);
    };
  }

  private static Operator operator(String clause, JsonNode params, String key) {
    JsonNode op = params.get(key);
    if (op == null) {
      return Operator.OR;
    }
    return switch (op.asText().toLowerCase(Locale.ROOT)) {
      case "or" -> Operator.OR;
      case "and" -> Operator.AND;
      default -> throw DslException.parsing("[" + clause + "] [" + key + "] must be and or or, not " + op);
    };
  }

  private static String msm(String clause, JsonNode params) {
    JsonNode msm = params.get("minimum_should_match");
    if (msm == null || msm.isNull()) {
      return null;
    }
    if (!msm.isTextual() && !msm.isIntegralNumber()) {
      throw DslException.parsing("[" + clause + "] [minimum_should_match] must be an integer or a percentage");
    }
    return msm.asText();
  }

  /** The clause with the boost given beside its field, if any. */
  private static QueryNode outerBoost(QueryNode clause, String name, JsonNode body) {
    float boost = boost(name, body);
    return boost == 1f ? clause : new QueryNode.Boosted(clause, boost);
  }

  /**
   * The one field of a single-field clause ({@code {"term": {"host": ...}}}), besides {@code boost} and
   * {@code _name} beside it.
   */
  private static Map.Entry<String, JsonNode> singleField(String clause, JsonNode body) {
    Map.Entry<String, JsonNode> field = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = body.properties().iterator(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if ((e.getKey().equals("boost") || e.getKey().equals("_name")) && !e.getValue().isObject()) {
        continue;
      }
      if (field != null) {
        throw DslException.parsing("[" + clause + "] query doesn't support multiple fields, found [" + field.getKey()
            + "] and [" + e.getKey() + "]");
      }
      field = e;
    }
    if (field == null) {
      throw DslException.illegalArgument("[" + clause + "] query requires a field");
    }
    return field;
  }

  /** Fails naming the first parameter of {@code params} not among {@code allowed}. */
  private static void allow(String clause, JsonNode params, String... allowed) {
    Set<String> ok = Set.of(allowed);
    for (Iterator<String> it = params.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!ok.contains(key)) {
        throw DslException.parsing("[" + clause + "] query does not support [" + key + "]");
      }
    }
  }

  private static JsonNode required(String clause, JsonNode params, String key) {
    JsonNode v = params.get(key);
    if (v == null || v.isNull()) {
      throw DslException.parsing("[" + clause + "] query requires [" + key + "]");
    }
    return v;
  }

  private static String string(String clause, String key, JsonNode v) {
    if (!v.isTextual()) {
      throw DslException.parsing("[" + clause + "] [" + key + "] must be a string, not " + v);
    }
    return v.asText();
  }

  private static float boost(String clause, JsonNode params) {
    return floatParam(clause, params, "boost", 1f);
  }

  private static float floatParam(String clause, JsonNode params, String key, float otherwise) {
    JsonNode v = params.get(key);
    if (v == null || v.isNull()) {
      return otherwise;
    }
    if (v.isNumber()) {
      return v.floatValue();
    }
    try {
      return Float.parseFloat(v.asText());
    } catch (NumberFormatException e) {
      throw DslException.parsing("[" + clause + "] [" + key + "] must be a number, not " + v);
    }
  }

  private static boolean boolParam(String clause, JsonNode params, String key) {
    JsonNode v = params.get(key);
    if (v == null || v.isNull()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    return switch (v.asText()) {
      case "true" -> true;
      case "false" -> false;
      default -> throw DslException.parsing("[" + clause + "] [" + key + "] must be true or false, not " + v);
    };
  }

  private static String names(JsonNode node) {
    Set<String> names = new TreeSet<>();
    node.fieldNames().forEachRemaining(names::add);
    return names.toString();
  }
}
