/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MappedQueryParser;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.apache.lucene.queryparser.simple.SimpleQueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;

/**
 * Translates Elasticsearch's query DSL ({@code {"bool": {"filter": [{"term": {"host": "web-01"}}, {"range":
 * {"@timestamp": {"gte": "now-1h"}}}]}}}) into a Lucene query over an index's mapping, with Elasticsearch's
 * semantics: {@code match_all}, {@code match_none}, {@code bool}, {@code term}, {@code terms}, {@code range},
 * {@code exists}, {@code prefix}, {@code wildcard}, {@code ids}, {@code match}, {@code match_phrase},
 * {@code multi_match} (best_fields), {@code query_string}, {@code simple_query_string}, {@code constant_score} and
 * {@code dis_max}, each with {@code boost}. Terms and ranges on keyword, number and date fields also run on segments
 * that keep the field in doc values only (Elasticsearch's time_series and logsdb indices).
 *
 * <p>Whatever it does not support fails with a {@link DslException} (400) naming the clause, parameter or field,
 * never a different query: other query types, unknown parameters, fields inside {@code nested} objects and fields of
 * types it does not query ({@code ip}, {@code boolean}, ...). A field the mapping does not have matches nothing, as in
 * Elasticsearch. Thread-safe.
 */
public final class QueryDsl {
  private static final String SUPPORTED = "bool, term, terms, range, exists, prefix, wildcard, ids, match,"
      + " match_phrase, multi_match, query_string, simple_query_string, constant_score, dis_max, match_all, match_none";

  private final IndexMapping mapping;
  private final MappedQueryParser parser;
  private final FieldQueries fields;
  private final LongSupplier now;

  /** Translates queries over the fields of {@code mapping}; {@code now} in date math is the system clock. */
  public QueryDsl(IndexMapping mapping) {
    this(mapping, System::currentTimeMillis);
  }

  /** Translates queries over {@code mapping} with {@code now} (epoch milliseconds) for date math. */
  QueryDsl(IndexMapping mapping, LongSupplier now) {
    this.mapping = mapping;
    this.now = now;
    this.parser = new MappedQueryParser(mapping, dateBounds(now));
    this.fields = new FieldQueries(mapping, parser, now);
  }

  /**
   * Date bounds as the Elasticsearch API reads them wherever a request gives a date without a format of its own
   * ({@code query_string}, {@code search_after}): in the field's format, UTC, with date math.
   */
  static MappedQueryParser.DateBounds dateBounds(LongSupplier now) {
    return (field, text, roundUp) -> DateFormats.parse(text, field.format(), null, roundUp, now);
  }

  /**
   * The Lucene query of {@code query}, the value of a search request's {@code "query"}; a missing or null one
   * matches every document.
   *
   * @throws DslException (400) naming the clause, parameter or field it cannot translate as Elasticsearch would
   */
  public Query toQuery(JsonNode query) {
    if (query == null || query.isMissingNode() || query.isNull()) {
      return new MatchAllDocsQuery();
    }
    return clause(query);
  }

  private Query clause(JsonNode node) {
    if (!node.isObject()) {
      throw DslException.parsing("[_na] query malformed, must start with start_object");
    }
    if (node.size() != 1) {
      throw DslException.parsing(node.isEmpty() ? "query malformed, empty clause found"
          : "[_na] query malformed, a query must have one key, found " + names(node));
    }
    Map.Entry<String, JsonNode> e = node.fields().next();
    String name = e.getKey();
    JsonNode body = e.getValue();
    if (!body.isObject()) {
      throw DslException.parsing("[" + name + "] query malformed, no start_object after query name");
    }
    return switch (name) {
      case "match_all" -> {
        allow(name, body, "boost", "_name");
        yield boosted(new MatchAllDocsQuery(), body, name);
      }
      case "match_none" -> {
        allow(name, body, "boost", "_name");
        yield new MatchNoDocsQuery("match_none");
      }
      case "bool" -> bool(body);
      case "constant_score" -> {
        allow(name, body, "filter", "boost", "_name");
        yield boosted(new ConstantScoreQuery(clause(required(name, body, "filter"))), body, name);
      }
      case "dis_max" -> disMax(body);
      case "term" -> term(body);
      case "terms" -> terms(body);
      case "range" -> range(body);
      case "exists" -> {
        allow(name, body, "field", "boost", "_name");
        yield boosted(fields.exists(name, string(name, "field", required(name, body, "field"))), body, name);
      }
      case "prefix" -> prefixOrWildcard(name, body);
      case "wildcard" -> prefixOrWildcard(name, body);
      case "ids" -> ids(body);
      case "match" -> match(body);
      case "match_phrase" -> matchPhrase(body);
      case "multi_match" -> multiMatch(body);
      case "query_string" -> queryString(body);
      case "simple_query_string" -> simpleQueryString(body);
      default -> throw DslException.parsing("[" + name + "] query is not supported by Permafrost's query DSL"
          + " (supported: " + SUPPORTED + ")");
    };
  }

