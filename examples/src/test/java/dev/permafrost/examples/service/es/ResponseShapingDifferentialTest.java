/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.examples.service.SearchServiceApplication;
import dev.permafrost.fixture.DslDataset;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.LiveEngineNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A real Elasticsearch 9.3.3 node and the service over its snapshot answer {@code fields}, {@code docvalue_fields}
 * and {@code highlight} alike: documents of long and short sentences, sentences longer than any fragment, multi-valued
 * and empty text, keywords, numbers, dates of two formats, addresses, booleans, an object, unmapped fields, in a
 * standard index and a logsdb one (synthetic {@code _source}, rebuilt by the service); requests drawn from a fixed seed
 * over queries (match, phrase, term, boolean, prefix), field patterns, {@code fragment_size},
 * {@code number_of_fragments}, {@code order}, tags, {@code require_field_match}, {@code highlight_query} and formats.
 * Each hit's {@code _id}, {@code fields} and {@code highlight} must be the node's; what the node refuses is refused with
 * its status and error types; what Permafrost does not support is refused with a 400 naming it.
 */
class ResponseShapingDifferentialTest {
  private static final long SEED = Long.getLong("shaping.seed", 20261129L);
  private static final int COUNT = Integer.getInteger("shaping.count", 300);
  private static final String SNAPSHOT = "snap-shaping";
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final String MAPPING = """
      {"dynamic": false, "properties": {"key": {"type": "keyword"}, "body": {"type": "text"},
       "title": {"type": "text", "fields": {"raw": {"type": "keyword"}}}, "host": {"type": "keyword"},
       "n": {"type": "long"}, "f": {"type": "float"}, "d": {"type": "double"}, "ok": {"type": "boolean"},
       "ip": {"type": "ip"}, "ts": {"type": "date"}, "day": {"type": "date", "format": "yyyy-MM-dd||epoch_millis"},
       "tags": {"type": "keyword"}, "lines": {"type": "text"}, "empty": {"type": "text"},
       "user": {"properties": {"name": {"type": "keyword"}, "age": {"type": "integer"}}}}}""";
  private static final List<String> WORDS = List.of("fox", "dog", "needle", "timeout", "login", "failed", "cache",
      "disk", "alpha", "beta", "gamma", "delta", "omega", "quick", "brown", "lazy", "server", "request", "user",
      "network", "error", "warning", "slow", "query", "host");
  private static LiveEngineNode node;
  private static ConfigurableApplicationContext service;
  private static URI serviceUri;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    node = LiveEngineNode.start(EngineFixture.ELASTICSEARCH_93, Path.of("target", "live-node-shaping"));
    String settings = "{\"number_of_shards\": %d, \"number_of_replicas\": 0%s}";
    ok(send(node.uri(), "PUT", "/shape-a", "{\"settings\": " + settings.formatted(2, "") + ", \"mappings\": "
        + MAPPING + "}"));
    ok(send(node.uri(), "PUT", "/shape-logs", "{\"settings\": " + settings.formatted(1,
        ", \"index\": {\"mode\": \"logsdb\"}") + ", \"mappings\": " + MAPPING.replace("\"dynamic\": false, ", "")
        .replace("\"key\": {\"type\": \"keyword\"},", "\"key\": {\"type\": \"keyword\"}, \"@timestamp\": {\"type\":"
            + " \"date\"},") + "}"));
    Random random = new Random(SEED);
    StringBuilder bulk = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      String index = i % 4 == 3 ? "shape-logs" : "shape-a";
      bulk.append("{\"index\": {\"_index\": \"").append(index).append("\", \"_id\": \"s").append(i).append("\"}}\n")
          .append(document(i, random, index.equals("shape-logs"))).append('\n');
    }
    ok(send(node.uri(), "POST", "/_bulk?refresh=true", bulk.toString()));
    ok(send(node.uri(), "POST", "/shape-a,shape-logs/_flush?force=true", null));
    HttpResponse<String> snap = send(node.uri(), "PUT", "/_snapshot/" + DslDataset.REPOSITORY + "/" + SNAPSHOT
        + "?wait_for_completion=true", "{\"indices\": \"shape-a,shape-logs\", \"include_global_state\": false}");
    assertTrue(snap.body().contains("\"SUCCESS\""), snap.body());
    Path home = Files.createTempDirectory("permafrost-shaping");
    service = new SpringApplicationBuilder(SearchServiceApplication.class).run("--server.port=0",
        "--permafrost.home=" + home, "--permafrost.cache.size=64mb", "--permafrost.sample.enabled=false",
        "--permafrost.engine-repository.uri=" + node.repository().toUri(),
        "--permafrost.engine-repository.snapshot=" + SNAPSHOT);
    serviceUri = URI.create("http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort());
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      service.close();
    }
    if (node != null) {
      node.close();
    }
  }

  /** One document: sentences of every length, some fields absent, some values of the wrong JSON type. */
  private static String document(int i, Random random, boolean logs) {
    ObjectNode doc = MAPPER.createObjectNode();
    doc.put("key", "k%04d".formatted(i));
    if (logs) {
      doc.put("@timestamp", "2024-03-%02dT%02d:00:00Z".formatted(1 + i % 28, i % 24));
    }
    doc.put("body", text(random, 1 + random.nextInt(6)));
    if (random.nextInt(4) != 0) {
      doc.put("title", sentence(random, 1 + random.nextInt(4), ""));
    }
    if (random.nextInt(5) == 0) {
      doc.putArray("host").add(WORDS.get(random.nextInt(WORDS.size()))).add("web-0" + random.nextInt(4));
    } else {
      doc.put("host", random.nextBoolean() ? WORDS.get(random.nextInt(WORDS.size())) : "web-0" + random.nextInt(4));
    }
    if (random.nextInt(3) == 0) {
      doc.put("n", String.valueOf(random.nextInt(1000)));
    } else if (random.nextInt(3) == 0) {
      doc.putArray("n").add(random.nextInt(1000)).add(random.nextInt(1000));
    } else {
      doc.put("n", random.nextInt(1000));
    }
    doc.put("f", random.nextInt(10_000) / 100.0);
    doc.put("d", (random.nextInt(20_000) - 10_000) / 8.0);
    doc.put("ok", random.nextBoolean() ? "true" : "false");
    doc.put("ip", random.nextBoolean() ? "10.0." + random.nextInt(256) + "." + random.nextInt(256)
        : "2001:db8::" + Integer.toHexString(random.nextInt(65536)));
    doc.put("ts", random.nextBoolean() ? "2024-03-%02dT10:%02d:00Z".formatted(1 + random.nextInt(28), random.nextInt(60))
        : "2024-03-%02d".formatted(1 + random.nextInt(28)));
    doc.put("day", random.nextBoolean() ? "2024-04-%02d".formatted(1 + random.nextInt(28)) : "1712000000000");
    ArrayNode tags = doc.putArray("tags");
    for (int t = random.nextInt(4); t > 0; t--) {
      tags.add(WORDS.get(random.nextInt(8)));
    }
    ArrayNode lines = doc.putArray("lines");
    for (int l = random.nextInt(4); l > 0; l--) {
      lines.add(random.nextInt(5) == 0 ? "" : sentence(random, 2 + random.nextInt(10), ""));
    }
    if (random.nextInt(3) == 0) {
      doc.put("empty", "");
    }
    ObjectNode user = doc.putObject("user");
    user.put("name", WORDS.get(random.nextInt(5)));
    if (random.nextBoolean()) {
      user.put("age", 18 + random.nextInt(60));
    }
    if (!logs && random.nextInt(3) == 0) {
      doc.put("extra", sentence(random, 3, ""));
    }
    return doc.toString();
  }

  private static String text(Random random, int sentences) {
    StringBuilder sb = new StringBuilder();
    for (int s = 0; s < sentences; s++) {
      int words = random.nextInt(5) == 0 ? 25 + random.nextInt(40) : 3 + random.nextInt(15); // some past any fragment
      sb.append(s > 0 ? " " : "").append(sentence(random, words, random.nextInt(4) == 0 ? "!" : "."));
    }
    return sb.toString();
  }

  private static String sentence(Random random, int words, String end) {
    StringBuilder sb = new StringBuilder();
    for (int w = 0; w < words; w++) {
      String word = WORDS.get(random.nextInt(WORDS.size()));
      sb.append(w > 0 ? (random.nextInt(9) == 0 ? ", " : " ") : "").append(w == 0
          ? Character.toUpperCase(word.charAt(0)) + word.substring(1) : word);
    }
    return sb.append(end).toString();
  }

  /** A random request: a query, and fields, docvalue_fields or highlight (or several). */
  private static String request(Random random) {
    ObjectNode body = MAPPER.createObjectNode();
    String word = WORDS.get(random.nextInt(WORDS.size()));
    String word2 = WORDS.get(random.nextInt(WORDS.size()));
    String field = random.nextInt(3) == 0 ? "lines" : random.nextInt(4) == 0 ? "title" : "body";
    String query = switch (random.nextInt(7)) {
      case 0 -> "{\"match_phrase\": {\"" + field + "\": \"" + word + " " + word2 + "\"}}";
      case 1 -> "{\"term\": {\"host\": \"" + word + "\"}}";
      case 2 -> "{\"bool\": {\"should\": [{\"match\": {\"body\": \"" + word + "\"}}, {\"match\": {\"title\": \"" + word2
          + "\"}}, {\"term\": {\"host\": \"" + word + "\"}}]}}";
      case 3 -> "{\"prefix\": {\"" + field + "\": \"" + word.substring(0, 2) + "\"}}";
      default -> "{\"match\": {\"" + field + "\": \"" + word + " " + word2 + "\"}}";
    };
    body.set("query", MAPPER.readTree(query));
    body.put("size", 1 + random.nextInt(20));
    body.putArray("sort").add("key");
    body.put("_source", random.nextInt(3) == 0);
    int what = random.nextInt(7);
    if (what <= 3) {
      ObjectNode h = body.putObject("highlight");
      option(random, h);
      ObjectNode fields = h.putObject("fields");
      String[] patterns = {"*", "body", "lines", "title*", "ho*", "nomatch*", "n", "body,lines"};
      for (String p : patterns[random.nextInt(patterns.length)].split(",")) {
        ObjectNode o = fields.putObject(p);
        if (random.nextInt(3) == 0) {
          option(random, o);
        }
      }
    }
    if (what >= 3) {
      ArrayNode fields = body.putArray("fields");
      String[] patterns = {"*", "n", "user.*", "ts", "day", "title*", "ip", "ok", "f", "d", "tags", "lines", "nomatch*",
          "_id", "_index"};
      for (int i = 1 + random.nextInt(3); i > 0; i--) {
        String p = patterns[random.nextInt(patterns.length)];
        if (p.equals("ts") && random.nextBoolean()) {
          fields.addObject().put("field", "ts").put("format", random.nextBoolean() ? "epoch_millis" : "yyyy/MM/dd HH:mm");
        } else if (p.equals("*") && random.nextBoolean()) {
          fields.addObject().put("field", "*").put("include_unmapped", "true");
        } else {
          fields.add(p);
        }
      }
    }
    if (what >= 5) {
      ArrayNode dv = body.putArray("docvalue_fields");
      String[] patterns = {"n", "user.*", "ts", "day", "title.raw", "ip", "ok", "f", "d", "tags", "host", "nomatch*"};
      for (int i = 1 + random.nextInt(3); i > 0; i--) {
        String p = patterns[random.nextInt(patterns.length)];
        switch (p) {
          case "ts", "day" -> dv.addObject().put("field", p).put("format", random.nextBoolean() ? "epoch_millis"
              : "yyyy-MM-dd'T'HH");
          case "n", "d", "f" -> {
            if (random.nextBoolean()) {
              dv.addObject().put("field", p).put("format", random.nextBoolean() ? "0.00" : "#.#");
            } else {
              dv.add(p);
            }
          }
          default -> dv.add(p);
        }
      }
    }
    return body.toString();
  }

  private static void option(Random random, ObjectNode o) {
    if (random.nextInt(3) == 0) {
      int[] sizes = {0, 10, 20, 30, 50, 80, 150, 2147483647};
      o.put("fragment_size", sizes[random.nextInt(sizes.length)]);
    }
    if (random.nextInt(3) == 0) {
      o.put("number_of_fragments", random.nextInt(4));
    }
    if (random.nextInt(5) == 0) {
      o.put("order", "score");
    }
    if (random.nextInt(4) == 0) {
      o.putArray("pre_tags").add("@kibana-highlighted-field@");
      o.putArray("post_tags").add("@/kibana-highlighted-field@");
    }
    if (random.nextInt(5) == 0) {
      o.put("require_field_match", false);
    }
    if (random.nextInt(8) == 0) {
      o.set("highlight_query", MAPPER.readTree("{\"match\": {\"body\": \"" + WORDS.get(random.nextInt(WORDS.size()))
          + "\"}}"));
    }
  }

  @Test
  void fieldsAndHighlightsAreTheNodes() throws Exception {
    Random random = new Random(SEED);
    List<String> differences = new ArrayList<>();
    int highlighted = 0;
    int withFields = 0;
    int refused = 0;
    int scoreSelected = 0;
    for (int r = 0; r < COUNT; r++) {
      String body = request(random);
      String path = "/shape-a,shape-logs/_search";
      HttpResponse<String> expected = send(node.uri(), "POST", path, body);
      HttpResponse<String> actual = send(serviceUri, "POST", path, body);
      JsonNode want = MAPPER.readTree(expected.body());
      JsonNode got = MAPPER.readTree(actual.body());
      if (expected.statusCode() != 200) {
        refused++;
        if (actual.statusCode() != expected.statusCode()
            || !want.at("/error/root_cause/0/type").equals(got.at("/error/root_cause/0/type"))) {
          differences.add(body + "\n  node " + expected.body() + "\n  service " + actual.body());
        }
        continue;
      }
      if (actual.statusCode() != 200) {
        differences.add(body + "\n  node 200\n  service " + actual.body());
        continue;
      }
      JsonNode wantHits = want.at("/hits/hits");
      JsonNode gotHits = got.at("/hits/hits");
      if (wantHits.size() != gotHits.size()) {
        differences.add(body + "\n  node " + wantHits.size() + " hits, service " + gotHits.size());
        continue;
      }
      for (int i = 0; i < wantHits.size(); i++) {
        JsonNode w = wantHits.get(i);
        JsonNode g = gotHits.get(i);
        for (String part : List.of("_id", "fields", "highlight")) {
          if (part.equals("highlight") && !w.path(part).equals(g.path(part))
              && scoreSelected(MAPPER.readTree(body), w.path(part), g.path(part))) {
            scoreSelected++;
            continue;
          }
          if (!w.path(part).equals(g.path(part))) {
            differences.add(body + "\n  hit " + i + " " + part + "\n  node    " + w.path(part) + "\n  service "
                + g.path(part));
          }
        }
        highlighted += w.has("highlight") ? 1 : 0;
        withFields += w.has("fields") ? 1 : 0;
      }
    }
    Files.writeString(Path.of("target", "shaping-differences.txt"), String.join("\n", differences));
    System.out.printf("ResponseShapingDifferentialTest: %d requests (seed %d), %d hits highlighted, %d with fields, %d"
        + " refused by the node, %d hits whose fragments were chosen by score otherwise%n", COUNT, SEED, highlighted,
        withFields, refused, scoreSelected);
    // documented in docs/elasticsearch-api.md: which fragments win when more match than number_of_fragments, or
    // their order by score, may differ; every other fragment must be the node's
    assertTrue(scoreSelected <= highlighted / 20, scoreSelected + " of " + highlighted + " highlighted hits have fragments"
        + " chosen by score otherwise than the node chose them");
    assertTrue(differences.isEmpty(), differences.size() + " differences, first:\n" + String.join("\n",
        differences.subList(0, Math.min(10, differences.size()))));
    assertTrue(highlighted > COUNT && withFields > COUNT, "the requests highlight and fetch something");
  }

  /**
   * Whether the two highlights differ only in fields whose fragments were chosen or ordered by score: ordered by
   * score ({@code order: score}), or as many fragments as {@code number_of_fragments} allows on either side (then
   * more matched, and the best by score were kept).
   */
  private static boolean scoreSelected(JsonNode request, JsonNode want, JsonNode got) {
    JsonNode h = request.path("highlight");
    List<String> names = new ArrayList<>();
    want.propertyNames().forEach(names::add);
    got.propertyNames().forEach(names::add);
    for (String name : names) {
      if (want.path(name).equals(got.path(name))) {
        continue;
      }
      JsonNode options = h.path("fields").path(name).isMissingNode() ? h.path("fields").path("*")
          : h.path("fields").path(name);
      boolean byScore = options.path("order").asString(h.path("order").asString("none")).equals("score");
      int fragments = options.path("number_of_fragments").asInt(h.path("number_of_fragments").asInt(5));
      boolean limited = fragments > 0 && (want.path(name).size() == fragments || got.path(name).size() == fragments);
      if (!byScore && !limited) {
        return false;
      }
    }
    return true;
  }

  /**
   * Over one shard ({@code shape-logs}): over several, the node fails only the shards whose hits it fetches and
   * answers 200 with those shards' failures, where the service refuses the request (docs/elasticsearch-api.md).
   */
  @Test
  void whatTheNodeRefusesIsRefusedAlike() throws Exception {
    for (String body : List.of(
        "{\"docvalue_fields\": [\"body\"]}",
        "{\"docvalue_fields\": [\"t*\"]}",
        "{\"docvalue_fields\": [\"*\"]}",
        "{\"docvalue_fields\": [\"_id\"]}",
        "{\"docvalue_fields\": [{\"field\": \"host\", \"format\": \"x\"}]}",
        "{\"fields\": [{\"field\": \"n\", \"format\": \"0.00\"}]}",
        "{\"fields\": [\"_seq_no\"]}",
        "{\"highlight\": {\"fields\": {\"body\": {\"bogus\": 1}}}}",
        "{\"highlight\": {\"fields\": [\"body\"]}}")) {
      HttpResponse<String> expected = send(node.uri(), "POST", "/shape-logs/_search", body);
      HttpResponse<String> actual = send(serviceUri, "POST", "/shape-logs/_search", body);
      JsonNode want = MAPPER.readTree(expected.body());
      JsonNode got = MAPPER.readTree(actual.body());
      assertEquals(400, expected.statusCode(), expected.body());
      assertEquals(expected.statusCode(), actual.statusCode(), body + ": " + actual.body());
      assertEquals(want.at("/error/type"), got.at("/error/type"), body + ": " + actual.body());
      assertEquals(want.at("/error/root_cause/0/type"), got.at("/error/root_cause/0/type"), body + ": " + actual.body());
      if (body.contains("[\"*\"]")) { // the node names the first metadata field it meets: _doc_count, or _routing
        assertTrue(got.at("/error/root_cause/0/reason").asString().startsWith("Fielddata is not supported on field ["),
            actual.body());
      } else if (want.at("/error/type").asString().equals("search_phase_execution_exception")) {
        assertEquals(want.at("/error/root_cause/0/reason"), got.at("/error/root_cause/0/reason"), body);
      }
    }
  }

  @Test
  void whatPermafrostDoesNotSupportIsRefusedByName() throws Exception {
    for (String[] c : new String[][] {
        {"{\"highlight\": {\"type\": \"plain\", \"fields\": {\"body\": {}}}}", "type [plain]"},
        {"{\"highlight\": {\"fields\": {\"body\": {\"type\": \"fvh\"}}}}", "type [fvh]"},
        {"{\"highlight\": {\"fields\": {\"body\": {\"no_match_size\": 20}}}}", "no_match_size [20]"},
        {"{\"highlight\": {\"tags_schema\": \"styled\", \"fields\": {\"body\": {}}}}", "[tags_schema]"},
        {"{\"highlight\": {\"fields\": {\"body\": {\"matched_fields\": [\"title\"]}}}}", "[matched_fields]"}}) {
      HttpResponse<String> r = send(serviceUri, "POST", "/shape-a/_search", c[0]);
      assertEquals(400, r.statusCode(), r.body());
      JsonNode error = MAPPER.readTree(r.body());
      assertEquals("illegal_argument_exception", error.at("/error/type").asText(), r.body());
      assertTrue(error.at("/error/reason").asText().contains(c[1]), r.body());
      assertEquals(400, error.path("status").asInt(), r.body());
    }
  }

  private static void ok(HttpResponse<String> response) {
    assertTrue(response.statusCode() / 100 == 2 && !response.body().contains("\"errors\":true"), response.body());
  }

  private static HttpResponse<String> send(URI base, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(2))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", path.contains("_bulk") ? "application/x-ndjson" : "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
