/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link FilterPath}'s rules, each case the answer a 9.3.3 node gave to the same {@code filter_path} over the same
 * search answer (recorded by hand from a node; the service's differential test asks a live node for many more).
 */
class FilterPathTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A search answer of two hits with {@code _source} and a terms aggregation, as the node gave it. */
  private static final String ANSWER = """
      {"took":5,"timed_out":false,"_shards":{"total":3,"successful":3,"skipped":0,"failed":0},
       "hits":{"total":{"value":4450,"relation":"eq"},"max_score":null,"hits":[
         {"_index":"dsl-a","_id":"d0","_score":null,"_source":{"host":"web-02","user":{"name":"ann","age":63}},"sort":[0]},
         {"_index":"dsl-a","_id":"d1","_score":null,"_source":{"host":"db-01","user":{"name":"cid","age":72}},"sort":[1]}]},
       "aggregations":{"h":{"doc_count_error_upper_bound":0,"sum_other_doc_count":2625,
         "buckets":[{"key":"web-03","doc_count":916},{"key":"web-02","doc_count":909}]}}}""";

  private static JsonNode filter(String filterPath, String answer) throws Exception {
    return FilterPath.parse(filterPath).apply(JSON.readTree(answer));
  }

  private static void assertFiltered(String filterPath, String expected) throws Exception {
    assertEquals(JSON.readTree(expected), filter(filterPath, ANSWER), "filter_path=" + filterPath);
  }

  @Test
  void namesAndPathsKeepWhatTheyMatchWhole() throws Exception {
    assertFiltered("hits.hits._id", "{\"hits\":{\"hits\":[{\"_id\":\"d0\"},{\"_id\":\"d1\"}]}}");
    assertFiltered("hits.total", "{\"hits\":{\"total\":{\"value\":4450,\"relation\":\"eq\"}}}");
    assertFiltered("hits.max_score", "{\"hits\":{\"max_score\":null}}");
    assertFiltered("hits.hits._source.user.name",
        "{\"hits\":{\"hits\":[{\"_source\":{\"user\":{\"name\":\"ann\"}}},{\"_source\":{\"user\":{\"name\":\"cid\"}}}]}}");
    assertFiltered("hits.hits.sort", "{\"hits\":{\"hits\":[{\"sort\":[0]},{\"sort\":[1]}]}}");
    assertFiltered("aggregations.h.buckets.key",
        "{\"aggregations\":{\"h\":{\"buckets\":[{\"key\":\"web-03\"},{\"key\":\"web-02\"}]}}}");
    assertFiltered("took,nosuch.x", "{\"took\":5}");
    assertFiltered("hits.total,,took", "{\"took\":5,\"hits\":{\"total\":{\"value\":4450,\"relation\":\"eq\"}}}");
    assertFiltered("nosuch", "{}");
    assertFiltered("took.x", "{}"); // a path through a value matches nothing
  }

  @Test
  void oneStarMatchesWithinANameTwoStarsOneLevelOrMore() throws Exception {
    assertFiltered("_shards.*ed", "{\"_shards\":{\"skipped\":0,\"failed\":0}}");
    assertFiltered("h*.t*", "{\"hits\":{\"total\":{\"value\":4450,\"relation\":\"eq\"}}}");
    assertFiltered("hits.*.value", "{\"hits\":{\"total\":{\"value\":4450}}}");
    assertFiltered("hit*.*s.*id", "{\"hits\":{\"hits\":[{\"_id\":\"d0\"},{\"_id\":\"d1\"}]}}");
    assertFiltered("**._id", "{\"hits\":{\"hits\":[{\"_id\":\"d0\"},{\"_id\":\"d1\"}]}}");
    assertFiltered("**.total", "{\"_shards\":{\"total\":3},\"hits\":{\"total\":{\"value\":4450,\"relation\":\"eq\"}}}");
    assertFiltered("**.**.value", "{\"hits\":{\"total\":{\"value\":4450}}}");
    assertFiltered("**.h.**.doc_count",
        "{\"aggregations\":{\"h\":{\"buckets\":[{\"doc_count\":916},{\"doc_count\":909}]}}}");
    // ** never matches zero levels
    assertFiltered("**.took", "{}");
    assertFiltered("**.hits.total", "{}");
    assertFiltered("hits.**.total.value", "{}");
    assertFiltered("hits.hits.**._id", "{}");
    assertEquals(JSON.readTree(ANSWER), filter("**", ANSWER));
    assertEquals(JSON.readTree(ANSWER), filter("*", ANSWER));
    assertEquals(JSON.readTree(ANSWER).get("hits"), filter("hits.**", ANSWER).get("hits"));
  }

  @Test
  void exclusionsRemoveWhatTheyMatchAndWhatTheyEmptied() throws Exception {
    JsonNode minusSource = JSON.readTree(ANSWER);
    minusSource.get("hits").get("hits").forEach(h -> ((ObjectNode) h)
        .remove("_source"));
    assertEquals(minusSource, filter("-hits.hits._source", ANSWER));
    // user's fields all excluded: user goes too; every field of every hit excluded: the hits go
    assertEquals("{\"host\":\"web-02\"}", filter("-hits.hits._source.user.*", ANSWER).at("/hits/hits/0/_source")
        .toString());
    assertTrue(filter("-hits.hits.*", ANSWER).at("/hits/hits").isMissingNode());
    assertTrue(filter("-hits.**", ANSWER).at("/hits").isMissingNode());
    assertFiltered("-took,-timed_out,-_shards,-hits,-aggregations", "{}");
    assertFiltered("-**", "{}");
    // a filter with no name excludes nothing
    assertEquals(JSON.readTree(ANSWER), filter("-", ANSWER));
    // an object that was empty stays
    assertEquals(JSON.readTree("{\"a\":{\"aliases\":{}},\"b\":{\"aliases\":{}}}"),
        filter("-*.aliases.x", "{\"a\":{\"aliases\":{}},\"b\":{\"aliases\":{}}}"));
    assertEquals(JSON.readTree("{\"aliases\":[],\"data_streams\":[]}"),
        filter("-indices.*", "{\"indices\":[{\"name\":\"a\"}],\"aliases\":[],\"data_streams\":[]}"));
  }

  @Test
  void exclusionsApplyBeforeInclusions() throws Exception {
    assertFiltered("-took,took", "{}");
    assertFiltered("took,-took", "{}");
    assertFiltered("hits.hits._source.host,-hits.hits._source", "{}");
    assertFiltered("hits.hits._source,-hits.hits._source.host", "{\"hits\":{\"hits\":[{\"_source\":{\"user\":"
        + "{\"name\":\"ann\",\"age\":63}}},{\"_source\":{\"user\":{\"name\":\"cid\",\"age\":72}}}]}}");
    assertFiltered("*.hits._id,-hits.hits._index", "{\"hits\":{\"hits\":[{\"_id\":\"d0\"},{\"_id\":\"d1\"}]}}");
  }

  @Test
  void emptyNamesMatchNothingAndAnEmptyFilterKeepsAll() throws Exception {
    assertFiltered("hits..total", "{}");
    assertFiltered("hits.total.", "{}");
    assertFiltered(".hits", "{}");
    JsonNode answer = JSON.readTree(ANSWER);
    assertSame(answer, FilterPath.parse(null).apply(answer));
    assertSame(answer, FilterPath.parse(" , ").apply(answer));
    assertTrue(FilterPath.of(Map.of()).isEmpty());
    assertFalse(FilterPath.of(Map.of("filter_path", "took")).isEmpty());
  }

  @Test
  void anEmptyArrayIsKeptWhereMatchedWholeOnly() throws Exception {
    String noHits = "{\"hits\":{\"total\":{\"value\":0,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]}}";
    assertEquals(JSON.readTree("{\"hits\":{\"hits\":[]}}"), filter("hits.hits", noHits));
    assertEquals(JSON.readTree("{}"), filter("hits.hits._id", noHits));
  }

  @Test
  void anArrayAnswerKeepsItsElementsFieldsOrIsNothing() throws Exception {
    String cat = "[{\"index\":\"dsl-b\",\"pri\":\"1\",\"docs.count\":\"1484\"},{\"index\":\"dsl-a\",\"pri\":\"2\","
        + "\"docs.count\":\"2966\"}]";
    assertEquals(JSON.readTree("[{\"index\":\"dsl-b\"},{\"index\":\"dsl-a\"}]"), filter("index", cat));
    assertEquals(JSON.readTree("[{\"pri\":\"1\",\"docs.count\":\"1484\"},{\"pri\":\"2\",\"docs.count\":\"2966\"}]"),
        filter("-index", cat));
    assertEquals(JSON.readTree("[{\"docs.count\":\"1484\"},{\"docs.count\":\"2966\"}]"), filter("docs*", cat));
    // a dotted name is one name: a path never matches it
    assertNull(filter("docs.count", cat));
    assertNull(filter("*.index", cat));
    assertNull(filter("**.index", cat));
    assertNull(filter("-*", cat));
    assertEquals(JSON.readTree(cat), filter("-**.index", cat));
  }

  /** Against a brute-force reading of the same rules over random answers and filters: the two implementations agree. */
  @Test
  void randomFiltersAgreeWithABruteForceReading() throws Exception {
    Random random = new Random(57);
    String[] names = {"a", "b", "ab", "ba", "c"};
    String[] segments = {"a", "b", "ab", "*", "a*", "*b", "**", "c"};
    for (int round = 0; round < 500; round++) {
      JsonNode answer = randomObject(random, names, 0);
      StringBuilder fp = new StringBuilder();
      int filters = 1 + random.nextInt(3);
      for (int f = 0; f < filters; f++) {
        if (f > 0) {
          fp.append(',');
        }
        if (random.nextInt(3) == 0) {
          fp.append('-');
        }
        int length = 1 + random.nextInt(3);
        for (int s = 0; s < length; s++) {
          fp.append(s > 0 ? "." : "").append(segments[random.nextInt(segments.length)]);
        }
      }
      JsonNode expected = BruteForce.apply(fp.toString(), answer);
      assertEquals(expected, FilterPath.parse(fp.toString()).apply(answer), "filter_path=" + fp + " over " + answer);
    }
  }

  private static JsonNode randomObject(Random random, String[] names, int depth) throws Exception {
    StringBuilder sb = new StringBuilder("{");
    int fields = random.nextInt(depth == 0 ? 4 : 3) + (depth == 0 ? 1 : 0);
    for (int i = 0; i < fields; i++) {
      String name = names[random.nextInt(names.length)];
      if (sb.indexOf("\"" + name + "\":") >= 0) {
        continue;
      }
      sb.append(sb.length() > 1 ? "," : "").append('"').append(name).append("\":");
      int kind = depth >= 3 ? 0 : random.nextInt(4);
      switch (kind) {
        case 0 -> sb.append(random.nextInt(10));
        case 1 -> sb.append(randomObject(random, names, depth + 1));
        case 2 -> sb.append('[').append(randomObject(random, names, depth + 1)).append(',')
            .append(randomObject(random, names, depth + 1)).append(']');
        default -> sb.append("{}");
      }
    }
    return JSON.readTree(sb.append('}').toString());
  }

  /**
   * The rules read literally, by every field's full path: a path (array levels left out) is included if a filter
   * matches it or a path above it; the regular expression of a filter turns {@code **} into one level or more.
   */
  private static final class BruteForce {
    static JsonNode apply(String filterPath, JsonNode answer) {
      List<Pattern> in = new ArrayList<>();
      List<Pattern> out = new ArrayList<>();
      for (String f : filterPath.split(",")) {
        if (f.isEmpty()) {
          continue;
        }
        boolean exclude = f.startsWith("-");
        String path = exclude ? f.substring(1) : f;
        StringBuilder regex = new StringBuilder();
        for (String s : path.split("\\.", -1)) {
          regex.append(regex.isEmpty() ? "" : "\\.");
          regex.append(s.equals("**") ? "[^.]*(\\.[^.]*)*" : s.replace("*", "[^.]*"));
        }
        (exclude ? out : in).add(Pattern.compile(regex.toString()));
      }
      JsonNode kept = out.isEmpty() ? answer : walk(answer, "", out, false);
      if (kept != null && !in.isEmpty()) {
        kept = walk(kept, "", in, true);
      }
      return kept == null ? JSON.createObjectNode() : kept;
    }

    private static boolean matches(List<Pattern> filters, String path) {
      return filters.stream().anyMatch(p -> p.matcher(path).matches());
    }

    private static JsonNode walk(JsonNode node, String path, List<Pattern> filters,
        boolean include) {
      if (!path.isEmpty() && matches(filters, path)) {
        return include ? node : null;
      }
      if (node.isObject()) {
        if (node.isEmpty()) {
          return include ? null : node;
        }
        var out = JSON.createObjectNode();
        node.properties().forEach(e -> {
          JsonNode kept = walk(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), filters, include);
          if (kept != null) {
            out.set(e.getKey(), kept);
          }
        });
        return out.isEmpty() ? null : out;
      }
      if (node.isArray()) {
        if (node.isEmpty()) {
          return include ? null : node;
        }
        var out = JSON.createArrayNode();
        node.forEach(e -> {
          JsonNode kept = walk(e, path, filters, include);
          if (kept != null) {
            out.add(kept);
          }
        });
        return out.isEmpty() ? null : out;
      }
      return include ? null : node;
    }
  }
}