  private Query bool(JsonNode body) {
    allow("bool", body, "must", "filter", "should", "must_not", "minimum_should_match", "boost",
        "adjust_pure_negative", "_name");
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    int required = add(b, body, "must", BooleanClause.Occur.MUST) + add(b, body, "filter", BooleanClause.Occur.FILTER);
    int optional = add(b, body, "should", BooleanClause.Occur.SHOULD);
    int negative = add(b, body, "must_not", BooleanClause.Occur.MUST_NOT);
    if (required + optional + negative == 0) {
      return boosted(new MatchAllDocsQuery(), body, "bool");
    }
    JsonNode msm = body.get("minimum_should_match");
    if (msm != null && !msm.isNull()) {
      if (!msm.isTextual() && !msm.isIntegralNumber()) {
        throw DslException.parsing("[bool] [minimum_should_match] must be an integer or a percentage, not " + msm);
      }
      b.setMinimumNumberShouldMatch(FieldQueries.minimumShouldMatch("bool", msm.asText(), optional));
    } else {
      b.setMinimumNumberShouldMatch(required == 0 && optional > 0 ? 1 : 0);
    }
    if (required + optional == 0) {
      b.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER); // only must_not: all documents but those
    }
    return boosted(b.build(), body, "bool");
  }

  /** Adds the clause or clauses of {@code key} with {@code occur}; how many. */
  private int add(BooleanQuery.Builder b, JsonNode body, String key, BooleanClause.Occur occur) {
    JsonNode value = body.get(key);
    if (value == null || value.isNull()) {
      return 0;
    }
    List<JsonNode> clauses = new ArrayList<>();
    if (value.isArray()) {
      value.forEach(clauses::add);
    } else if (value.isObject()) {
      clauses.add(value);
    } else {
      throw DslException.parsing("[bool] [" + key + "] must be a query or an array of queries");
    }
    for (JsonNode c : clauses) {
      b.add(clause(c), occur);
    }
    return clauses.size();
  }

  private Query disMax(JsonNode body) {
    allow("dis_max", body, "queries", "tie_breaker", "boost", "_name");
    JsonNode queries = required("dis_max", body, "queries");
    if (!queries.isArray()) {
      throw DslException.parsing("[dis_max] [queries] must be an array of queries");
    }
    List<Query> disjuncts = new ArrayList<>();
    queries.forEach(q -> disjuncts.add(clause(q)));
    if (disjuncts.isEmpty()) {
      throw DslException.parsing("[dis_max] requires at least one query in [queries]");
    }
    return boosted(new DisjunctionMaxQuery(disjuncts, floatParam("dis_max", body, "tie_breaker", 0f)), body, "dis_max");
  }

  private Query term(JsonNode body) {
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
    return boost(boost(fields.term("term", f.getKey(), value, caseInsensitive), boost), floatParam("term", body, "boost",
        1f));
  }

  private Query terms(JsonNode body) {
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
    List<JsonNode> list = new ArrayList<>();
    values.forEach(list::add);
    if (list.isEmpty()) {
      return new MatchNoDocsQuery("[terms] with no values");
    }
    return boosted(fields.terms("terms", field, list), body, "terms");
  }

  private Query range(JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField("range", body);
    JsonNode params = f.getValue();
    if (!params.isObject()) {
      throw DslException.parsing("[range] query malformed: the value of [" + f.getKey() + "] must be an object");
    }
    FieldQueries.Bound lower = null;
    FieldQueries.Bound upper = null;
    String format = null;
    ZoneId zone = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = params.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      JsonNode v = p.getValue();
      switch (p.getKey()) {
        case "gt", "gte" -> lower = v.isNull() ? null : new FieldQueries.Bound(v, p.getKey().equals("gte"));
        case "lt", "lte" -> upper = v.isNull() ? null : new FieldQueries.Bound(v, p.getKey().equals("lte"));
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
    return boost(boosted(fields.range("range", f.getKey(), lower, upper, format, zone), params, "range"),
        floatParam("range", body, "boost", 1f));
  }

  /** A range query's {@code relation}, which the node checks and which has no effect on fields of single values. */
  private static void relation(JsonNode v) {
    String text = v.asText();
    if (!List.of("intersects", "contains", "within").contains(text.toLowerCase(Locale.ROOT))) {
      throw DslException.parsing("[range] query malformed: " + text + " is not a valid relation (intersects, contains,"
          + " within)");
    }
  }

  private Query prefixOrWildcard(String clause, JsonNode body) {
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
    String text = FieldQueries.text(clause, f.getKey(), value);
    Query q = clause.equals("prefix") ? fields.prefix(clause, f.getKey(), text, caseInsensitive)
        : fields.wildcard(clause, f.getKey(), text, caseInsensitive);
    return boost(boost(q, boost), floatParam(clause, body, "boost", 1f));
  }

  private Query ids(JsonNode body) {
    allow("ids", body, "values", "boost", "_name");
    JsonNode values = required("ids", body, "values");
    if (!values.isArray()) {
      throw DslException.parsing("[ids] [values] must be an array");
    }
    List<JsonNode> list = new ArrayList<>();
    values.forEach(list::add);
    if (list.isEmpty()) {
      return new MatchNoDocsQuery("[ids] with no values");
    }
    return boosted(new ConstantScoreQuery(fields.terms("ids", "_id", list)), body, "ids");
  }

  private Query match(JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField("match", body);
    JsonNode params = f.getValue();
    if (!params.isObject()) {
      return boost(orZeroTerms(fields.match("match", f.getKey(), params, false, null, false), false),
          floatParam("match", body, "boost", 1f));
    }
    allow("match", params, "query", "operator", "minimum_should_match", "boost", "lenient", "zero_terms_query",
        "auto_generate_synonyms_phrase_query", "_name");
    Query q = fields.match("match", f.getKey(), required("match", params, "query"), and("match", params, "operator"),
        msm("match", params), boolParam("match", params, "lenient"));
    return boost(boosted(orZeroTerms(q, zeroTermsAll("match", params)), params, "match"),
        floatParam("match", body, "boost", 1f));
  }

  private Query matchPhrase(JsonNode body) {
    Map.Entry<String, JsonNode> f = singleField("match_phrase", body);
    JsonNode params = f.getValue();
    if (!params.isObject()) {
      return boost(orZeroTerms(fields.matchPhrase("match_phrase", f.getKey(), params, 0), false),
          floatParam("match_phrase", body, "boost", 1f));
    }
    allow("match_phrase", params, "query", "slop", "boost", "zero_terms_query", "_name");
    JsonNode slop = params.get("slop");
    if (slop != null && !slop.canConvertToInt()) {
      throw DslException.parsing("[match_phrase] [slop] must be an integer, not " + slop);
    }
    Query q = fields.matchPhrase("match_phrase", f.getKey(), required("match_phrase", params, "query"),
        slop == null ? 0 : slop.asInt());
    return boost(boosted(orZeroTerms(q, zeroTermsAll("match_phrase", params)), params, "match_phrase"),
        floatParam("match_phrase", body, "boost", 1f));
  }

  private Query multiMatch(JsonNode body) {
    String clause = "multi_match";
    allow(clause, body, "query", "fields", "type", "operator", "tie_breaker", "minimum_should_match", "boost",
        "lenient", "zero_terms_query", "auto_generate_synonyms_phrase_query", "_name");
    JsonNode type = body.get("type");
    if (type != null && !type.asText().equals("best_fields")) {
      throw DslException.illegalArgument("[multi_match] query type [" + type.asText() + "] is not supported by"
          + " Permafrost's query DSL (supported: best_fields)");
    }
    JsonNode query = required(clause, body, "query");
    boolean and = and(clause, body, "operator");
    String msm = msm(clause, body);
    boolean lenient = boolParam(clause, body, "lenient");
    List<Query> disjuncts = new ArrayList<>();
    for (Map.Entry<String, Float> f : fieldsParam(clause, body.get("fields"), null).entrySet()) {
      boolean expanded = f.getValue() < 0; // named by a pattern: skipped where the value does not fit, as in ES
      Query q;
      try {
        q = fields.match(clause, f.getKey(), query, and, msm, lenient || expanded);
      } catch (DslException e) {
        if (expanded) {
          continue;
        }
        throw e;
      }
      if (q != null) {
        disjuncts.add(boost(q, Math.abs(f.getValue())));
      }
    }
    Query q = disjuncts.isEmpty() ? null : disjuncts.size() == 1 ? disjuncts.get(0)
        : new DisjunctionMaxQuery(disjuncts, floatParam(clause, body, "tie_breaker", 0f));
    return boosted(orZeroTerms(q, zeroTermsAll(clause, body)), body, clause);
  }

  private Query queryString(JsonNode body) {
    String clause = "query_string";
    allow(clause, body, "query", "default_field", "fields", "default_operator", "analyze_wildcard", "time_zone", "lenient",
        "boost", "_name");
    String text = string(clause, "query", required(clause, body, "query")).trim();
    JsonNode timeZone = body.get("time_zone");
    ZoneId zone = timeZone == null || timeZone.isNull() ? null : DateFormats.zone(string(clause, "time_zone", timeZone));
    // the zone of its dates without an offset, and of their rounding
    MappedQueryParser parser = zone == null ? this.parser
        : new MappedQueryParser(mapping, (field, t, up) -> DateFormats.parse(t, field.format(), zone, up, now));
    if (text.equals("*") || text.equals("*:*")) {
      return boosted(new MatchAllDocsQuery(), body, clause);
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
    try {
      // lenient by default where no default field is named, as the node: a value not of its date field matches nothing
      boolean lenient = body.hasNonNull("lenient") ? boolParam(clause, body, "lenient") : defaultField == null;
      return boosted(withAllBesideNegatives(parser.parse(text, defaultField, and(clause, body, "default_operator"),
          lenient)), body, clause);
    } catch (DslException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw DslException.parsing("[query_string] " + e.getMessage());
    }
  }

  private Query simpleQueryString(JsonNode body) {
    String clause = "simple_query_string";
    allow(clause, body, "query", "fields", "default_operator", "analyze_wildcard", "lenient", "boost", "_name");
    String text = string(clause, "query", required(clause, body, "query"));
    if (text.trim().equals("*")) {
      return boosted(new MatchAllDocsQuery(), body, clause);
    }
    if (text.contains("~")) {
      throw DslException.illegalArgument("[simple_query_string] fuzzy and near operators (~) are not supported by"
          + " Permafrost's query DSL");
    }
    Map<String, Float> weights = new LinkedHashMap<>();
    for (Map.Entry<String, Float> f : fieldsParam(clause, body.get("fields"),
        EnumSet.of(FieldQueries.Kind.TEXT, FieldQueries.Kind.KEYWORD)).entrySet()) {
      IndexMapping.Field field = fields.field(clause, f.getKey());
      if (field == null) {
        continue;
      }
      FieldQueries.Kind kind = FieldQueries.kind(clause, field);
      if (kind != FieldQueries.Kind.TEXT && kind != FieldQueries.Kind.KEYWORD) {
        throw DslException.illegalArgument("[simple_query_string] on field [" + f.getKey() + "] of type ["
            + field.type() + "] is not supported by Permafrost's query DSL: only text and keyword fields");
      }
      weights.put(f.getKey(), Math.abs(f.getValue()));
    }
    if (weights.isEmpty()) {
      return new MatchNoDocsQuery("[simple_query_string] on no mapped field");
    }
    SimpleQueryParser sqp = new SimpleQueryParser(parser.analyzer(), weights);
    sqp.setDefaultOperator(and(clause, body, "default_operator") ? BooleanClause.Occur.MUST : BooleanClause.Occur.SHOULD);
    Query q = sqp.parse(text);
    return boosted(q == null ? new MatchNoDocsQuery("no terms") : parser.withDocValuesForms(withAllBesideNegatives(q)),
        body, clause);
  }

  /**
   * The fields of {@code fields} (names, {@code name^boost}, {@code *} patterns; all fields if missing), each with its
   * boost, negated for a field a pattern named; patterns only name fields of {@code patternTypes} (null: any
   * queryable type). A field named or matched more than once has the product of the boosts, as a 9.3.3 node weighs
   * {@code ["message", "message*^1.5"]} and {@code ["mess*", "message*^1.5", "message^2"]} (3); named twice, its last
   * boost.
   */
  private Map<String, Float> fieldsParam(String clause, JsonNode node, Set<FieldQueries.Kind> patternTypes) {
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
    Map<String, Float> out = new LinkedHashMap<>();
    for (String spec : specs) {
      int caret = spec.lastIndexOf('^');
      String name = caret < 0 ? spec : spec.substring(0, caret);
      float boost = 1f;
      if (caret >= 0) {
        try {
          boost = Float.parseFloat(spec.substring(caret + 1));
        } catch (NumberFormatException e) {
          throw DslException.parsing("[" + clause + "] field [" + spec + "] has an invalid boost");
        }
      }
      if (!name.contains("*")) {
        Float before = out.get(name);
        out.put(name, before != null && before < 0 ? -before * boost : boost); // a pattern's boost multiplies it
        continue;
      }
      Pattern p = Pattern.compile(Pattern.quote(name).replace("*", "\\E.*\\Q"));
      for (IndexMapping.Field f : mapping.fields().values()) {
        if (!p.matcher(f.path()).matches()) {
          continue;
        }
        Float before = out.get(f.path());
        if (before != null) { // named or matched before: the boosts multiply, as on the node (a pattern's stays < 0)
          out.put(f.path(), before > 0 ? before * boost : before * Math.max(boost, Float.MIN_VALUE));
        } else if (before == null && f.nestedPath() == null && parser.refusal(f.path()) == null
            && (f.indexed() || f.docValues()) && queryable(f, patternTypes)) {
          out.put(f.path(), -Math.max(boost, Float.MIN_VALUE));
        }
      }
    }
    return out;
  }

  private static boolean queryable(IndexMapping.Field f, Set<FieldQueries.Kind> kinds) {
    FieldQueries.Kind kind = FieldQueries.Kind.of(f.kind());
    return kind != null && (kinds == null || kinds.contains(kind));
  }

  private static Query orZeroTerms(Query q, boolean all) {
    if (q != null) {
      return q;
    }
    return all ? new MatchAllDocsQuery() : new MatchNoDocsQuery("the text has no terms");
  }

  private static boolean zeroTermsAll(String clause, JsonNode params) {
    JsonNode z = params.get("zero_terms_query");
    if (z == null) {
      return false;
    }
    return switch (z.asText().toLowerCase(Locale.ROOT)) {
      case "none" -> false;
      case "all" -> true;
      default -> throw DslException.parsing("[" + clause + "] [zero_terms_query] must be none or all, not " + z);
    };
  }

  private static boolean and(String clause, JsonNode params, String key) {
    JsonNode op = params.get(key);
    if (op == null) {
      return false;
    }
    return switch (op.asText().toLowerCase(Locale.ROOT)) {
      case "or" -> false;
      case "and" -> true;
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

  /**
   * The one field of a single-field clause ({@code {"term": {"host": ...}}}), besides {@code boost} and
   * {@code _name} beside it.
   */
  /**
   * The query with every Boolean query that has only {@code MUST_NOT} clauses (the parsers' {@code -disk}) matching
   * all documents but those, as Elasticsearch reads them, rather than none as Lucene would; they add nothing to the
   * score ({@code NOT timeout} alone scores 0, as on a 9.3.3 node).
   */
  static Query withAllBesideNegatives(Query query) {
    if (query instanceof BoostQuery b) {
      return new BoostQuery(withAllBesideNegatives(b.getQuery()), b.getBoost());
    }
    if (!(query instanceof BooleanQuery bool)) {
      return query;
    }
    BooleanQuery.Builder rebuilt = new BooleanQuery.Builder().setMinimumNumberShouldMatch(bool.getMinimumNumberShouldMatch());
    boolean onlyNegative = !bool.clauses().isEmpty();
    for (BooleanClause c : bool.clauses()) {
      rebuilt.add(withAllBesideNegatives(c.query()), c.occur());
      onlyNegative &= c.occur() == BooleanClause.Occur.MUST_NOT;
    }
    if (onlyNegative) {
      rebuilt.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER); // scoring 0, as the node's (issue 54)
    }
    return rebuilt.build();
  }

  private static Map.Entry<String, JsonNode> singleField(String clause, JsonNode body) {
    Map.Entry<String, JsonNode> field = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
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

  private static Query boosted(Query q, JsonNode params, String clause) {
    return boost(q, floatParam(clause, params, "boost", 1f));
  }

  private static Query boost(Query q, float boost) {
    if (boost < 0) {
      throw DslException.illegalArgument("negative [boost] " + boost + " is not allowed");
    }
    return boost == 1f || q instanceof MatchNoDocsQuery ? q : new BoostQuery(q, boost);
  }

  private static String names(JsonNode node) {
    Set<String> names = new TreeSet<>();
    node.fieldNames().forEachRemaining(names::add);
    return names.toString();
  }
}
