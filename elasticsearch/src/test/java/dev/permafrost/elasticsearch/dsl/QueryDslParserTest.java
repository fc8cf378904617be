/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.elasticsearch.dsl.QueryNode.Bool;
import dev.permafrost.elasticsearch.dsl.QueryNode.Boosted;
import dev.permafrost.elasticsearch.dsl.QueryNode.Bound;
import dev.permafrost.elasticsearch.dsl.QueryNode.FieldWeight;
import dev.permafrost.elasticsearch.dsl.QueryNode.MatchAll;
import dev.permafrost.elasticsearch.dsl.QueryNode.Operator;
import dev.permafrost.elasticsearch.dsl.QueryNode.Value;
import dev.permafrost.elasticsearch.dsl.QueryNode.ZeroTerms;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link QueryDslParser} alone: each clause's options land in its record, typed; what is malformed is refused with a
 * 400 naming the clause (and the parameter), before any mapping is asked; what depends on a field's mapping is left
 * for the translation (a value that only a number field would refuse parses).
 */
class QueryDslParserTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static QueryNode parse(String json) throws IOException {
    return QueryDslParser.parse(JSON.readTree(json));
  }

  private static Value string(String s) {
    return Value.of(s);
  }

  private static Value integer(long n) {
    return new Value(Value.Type.INTEGER, Long.toString(n), BigDecimal.valueOf(n));
  }

  @Test
  void noQueryOrNullMatchesAll() throws IOException {
    assertEquals(new MatchAll(1f), QueryDslParser.parse(null));
    assertEquals(new MatchAll(1f), QueryDslParser.parse(JSON.readTree("null")));
    assertEquals(new MatchAll(2.5f), parse("{\"match_all\": {\"boost\": 2.5}}"));
    assertEquals(new QueryNode.MatchNone(), parse("{\"match_none\": {\"_name\": \"n\"}}"));
  }

  @Test
  void boolKeepsEachOccurrenceInOrderWithItsMinimumAndBoost() throws IOException {
    Bool b = (Bool) parse("{\"bool\": {\"should\": [{\"term\": {\"a\": \"x\"}}, {\"term\": {\"a\": \"y\"}}],"
        + " \"must\": {\"exists\": {\"field\": \"b\"}}, \"must_not\": [{\"match_all\": {}}],"
        + " \"minimum_should_match\": \"50%\", \"boost\": 3, \"adjust_pure_negative\": true}}");
    assertEquals(List.of(new QueryNode.Exists("b", 1f)), b.must());
    assertEquals(List.of(), b.filter());
    assertEquals(List.of(new QueryNode.Term("a", string("x"), false, 1f), new QueryNode.Term("a", string("y"), false,
        1f)), b.should());
    assertEquals(List.of(new MatchAll(1f)), b.mustNot());
    assertEquals("50%", b.minimumShouldMatch());
    assertEquals(3f, b.boost());
    assertEquals("2", ((Bool) parse("{\"bool\": {\"should\": {\"match_all\": {}}, \"minimum_should_match\": 2}}"))
        .minimumShouldMatch());
    // with no clause a bool matches all, its minimum never read (as before the model)
    assertEquals(new Bool(List.of(), List.of(), List.of(), List.of(), null, 1f),
        parse("{\"bool\": {\"minimum_should_match\": {}}}"));
  }

  @Test
  void compoundClausesHoldTheirParts() throws IOException {
    assertEquals(new QueryNode.ConstantScore(new QueryNode.Exists("f", 1f), 1.5f),
        parse("{\"constant_score\": {\"filter\": {\"exists\": {\"field\": \"f\"}}, \"boost\": \"1.5\"}}"));
    assertEquals(new QueryNode.DisMax(List.of(new MatchAll(1f), new QueryNode.MatchNone()), 0.3f, 1f),
        parse("{\"dis_max\": {\"queries\": [{\"match_all\": {}}, {\"match_none\": {}}], \"tie_breaker\": 0.3}}"));
  }

  @Test
  void termLevelClausesKeepTheirValuesAsJsonTypedThem() throws IOException {
    assertEquals(new QueryNode.Term("host", string("web-01"), false, 1f), parse("{\"term\": {\"host\": \"web-01\"}}"));
    assertEquals(new Boosted(new QueryNode.Term("code", integer(404), true, 2f), 3f),
        parse("{\"term\": {\"code\": {\"value\": 404, \"case_insensitive\": \"true\", \"boost\": 2}, \"boost\": 3}}"));
    QueryNode.Term decimal = (QueryNode.Term) parse("{\"term\": {\"x\": 1.50}}");
    assertEquals(Value.Type.DECIMAL, decimal.value().type());
    assertEquals("1.5", decimal.value().text("term", "x"));
    assertEquals(new QueryNode.Terms("h", List.of(string("a"), integer(7),
        new Value(Value.Type.BOOLEAN, "true", null)), 2f),
        parse("{\"terms\": {\"h\": [\"a\", 7, true], \"boost\": 2}}"));
    assertEquals(new QueryNode.Terms("h", List.of(), 1f), parse("{\"terms\": {\"h\": [], \"boost\": \"not read\"}}"));
    assertEquals(new QueryNode.Exists("a.b", 1f), parse("{\"exists\": {\"field\": \"a.b\"}}"));
    assertEquals(new QueryNode.Prefix("h", "we", true, 1f),
        parse("{\"prefix\": {\"h\": {\"value\": \"we\", \"case_insensitive\": true}}}"));
    assertEquals(new QueryNode.Prefix("h", "12", false, 1f), parse("{\"prefix\": {\"h\": 12}}"));
    assertEquals(new QueryNode.Wildcard("h", "w*b?", false, 1f),
        parse("{\"wildcard\": {\"h\": {\"wildcard\": \"w*b?\"}}}"));
    assertEquals(new QueryNode.Wildcard("h", "v", false, 1f),
        parse("{\"wildcard\": {\"h\": {\"value\": \"v\", \"wildcard\": \"ignored\"}}}"));
    assertEquals(new QueryNode.Ids(List.of("1", "b"), 1.5f),
        parse("{\"ids\": {\"values\": [1, \"b\"], \"boost\": 1.5}}"));
  }

  @Test
  void rangeReadsItsBoundsFormatZoneAndBoosts() throws IOException {
    assertEquals(new Boosted(new QueryNode.Range("ts", new Bound(string("2024-01-01"), false),
        new Bound(integer(1_700_000_000_000L), true), "yyyy-MM-dd", ZoneId.of("Europe/Paris"), 2f), 4f),
        parse("{\"range\": {\"ts\": {\"gt\": \"2024-01-01\", \"lte\": 1700000000000, \"format\": \"yyyy-MM-dd\","
            + " \"time_zone\": \"Europe/Paris\", \"boost\": 2, \"relation\": \"WITHIN\"}, \"boost\": 4}}"));
    // the last of gt and gte wins; a null bound is none
    QueryNode.Range r = (QueryNode.Range) parse("{\"range\": {\"n\": {\"gt\": 1, \"gte\": 2, \"lt\": null}}}");
    assertEquals(new Bound(integer(2), true), r.lower());
    assertEquals(null, r.upper());
    assertEquals(null, r.timeZone());
  }

  @Test
  void fullTextClausesTypeTheirOptions() throws IOException {
    assertEquals(new QueryNode.Match("msg", string("disk full"), Operator.OR, null, false, ZeroTerms.NONE, 1f),
        parse("{\"match\": {\"msg\": \"disk full\"}}"));
    assertEquals(new Boosted(new QueryNode.Match("msg", string("disk full"), Operator.AND, "2", true, ZeroTerms.ALL,
        1.5f), 2f), parse("{\"match\": {\"msg\": {\"query\": \"disk full\", \"operator\": \"AND\","
        + " \"minimum_should_match\": 2, \"lenient\": true, \"zero_terms_query\": \"all\", \"boost\": 1.5},"
        + " \"boost\": 2}}"));
    assertEquals(new QueryNode.MatchPhrase("msg", string("a b"), 2, ZeroTerms.NONE, 1f),
        parse("{\"match_phrase\": {\"msg\": {\"query\": \"a b\", \"slop\": 2}}}"));
    assertEquals(new QueryNode.MultiMatch(string("error"), List.of(new FieldWeight("msg", 3f),
        new FieldWeight("host*", 1.5f)), Operator.AND, "75%", false, 0.2f, ZeroTerms.NONE, 1f),
        parse("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg^3\", \"host*^1.5\"], \"type\":"
            + " \"best_fields\", \"operator\": \"and\", \"minimum_should_match\": \"75%\", \"tie_breaker\": 0.2}}"));
    QueryNode.MultiMatch every = (QueryNode.MultiMatch) parse("{\"multi_match\": {\"query\": \"x\"}}");
    assertEquals(List.of(new FieldWeight("*", 1f)), every.fields());
    assertTrue(every.fields().getFirst().isPattern());
    assertEquals(new QueryNode.QueryString("status:500 AND host:web", "msg", Operator.AND, false,
        ZoneId.of("+02:00"), 1f), parse("{\"query_string\": {\"query\": \"  status:500 AND host:web \","
        + " \"fields\": [\"msg\"], \"default_operator\": \"and\", \"lenient\": false, \"time_zone\": \"+02:00\"}}"));
    assertEquals(new QueryNode.QueryString("x", null, Operator.OR, null, null, 1f),
        parse("{\"query_string\": {\"query\": \"x\"}}"));
    assertEquals(new QueryNode.QueryString("a b", null, Operator.OR, null, null, 1f),
        QueryDslParser.queryStringParameter(" a b"));
    // every document, whatever else it says: the fields are not read
    assertEquals(new QueryNode.QueryString("*", null, Operator.OR, null, null, 2f),
        parse("{\"query_string\": {\"query\": \"*\", \"fields\": [\"a\", \"b\"], \"boost\": 2}}"));
    assertEquals(new QueryNode.SimpleQueryString("disk -full", List.of(new FieldWeight("msg", 1f),
        new FieldWeight("tag", 2f)), Operator.AND, 1f), parse("{\"simple_query_string\": {\"query\": \"disk -full\","
        + " \"fields\": [\"msg\", \"tag^2\"], \"default_operator\": \"AND\", \"analyze_wildcard\": true}}"));
  }

  /** What only a field's mapping can refuse is parsed; the translation decides (a word is a keyword's term). */
  @Test
  void valuesAreCheckedByTheirFieldNotByTheParser() throws IOException {
    QueryNode match = parse("{\"match\": {\"code\": {\"query\": [1, 2]}}}");
    QueryNode.Match m = (QueryNode.Match) match;
    assertEquals(Value.Type.ARRAY, m.query().type());
    DslException e = assertThrows(DslException.class, () -> m.query().text("match", "code"));
    assertEquals("parsing_exception", e.type());
    assertTrue(e.getMessage().contains("[match] the value of [code] must be a string, number or boolean, not array"),
        e.getMessage());
    QueryNode.Range r = (QueryNode.Range) parse("{\"range\": {\"n\": {\"gte\": {\"a\": 1}}}}");
    assertEquals(Value.Type.OBJECT, r.lower().value().type());
  }

  @Test
  void malformedClausesAreRefusedNamingTheClause() {
    refused("{\"bool\": {\"must\": 5}}", "parsing_exception", "[bool] [must] must be a query or an array");
    refused("{\"bool\": {\"should\": [{\"match_all\": {}}], \"minimum_should_match\": 1.5}}", "parsing_exception",
        "[bool] [minimum_should_match]");
    refused("{\"bool\": {\"filter\": [{\"nope\": {}}]}}", "parsing_exception", "[nope] query is not supported");
    refused("{\"term\": {\"a\": {\"value\": \"x\", \"slop\": 1}}}", "parsing_exception", "[term] query does not support"
        + " [slop]");
    refused("{\"term\": {\"a\": null}}", "parsing_exception", "[term] the value of [a]");
    refused("{\"term\": {\"a\": {\"value\": \"x\", \"boost\": \"high\"}}}", "parsing_exception", "[term] [boost] must"
        + " be a number");
    refused("{\"term\": {\"a\": \"x\", \"b\": \"y\"}}", "parsing_exception", "[term] query doesn't support multiple"
        + " fields");
    refused("{\"term\": {}}", "illegal_argument_exception", "[term] query requires a field");
    refused("{\"terms\": {\"a\": {\"index\": \"i\", \"id\": \"1\"}}}", "parsing_exception", "[terms] query lookup");
    refused("{\"terms\": {\"a\": \"x\"}}", "parsing_exception", "[terms] query requires an array");
    refused("{\"terms\": {\"a\": [[1]]}}", "parsing_exception", "[terms] the value of [a]");
    refused("{\"range\": {\"a\": {\"from\": 1}}}", "parsing_exception", "[range] query parameter [from]");
    refused("{\"range\": {\"a\": {\"gte\": 1, \"relation\": \"overlaps\"}}}", "parsing_exception",
        "not a valid relation");
    refused("{\"range\": {\"a\": 5}}", "parsing_exception", "[range] query malformed");
    refused("{\"range\": {\"a\": {\"gte\": 1, \"time_zone\": 5}}}", "parsing_exception", "[range] [time_zone]");
    refused("{\"exists\": {\"field\": 1}}", "parsing_exception", "[exists] [field] must be a string");
    refused("{\"exists\": {}}", "parsing_exception", "[exists] query requires [field]");
    refused("{\"wildcard\": {\"a\": {\"boost\": 2}}}", "parsing_exception", "[wildcard] query requires [value] or"
        + " [wildcard]");
    refused("{\"ids\": {\"values\": \"1\"}}", "parsing_exception", "[ids] [values] must be an array");
    refused("{\"match\": {\"a\": {\"query\": \"x\", \"operator\": \"xor\"}}}", "parsing_exception", "[match] [operator]"
        + " must be and or or");
    refused("{\"match\": {\"a\": {\"query\": \"x\", \"zero_terms_query\": \"some\"}}}", "parsing_exception",
        "[match] [zero_terms_query]");
    refused("{\"match\": {\"a\": {\"operator\": \"and\"}}}", "parsing_exception", "[match] query requires [query]");
    refused("{\"match_phrase\": {\"a\": {\"query\": \"x\", \"slop\": \"far\"}}}", "parsing_exception",
        "[match_phrase] [slop] must be an integer");
    refused("{\"multi_match\": {\"query\": \"x\", \"type\": \"phrase\"}}", "illegal_argument_exception",
        "[multi_match] query type [phrase]");
    refused("{\"multi_match\": {\"query\": \"x\", \"fields\": [\"a^z\"]}}", "parsing_exception", "[multi_match] field"
        + " [a^z] has an invalid boost");
    refused("{\"query_string\": {\"query\": \"x\", \"fields\": [\"a\", \"b\"]}}", "illegal_argument_exception",
        "[query_string] [fields] with more than one field");
    refused("{\"query_string\": {\"query\": \"x\", \"default_field\": \"a\", \"fields\": [\"a\"]}}",
        "parsing_exception", "[query_string] give [default_field] or [fields], not both");
    refused("{\"query_string\": {\"query\": \"x\", \"default_field\": \"a*\"}}", "illegal_argument_exception",
        "[query_string] default field [a*]");
    refused("{\"simple_query_string\": {\"query\": \"disk~2\"}}", "illegal_argument_exception",
        "[simple_query_string] fuzzy and near operators");
    refused("{\"simple_query_string\": {\"query\": \"x\", \"fields\": 5}}", "parsing_exception",
        "[simple_query_string] [fields] must be an array");
    refused("{\"dis_max\": {\"queries\": []}}", "parsing_exception", "[dis_max] requires at least one query");
    refused("{\"constant_score\": {\"boost\": 2}}", "parsing_exception", "[constant_score] query requires [filter]");
    refused("{\"match_all\": {\"boost\": 1, \"x\": 2}}", "parsing_exception", "[match_all] query does not support [x]");
  }

  @Test
  void unknownAndShapelessClausesAreRefusedAsBefore() {
    refused("{\"fuzzy\": {\"host\": \"web\"}}", "parsing_exception", "[fuzzy] query is not supported by Permafrost's"
        + " query DSL (supported: bool, term");
    refused("{\"regexp\": {\"host\": \"w.*\"}}", "parsing_exception", "[regexp] query is not supported");
    refused("{\"match_phrase_prefix\": {\"msg\": \"di\"}}", "parsing_exception", "[match_phrase_prefix] query is not"
        + " supported");
    refused("[]", "parsing_exception", "[_na] query malformed, must start with start_object");
    refused("{}", "parsing_exception", "query malformed, empty clause found");
    refused("{\"term\": {\"a\": 1}, \"match\": {\"b\": 2}}", "parsing_exception", "a query must have one key, found"
        + " [match, term]");
    refused("{\"term\": 5}", "parsing_exception", "[term] query malformed, no start_object after query name");
  }

  private static void refused(String json, String type, String named) {
    DslException e = assertThrows(DslException.class, () -> parse(json), json);
    assertEquals(400, e.status(), json);
    assertEquals(type, e.type(), json);
    assertTrue(e.getMessage().contains(named), json + " -> " + e.getMessage());
  }
}
