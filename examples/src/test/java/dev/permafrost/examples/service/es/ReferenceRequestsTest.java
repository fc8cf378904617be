/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@link ReferenceRequests} without a node: the same for a seed, well-formed, and covering every option family. */
class ReferenceRequestsTest {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  @Test
  void aSeedGivesTheSameRequestsAndOthersGiveOthers() {
    assertEquals(ReferenceRequests.generate(7, 50), ReferenceRequests.generate(7, 50));
    assertTrue(!ReferenceRequests.generate(7, 50).equals(ReferenceRequests.generate(8, 50)));
  }

  @Test
  void requestsAreJsonAndCoverEveryDocumentedOption() {
    Set<String> features = new TreeSet<>();
    int refused = 0;
    int ranked = 0;
    for (long seed = 1; seed <= 5; seed++) {
      for (ReferenceRequests.Request r : ReferenceRequests.generate(seed, 1000)) {
        JsonNode body = MAPPER.readTree(r.body());
        assertTrue(body.isObject(), r.toString());
        assertTrue(r.path().startsWith("/") && r.path().contains("/_search"), r.toString());
        if (body.has("search_after")) {
          assertEquals(body.get("sort").size(), body.get("search_after").size(), r.toString());
          assertTrue(!body.has("from"), r.toString());
        }
        if (r.rankedByScore()) {
          ranked++;
          assertTrue(!body.has("sort") || body.get("sort").toString().equals("[\"_score\"]")
              || body.get("sort").toString().equals("[{\"_score\":\"desc\"}]"), r.toString());
        } else {
          JsonNode last = body.get("sort").get(body.get("sort").size() - 1);
          assertTrue(last.has("seq"), "a total order ends with seq: " + r);
        }
        refused += r.refusedClause() == null ? 0 : 1;
        features.addAll(r.features());
      }
    }
    assertTrue(refused > 50 && refused < 400, "a few requests use a refused clause: " + refused);
    assertTrue(ranked > 1000 && ranked < 3000, "some hits come by score alone: " + ranked);
    for (String expected : List.of("bool.must", "bool.filter", "bool.should", "bool.must_not",
        "bool.minimum_should_match percentage", "bool.minimum_should_match negative",
        "bool.minimum_should_match number", "term.case_insensitive", "term.boost", "terms.boost", "terms number",
        "range.time_zone region", "range.time_zone offset", "range date math rounding", "range date math now",
        "range date-only", "range partial date", "range date format epoch_second", "range date format epoch_millis",
        "range keyword", "range.relation", "exists object", "prefix.case_insensitive", "wildcard.case_insensitive",
        "ids", "match.operator and", "match.minimum_should_match", "match_phrase.slop", "multi_match field pattern",
        "multi_match field boost", "multi_match.tie_breaker", "query_string range [] number",
        "query_string range {} number", "query_string range [} number", "query_string range >= number",
        "query_string range < number", "query_string range [] date-only", "query_string wildcard",
        "query_string operators AND", "query_string operators OR", "query_string operators +/-", "query_string NOT",
        "query_string.default_operator AND", "query_string.default_field", "query_string _exists_",
        "simple_query_string", "match_all", "match_none", "constant_score.boost", "dis_max.tie_breaker",
        "date_histogram.fixed_interval", "date_histogram.calendar_interval month",
        "date_histogram.time_zone region (DST)", "date_histogram.offset with time_zone",
        "date_histogram.min_doc_count 0", "date_histogram.extended_bounds millis", "date_histogram.format",
        "date_histogram.order _count desc", "histogram.offset", "histogram.extended_bounds", "terms agg keyword",
        "terms agg number", "terms agg date", "terms.order _key", "terms.order _count asc", "terms.min_doc_count 0",
        "terms.missing", "terms.size", "range agg.key", "date_range agg date math", "filter agg",
        "filters agg named", "filters agg anonymous", "min on date", "stats on number", "value_count on keyword",
        "avg on number", "sum on number", "max on date", "sub-aggregation", "sort _score then seq",
        "sort.missing _first", "sort.missing _last", "sort.missing value", "search_after keyword first",
        "search_after _score first", "from", "track_total_hits true", "track_total_hits false",
        "track_total_hits number", "_source boolean", "_source string wildcard", "_source array",
        "_source object wildcard", "typed_keys", "rest_total_hits_as_int", "refused query fuzzy",
        "refused aggregation cardinality")) {
      assertTrue(features.stream().anyMatch(f -> f.startsWith(expected)), "no request exercises " + expected);
    }
  }
}
