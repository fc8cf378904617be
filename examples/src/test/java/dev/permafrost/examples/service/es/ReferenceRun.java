/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends {@link ReferenceRequests} of some seeds to a node and to the service and sorts each into one of four
 * outcomes: <b>equal</b> ({@link EsResponses#assertSameScoredAnswer}), <b>refused as documented</b> (the request uses
 * a clause docs/elasticsearch-api.md lists as refused, and the service answers 400 naming it), <b>different</b>
 * (anything else: another answer, a refusal of a supported request, a supported answer to a refused one), and
 * <b>rejected by the node</b> (not a 200, or a 200 with failed shards: not a request a node accepts; dropped).
 * Writes a report of every difference and rejection with its seed and request, and what the requests covered.
 */
final class ReferenceRun {
  /** Sends one request ({@code POST path} with a JSON body) to one side and returns its status and body. */
  @FunctionalInterface
  interface Side {
    Answer send(String path, String body) throws Exception;
  }

  /** A status and the body that came with it. */
  record Answer(int status, String body) {}

  /** What one seed's requests came to. */
  record Tally(long seed, int requests, int equal, int refusedAsDocumented, List<String> differences,
      List<String> rejected, int withHits, int withBuckets, long millis) {
    String summary() {
      return String.format(Locale.ROOT, "seed %d: %d requests: %d equal, %d refused as documented, %d different,"
          + " %d rejected by the node (%d with hits, %d with buckets; %.1f s)", seed, requests, equal,
          refusedAsDocumented, differences.size(), rejected.size(), withHits, withBuckets, millis / 1000.0);
    }
  }

  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final int MESSAGE_CHARS = 1500;

  private final Side node;
  private final Side service;
  private final Map<String, Integer> coverage = new TreeMap<>();

  ReferenceRun(Side node, Side service) {
    this.node = node;
    this.service = service;
  }

  /** Runs the {@code count} requests of {@code seed}. */
  Tally run(long seed, int count) throws Exception {
    long started = System.nanoTime();
    int equal = 0;
    int refused = 0;
    int withHits = 0;
    int withBuckets = 0;
    List<String> differences = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    for (ReferenceRequests.Request r : ReferenceRequests.generate(seed, count)) {
      Answer expected = node.send(r.path(), r.body());
      String failedShards = expected.status() == 200 ? failedShards(expected) : null;
      if (expected.status() != 200 || failedShards != null) {
        rejected.add("REJECTED seed " + seed + " " + r + "\n  -> " + expected.status() + " "
            + (failedShards != null ? failedShards : reason(expected)));
        continue;
      }
      r.features().forEach(f -> coverage.merge(f, 1, Integer::sum));
      Answer actual = service.send(r.path(), r.body());
      String difference = null;
      if (r.refusedClause() != null) {
        if (actual.status() == 400 && reason(actual).contains(r.refusedClause())) {
          refused++;
          continue;
        }
        difference = "documented as refused (a 400 naming " + r.refusedClause() + "), answered " + actual.status()
            + (actual.status() == 200 ? "" : " " + reason(actual));
      } else if (actual.status() != 200) {
        difference = "the node answered 200, the service " + actual.status() + " " + reason(actual);
      } else {
        JsonNode answer = MAPPER.readTree(expected.body());
        JsonNode body = MAPPER.readTree(r.body());
        try {
          EsResponses.assertSameScoredAnswer("", answer, MAPPER.readTree(actual.body()), r.rankedByScore(),
              body.path("from").asInt(0), body.path("size").asInt(10));
          equal++;
        } catch (AssertionError e) {
          difference = e.getMessage().replaceFirst("^: ", "");
          if (difference.contains("_score ") || difference.contains("max_score ")) {
            difference += "\n  -> beyond scores: " + beyondScores(answer, MAPPER.readTree(actual.body()),
                r.rankedByScore());
          }
        }
        withHits += answer.at("/hits/hits").isEmpty() ? 0 : 1;
        withBuckets += expected.body().contains("\"doc_count\":") ? 1 : 0;
      }
      if (difference != null) {
        differences.add("DIFFERENT seed " + seed + " " + r + "\n  -> " + shorten(difference));
      }
    }
    return new Tally(seed, count, equal, refused, differences, rejected, withHits, withBuckets,
        (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * Where two answers that differ in their scores differ otherwise, or "equal": totals, aggregations, and the hits
   * of a request sorted on fields (sort values aside, since those may hold scores); the hits of one ranked by score
   * follow the scores, and are left out.
   */
  private static String beyondScores(JsonNode node, JsonNode service, boolean rankedByScore) {
    JsonNode a = node.deepCopy();
    JsonNode b = service.deepCopy();
    for (JsonNode answer : List.of(a, b)) {
      JsonNode hits = answer.path("hits").path("hits");
      if (rankedByScore && answer.path("hits").isObject()) {
        ((tools.jackson.databind.node.ObjectNode) answer.get("hits")).putArray("hits");
      }
      for (JsonNode hit : hits) {
        ((tools.jackson.databind.node.ObjectNode) hit).remove("sort");
      }
    }
    try {
      EsResponses.assertSameAnswer("", a, b);
      return "equal";
    } catch (AssertionError e) {
      return e.getMessage().replaceFirst("^: ", "");
    }
  }

  /** How many requests (accepted by the node) exercised each option, over every seed run so far. */
  Map<String, Integer> coverage() {
    return coverage;
  }

  /** Writes the tallies' summaries, differences, rejections and the coverage to {@code file}. */
  void report(List<Tally> tallies, Path file) throws IOException {
    StringBuilder out = new StringBuilder();
    for (Tally t : tallies) {
      out.append(t.summary()).append('\n');
    }
    for (Tally t : tallies) {
      for (String d : t.differences()) {
        out.append('\n').append(d).append('\n');
      }
    }
    for (Tally t : tallies) {
      for (String d : t.rejected()) {
        out.append('\n').append(d).append('\n');
      }
    }
    out.append("\nCOVERAGE (requests accepted by the node that exercise each option)\n");
    coverage.forEach((f, n) -> out.append(String.format(Locale.ROOT, "%7d  %s%n", n, f)));
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, out, StandardCharsets.UTF_8);
  }

  /** The first shard failure of a 200 answer that has some (a partial answer, as good as a refusal), or null. */
  private static String failedShards(Answer answer) {
    JsonNode shards = MAPPER.readTree(answer.body()).path("_shards");
    if (shards.path("failed").asInt(0) == 0) {
      return null;
    }
    JsonNode failure = shards.path("failures").path(0).path("reason");
    return shards.path("failed").asInt() + " shards failed: " + failure.path("type").asString("") + ": "
        + failure.path("reason").asString("");
  }

  private static String reason(Answer answer) {
    try {
      JsonNode error = MAPPER.readTree(answer.body()).path("error");
      JsonNode cause = error.path("root_cause").path(0);
      String type = error.path("type").asString("");
      String text = error.path("reason").asString("") + (cause.isMissingNode() ? ""
          : " [root cause " + cause.path("type").asString("") + ": " + cause.path("reason").asString("") + "]");
      return type + ": " + text;
    } catch (RuntimeException e) {
      return shorten(answer.body());
    }
  }

  private static String shorten(String s) {
    return s.length() <= MESSAGE_CHARS ? s : s.substring(0, MESSAGE_CHARS) + "... (" + s.length() + " chars)";
  }
}
