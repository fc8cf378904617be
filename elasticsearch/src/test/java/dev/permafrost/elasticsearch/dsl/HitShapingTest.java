/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.IndexMapping;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code fields} and {@code highlight} of one hit against what an Elasticsearch 9.3.3 node answered for the same
 * documents, mapping and requests (recorded from the node; {@code ResponseShapingDifferentialTest} in the examples asks
 * a live node many more): fragments cut by sentence and by {@code fragment_size} at word boundaries, a phrase as one
 * highlight, multi-valued text a fragment per value, an empty value, no match, a pattern matching nothing, the tags,
 * {@code number_of_fragments} 0, {@code require_field_match}, {@code highlight_query}; values printed by the mapping.
 */
class HitShapingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String MAPPING = """
      {"properties": {"body": {"type": "text"}, "title": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
       "host": {"type": "keyword"}, "n": {"type": "long"}, "f": {"type": "float"}, "d": {"type": "double"},
       "ok": {"type": "boolean"}, "ip": {"type": "ip"}, "ts": {"type": "date"},
       "day": {"type": "date", "format": "yyyy-MM-dd"}, "tags": {"type": "keyword"}, "lines": {"type": "text"},
       "empty": {"type": "text"}, "user": {"properties": {"name": {"type": "keyword"}, "age": {"type": "integer"}}}}}""";
  static final String DOC1 = "{\"body\":\"The quick brown fox jumps over the lazy dog. It was a sunny day in the park and the fox was very happy about it. Later that evening the fox went home to sleep in its den, far away from the noisy city where the dogs barked all night long. Nobody ever saw the fox again after that long and strange day.\",\"title\":\"Fox story\",\"host\":\"web-01\",\"n\":42,\"f\":1.1,\"d\":2.5,\"ok\":true,\"ip\":\"10.0.0.1\",\"ts\":\"2024-03-01T10:00:00Z\",\"day\":\"2024-03-01\",\"tags\":[\"b\",\"a\",\"b\"],\"lines\":[\"first line about the fox\",\"second line without it\",\"third line mentions fox twice: fox\"],\"empty\":\"\",\"user\":{\"name\":\"ann\",\"age\":30},\"extra\":\"unmapped value\"}";
  static final String DOC2 = "{\"body\":\"A connection timeout occurred on host web-02 while the user login failed repeatedly because the authentication service was unavailable for a very long time, which is unusual and worth a closer look by the on-call engineer\",\"title\":\"Timeout\",\"host\":\"web-02\",\"n\":\"7\",\"f\":0.5,\"d\":-1.25,\"ok\":\"false\",\"ip\":\"2001:db8::1\",\"ts\":1709290800000,\"day\":\"2024-03-02\",\"tags\":\"c\",\"lines\":[\"login failed\",\"login succeeded\"],\"user\":{\"name\":\"bob\"}}";
  static final String DOC3 = "{\"body\":\"short text without the word\",\"title\":null,\"host\":[\"web-03\",\"db-01\"],\"n\":[3,1,2],\"ts\":\"2024-03-03\"}";
  static final String DOC4 = "{\"body\": \"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron needle rho sigma tau upsilon phi chi psi omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron needle rho sigma tau upsilon phi chi psi omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega. Then a short one with needle. And another sentence that is fine.\", \"title\": \"needle in title\", \"host\": \"needle\"}";

  private final IndexMapping mapping;
  private final QueryDsl dsl;
  private final QueryTranslator translator;

  HitShapingTest() throws Exception {
    mapping = IndexMapping.of(JSON.readTree(MAPPING));
    dsl = new QueryDsl(mapping);
    translator = new QueryTranslator(mapping, System::currentTimeMillis);
  }

  private Map<String, List<String>> highlight(String doc, String query, String highlight) throws Exception {
    HighlightSpec spec = HighlightSpec.parse(JSON.readTree(highlight.replace('\'', '"')), translator::translate);
    return HitHighlighter.of(spec, mapping, (ObjectNode) JSON.readTree(doc),
        dsl.toQuery(JSON.readTree(query.replace('\'', '"'))), translator::translate);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // sentences, the third longer than 100 characters cut at the first word boundary after 100
      "1 | {'match': {'body': 'fox'}} | {'fields': {'body': {}}} | {'body': ['The quick brown <em>fox</em> jumps over"
          + " the lazy dog.', 'It was a sunny day in the park and the <em>fox</em> was very happy about it.', 'Later"
          + " that evening the <em>fox</em> went home to sleep in its den, far away from the noisy city where the dogs',"
          + " 'Nobody ever saw the <em>fox</em> again after that long and strange day.']}",
      "1 | {'match': {'body': 'fox'}} | {'fields': {'body': {'number_of_fragments': 0}}} | {'body': ['The quick brown"
          + " <em>fox</em> jumps over the lazy dog. It was a sunny day in the park and the <em>fox</em> was very happy"
          + " about it. Later that evening the <em>fox</em> went home to sleep in its den, far away from the noisy city"
          + " where the dogs barked all night long. Nobody ever saw the <em>fox</em> again after that long and strange"
          + " day.']}",
      "1 | {'match': {'body': 'fox'}} | {'order': 'score', 'number_of_fragments': 2, 'fields': {'body': {}}} | {'body':"
          + " ['The quick brown <em>fox</em> jumps over the lazy dog.', 'Nobody ever saw the <em>fox</em> again after"
          + " that long and strange day.']}",
      // multi-valued text: a fragment per value that matches, whole or not
      "1 | {'match': {'lines': 'fox'}} | {'fields': {'lines': {}}} | {'lines': ['first line about the <em>fox</em>',"
          + " 'third line mentions <em>fox</em> twice: <em>fox</em>']}",
      "1 | {'match': {'lines': 'fox'}} | {'fields': {'lines': {'number_of_fragments': 0}}} | {'lines': ['first line"
          + " about the <em>fox</em>', 'third line mentions <em>fox</em> twice: <em>fox</em>']}",
      // a phrase highlighted as one
      "1 | {'match_phrase': {'body': 'lazy dog'}} | {'fields': {'body': {}}} | {'body': ['The quick brown fox jumps"
          + " over the <em>lazy dog</em>.']}",
      "2 | {'match_phrase': {'lines': 'login failed'}} | {'fields': {'*': {}}} | {'lines': ['<em>login failed</em>']}",
      // a keyword's whole value; numbers and dates are never highlighted
      "2 | {'term': {'host': 'web-02'}} | {'fields': {'*': {}}} | {'host': ['<em>web-02</em>']}",
      "1 | {'term': {'n': 42}} | {'fields': {'n': {}, 'ts': {}}} | {}",
      // no match, an empty value, a pattern matching nothing
      "1 | {'match': {'body': 'zzz'}} | {'fields': {'body': {}}} | {}",
      "1 | {'bool': {'should': [{'match': {'empty': 'fox'}}, {'match': {'body': 'dog'}}]}} | {'fields': {'empty': {},"
          + " 'body': {}, 'nomatch*': {}}} | {'body': ['The quick brown fox jumps over the lazy <em>dog</em>.']}",
      "1 | {'match': {'body': 'dog'}} | {'fields': [{'body': {'fragment_size': 10}}]} | {'body': ['the lazy"
          + " <em>dog</em>']}",
      // a long sentence: the fragment starts a word before fragment_size ahead of the match
      "4 | {'match': {'body': 'needle'}} | {'fields': {'body': {}}} | {'body': ['alpha beta gamma delta epsilon zeta eta"
          + " theta iota kappa lambda mu nu xi omicron <em>needle</em> rho sigma tau', 'phi chi psi omega alpha beta"
          + " gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron <em>needle</em>', 'Then a short one"
          + " with <em>needle</em>. And another sentence that is fine.']}",
      "4 | {'match': {'body': 'needle'}} | {'fields': {'body': {'fragment_size': 30}}} | {'body': ['kappa lambda mu nu"
          + " xi omicron <em>needle</em>', 'kappa lambda mu nu xi omicron <em>needle</em>', 'Then a short one with"
          + " <em>needle</em>.']}",
      "4 | {'match': {'body': 'needle'}} | {'fields': {'body': {'fragment_size': 0}}} | {'body': ['alpha beta gamma"
          + " delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron <em>needle</em> rho sigma tau upsilon phi"
          + " chi psi omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron"
          + " <em>needle</em> rho sigma tau upsilon phi chi psi omega alpha beta gamma delta epsilon zeta eta theta iota"
          + " kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega.', 'Then a short one with"
          + " <em>needle</em>.']}",
      // Grafana's and Kibana's: every field, tags of their own, fragments as long as they can be
      "4 | {'bool': {'should': [{'match': {'body': 'needle'}}, {'match': {'title': 'needle'}}, {'term': {'host':"
          + " 'needle'}}]}} | {'fields': {'*': {}}, 'pre_tags': ['@A@'], 'post_tags': ['@/A@'],"
          + " 'fragment_size': 2147483647} | {'host': ['@A@needle@/A@'], 'title': ['@A@needle@/A@ in title'], 'body':"
          + " ['alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron @A@needle@/A@ rho sigma"
          + " tau upsilon phi chi psi omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi"
          + " omicron @A@needle@/A@ rho sigma tau upsilon phi chi psi omega alpha beta gamma delta epsilon zeta eta"
          + " theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega. Then a short one with"
          + " @A@needle@/A@. And another sentence that is fine.']}",
      "4 | {'match': {'title': 'needle'}} | {'require_field_match': false, 'fields': {'body': {'number_of_fragments':"
          + " 1}, 'ho*': {}}} | {'host': ['<em>needle</em>'], 'body': ['Then a short one with <em>needle</em>. And"
          + " another sentence that is fine.']}",
      "4 | {'match': {'title': 'needle'}} | {'highlight_query': {'match': {'body': 'omega'}}, 'fields': {'body':"
          + " {'number_of_fragments': 2, 'highlight_query': {'match': {'body': 'short'}}}}} | {'body': ['Then a"
          + " <em>short</em> one with needle. And another sentence that is fine.']}",
  })
  void highlightsAsTheNodeHighlights(int doc, String query, String highlight, String expected) throws Exception {
    String source = switch (doc) {
      case 1 -> DOC1;
      case 2 -> DOC2;
      case 3 -> DOC3;
      default -> DOC4;
    };
    JsonNode want = JSON.readTree(expected.replace('\'', '"'));
    Map<String, List<String>> got = highlight(source, query, highlight);
    assertEquals(new TreeMap<>(JSON.convertValue(want, Map.class)), new TreeMap<>(got), query + " " + highlight);
  }

  /**
   * A phrase match the fragment's end cuts is highlighted up to that end, not past it: the node's first fragment of
   * a {@code dsl-*} message "user login failed user login ..." (the official clients' suite, {@code match_phrase}
   * "user login", {@code fragment_size} 18, 2 fragments) is "&lt;b&gt;user login&lt;/b&gt; failed
   * &lt;b&gt;user&lt;/b&gt;".
   */
  @Test
  void aPhraseTheFragmentsEndCutsIsHighlightedUpToIt() throws Exception {
    for (String second : List.of("failed", "succeeded")) {
      String doc = "{\"body\": \"user login failed user login " + second + "\"}";
      Map<String, List<String>> got = highlight(doc, "{'match_phrase': {'body': 'user login'}}",
          "{'pre_tags': ['<b>'], 'post_tags': ['</b>'], 'fields': {'body': {'fragment_size': 18,"
              + " 'number_of_fragments': 2}}}");
      assertEquals("<b>user login</b> failed <b>user</b>", got.get("body").get(0), got.toString());
      for (String fragment : got.get("body")) {
        assertEquals(fragment.split("<b>", -1).length, fragment.split("</b>", -1).length, fragment);
      }
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{'type': 'plain', 'fields': {'body': {}}} | type [plain]",
      "{'fields': {'body': {'no_match_size': 10}}} | no_match_size [10]",
      "{'fields': {'body': {'bogus': 10}}} | unknown field [bogus]",
      "{'fields': ['body']} | [fields] can be a single object",
      "{'fields': {'body': {'tags_schema': 'styled'}}} | [tags_schema]",
      "{'fields': {'body': {'highlight_query': {'bogus': {}}}}} | [bogus] query is not supported",
      "{'highlight_query': {'term': {'a': 1, 'b': 2}}, 'fields': {'body': {}}} | doesn't support multiple fields",
  })
  void refusesWhatItDoesNotSupportByName(String highlight, String named) {
    DslException e = assertThrows(DslException.class, () -> HighlightSpec.parse(JSON.readTree(highlight.replace('\'',
        '"')), translator::translate));
    assertEquals(400, e.status());
    assertTrue(e.getMessage().contains(named), e.getMessage());
  }

  private Map<String, List<JsonNode>> fields(String doc, String fields, String docValueFields) throws Exception {
    FieldsSpec spec = FieldsSpec.parse(fields == null ? null : JSON.readTree(fields.replace('\'', '"')),
        docValueFields == null ? null : JSON.readTree(docValueFields.replace('\'', '"')));
    HitFields.check(spec, "shape-a", mapping);
    return HitFields.of(spec, new HitFields.Hit("shape-a", "1", mapping, (ObjectNode) JSON.readTree(doc), null, -1));
  }

  @Test
  void fieldsAreTheSourceValuesPrintedByTheMapping() throws Exception {
    JsonNode want = JSON.readTree("""
        {"d":[2.5],"f":[1.1],"ip":["10.0.0.1"],"user.name":["ann"],"body":["The quick brown fox jumps over the lazy
        dog. It was a sunny day in the park and the fox was very happy about it. Later that evening the fox went home
        to sleep in its den, far away from the noisy city where the dogs barked all night long. Nobody ever saw the fox
        again after that long and strange day."],"title":["Fox story"],"n":[42],"empty":[""],"tags":["b","a","b"],
        "user.age":[30],"title.raw":["Fox story"],"host":["web-01"],"lines":["first line about the fox",
        "second line without it","third line mentions fox twice: fox"],"ok":[true],"day":["2024-03-01"],
        "ts":["2024-03-01T10:00:00.000Z"]}""".replace("\n", " ").replace("lazy  dog", "lazy dog"));
    assertSameJson(want, fields(DOC1, "['*']", null));
    // strings for numbers and booleans, an epoch for a date, an IPv6 address in canonical form
    JsonNode want2 = JSON.readTree("""
        {"d":[-1.25],"f":[0.5],"ip":["2001:db8::1"],"user.name":["bob"],"title":["Timeout"],"n":[7],"tags":["c"],
         "title.raw":["Timeout"],"host":["web-02"],"lines":["login failed","login succeeded"],"ok":[false],
         "day":["2024-03-02"],"ts":["2024-03-01T11:00:00.000Z"]}""");
    Map<String, List<JsonNode>> got2 = fields(DOC2, "['*']", null);
    got2.remove("body");
    assertSameJson(want2, got2);
    // several values in source order, a date without time, nothing for a pattern matching nothing or an object
    assertSameJson(JSON.readTree("{'host':['web-03','db-01'],'n':[3,1,2],'ts':['2024-03-03T00:00:00.000Z']}"
        .replace('\'', '"')), fields(DOC3, "['host', 'n', 'ts', 'nosuch*', 'user']", null));
    assertEquals(Map.of("_id", List.of(JSON.readTree("\"1\"")), "_index", List.of(JSON.readTree("\"shape-a\""))),
        fields(DOC1, "['_id', '_index']", null));
    assertEquals("[\"1709287200000\"]", fields(DOC1, "[{'field': 'ts', 'format': 'epoch_millis'}]", null).get("ts")
        .toString());
  }

  /** Equal as JSON, numbers by their text (a float's {@code 1.1} is the node's {@code 1.1}), keys in any order. */
  private static void assertSameJson(JsonNode want, Map<String, List<JsonNode>> got) throws Exception {
    assertEquals(JSON.writeValueAsString(new TreeMap<>(JSON.convertValue(want, Map.class))),
        JSON.writeValueAsString(new TreeMap<>(got)));
  }

  @Test
  void unmappedFieldsOnlyWhenAskedObjectsAndArraysOfObjectsEntered() throws Exception {
    IndexMapping m = IndexMapping.of(JSON.readTree("{\"dynamic\": false, \"properties\": {\"a\": {\"type\": \"keyword\"},"
        + " \"o\": {\"properties\": {\"x\": {\"type\": \"long\"}}}}}"));
    ObjectNode doc = (ObjectNode) JSON.readTree("{\"a\": \"v\", \"extra\": \"e1\", \"o\": {\"x\": 1, \"y\": [2, 3],"
        + " \"z\": {\"w\": \"deep\"}}, \"arr\": [{\"p\": 1}, {\"p\": 2}], \"nul\": null}");
    java.util.function.Function<String, Map<String, List<JsonNode>>> fields = f -> {
      try {
        return HitFields.of(FieldsSpec.parse(JSON.readTree(f.replace('\'', '"')), null),
            new HitFields.Hit("shape-b", "1", m, doc, null, -1));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };
    // as the 9.3.3 node answered
    assertSameJson(JSON.readTree("{'o.x':[1],'a':['v'],'o.y':[2,3],'o.z.w':['deep'],'extra':['e1'],'arr.p':[1,2]}"
        .replace('\'', '"')), fields.apply("[{'field': '*', 'include_unmapped': true}]"));
    assertSameJson(JSON.readTree("{'o.x':[1],'a':['v']}".replace('\'', '"')), fields.apply("['*']"));
    assertSameJson(JSON.readTree("{'o.x':[1],'o.z.w':['deep'],'o.y':[2,3]}".replace('\'', '"')),
        fields.apply("[{'field': 'o.*', 'include_unmapped': true}]"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "['body'] | Fielddata is disabled on [body] in [shape-a]",
      "['*.raw', 't*'] | Fielddata is disabled on [title] in [shape-a]",
      "['*'] | Fielddata is not supported on field [_doc_count]",
      "['_id'] | Fielddata access on the _id field is disallowed",
      "[{'field': 'host', 'format': 'x'}] | Field [host] of type [keyword] does not support custom formats",
  })
  void docValueFieldsRefusedAsTheNodeRefusesThem(String docValueFields, String reason) {
    DslException e = assertThrows(DslException.class, () -> fields(DOC1, null, docValueFields));
    assertEquals("search_phase_execution_exception", e.type());
    assertEquals("illegal_argument_exception", e.rootCauseType());
    assertTrue(e.getMessage().startsWith(reason), e.getMessage());
  }

  @Test
  void aFormatOnANumberInFieldsIsRefusedAsTheNodeRefusesIt() {
    DslException e = assertThrows(DslException.class, () -> fields(DOC1, "[{'field': 'n', 'format': '0.00'}]", null));
    assertEquals("error fetching [n]: Field [n] of type [long] doesn't support formats.", e.getMessage());
  }
}
