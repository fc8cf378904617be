/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The service's API over real HTTP, on the sample data. */
class SearchServiceTest extends SampleServiceTestBase {
  private static final String DAY1 = "logs-nginx-2024.02.01";
  private static final String DAY2 = "logs-nginx-2024.02.02";
  private static final String DAY3 = "logs-nginx-2024.02.03";

  @Test
  void theSampleIsMountedAtStartUp() throws Exception {
    JsonNode indices = http().get("/indices").ok();
    List<String> names = new ArrayList<>();
    indices.forEach(i -> names.add(i.get("name").asString()));
    assertTrue(names.containsAll(List.of(DAY1, DAY2, DAY3)), names.toString());
    JsonNode day2 = http().get("/indices/" + DAY2).ok();
    assertEquals(2000, day2.get("numDocs").asLong());
    assertEquals("shared_cache", day2.get("mode").asString());
    assertTrue(day2.get("timestampFrom").asString().startsWith("2024-02-02T"), day2.toString());
    assertTrue(http().get("/snapshots").ok().get("snapshots").toString().contains(DAY3));
  }

  @Test
  void aTimeRangeSkipsTheIndicesOutsideIt() throws Exception {
    JsonNode result = http().get("/indices/logs-nginx-*/search?q=GET&from=2024-02-02&to=2024-02-03&size=50").ok();
    assertEquals(List.of(DAY2), strings(result.get("indices").get("searched")));
    assertEquals(Set.of(DAY1, DAY3), new HashSet<>(strings(result.get("indices").get("skipped"))));
    long total = result.get("total").asLong();
    assertTrue(total > 0 && total < 2000, result.toString());
    assertEquals(50, result.get("hits").size());
    String previous = "9999";
    for (JsonNode hit : result.get("hits")) {
      assertEquals(DAY2, hit.get("index").asString());
      JsonNode source = hit.get("fields").get("_source");
      String timestamp = source.get("@timestamp").asString();
      assertTrue(timestamp.startsWith("2024-02-02T"), timestamp);
      assertTrue(timestamp.compareTo(previous) <= 0, "newest first: " + timestamp + " after " + previous);
      previous = timestamp;
      assertEquals("GET", source.get("http.request.method").asString());
    }
    JsonNode pages = http().get("/indices/logs-nginx-*/search?q=GET&from=2024-02-02&to=2024-02-03&size=20&page=2").ok();
    JsonNode top40 = http().get("/indices/logs-nginx-*/search?q=GET&from=2024-02-02&to=2024-02-03&size=40").ok();
    assertEquals(20, pages.get("hits").size());
    for (int i = 0; i < 20; i++) {
      assertEquals(top40.get("hits").get(20 + i).get("sort").toString(), pages.get("hits").get(i).get("sort").toString(),
          "page 2 of 20 is hits 20 to 39");
    }
    JsonNode all = http().get("/indices/logs-nginx-*/search?q=GET&size=1&sort=_score").ok();
    assertTrue(all.get("total").asLong() > total);
    JsonNode profiled = http().get("/indices/logs-nginx-*/search?q=GET&from=2024-02-02&to=2024-02-03&size=50&profile=true")
        .ok().get("cost");
    assertEquals(1, profiled.get("indicesSearched").asInt(), profiled.toString());
    assertEquals(2, profiled.get("skippedCanMatch").asInt(), profiled.toString());
    assertEquals(Set.of(DAY2), new HashSet<>(profiled.get("perIndex").propertyNames()), profiled.toString());
    assertTrue(profiled.get("bytesFromCache").asLong() > 0, profiled.toString());
    JsonNode timed = http().get("/indices/logs-nginx-*/search?q=GET&from=2024-02-02&to=2024-02-03&size=50&timeout=1m").ok();
    assertFalse(timed.get("timedOut").asBoolean(), timed.toString());
    assertEquals(List.of(), strings(timed.get("indices").get("timedOut")));
    assertEquals(total, timed.get("total").asLong(), "a timeout it does not reach changes nothing");
  }

  @Test
  void theHistogramCountsWhatTheSearchFinds() throws Exception {
    String q = "http.response.status_code:404";
    JsonNode histogram = http().get("/indices/logs-nginx-*/histogram?q=" + q + "&interval=1d").ok();
    JsonNode buckets = histogram.get("buckets");
    assertEquals(3, buckets.size(), histogram.toString());
    assertEquals("2024-02-01T00:00:00Z", buckets.get(0).get("time").asString());
    assertEquals(86_400_000L, histogram.get("intervalMillis").asLong());
    long sum = 0;
    for (JsonNode b : buckets) {
      assertTrue(b.get("count").asLong() > 0, histogram.toString());
      sum += b.get("count").asLong();
    }
    // by score, every index is searched and the total is exact (newest first stops at the indices that cannot compete)
    JsonNode counted = http().get("/indices/logs-nginx-*/search?q=" + q + "&size=1&sort=_score").ok();
    assertEquals("eq", counted.get("totalRelation").asString());
    assertEquals(counted.get("total").asLong(), sum);
    assertEquals(sum, histogram.get("total").asLong());

    JsonNode day = http().get("/indices/logs-nginx-*/histogram?q=" + q + "&from=2024-02-03&to=2024-02-04").ok();
    assertEquals(List.of(DAY3), strings(day.get("indices").get("searched")));
    assertEquals(buckets.get(2).get("count").asLong(), day.get("total").asLong(), () -> histogram + "\n" + day);
    assertTrue(day.get("buckets").size() > 1, "auto picks an interval shorter than the day");
  }

  @Test
  void aColdSearchFetchesAndChangesTheCacheStatsAndTheSameSearchWarmDoesNot() throws Exception {
    http().put("/indices/cold-day", "{\"snapshot\":\"" + DAY1 + "\"}");
    try {
      http().awaitCacheIdle(); // a region a fill is writing survives the clear
      http().post("/cache/clear", null).ok();
      JsonNode before = http().get("/cache/stats").ok().get("total");
      String search = "/indices/cold-day/search?q=POST&size=100";
      JsonNode cold = http().get(search).ok();
      assertTrue(cold.get("cache").get("bytesFetched").asLong() > 0, cold.get("cache").toString());
      assertTrue(cold.get("cache").get("misses").asLong() > 0, cold.get("cache").toString());
      assertTrue(cold.get("cost").get("storeRequests").asLong() > 0, cold.get("cost").toString());
      // the cold search may return while a fill it started still runs: wait for it, so that it lands here and not in
      // the warm search's deltas of the cache's (global) counters
      JsonNode after = http().awaitCacheIdle().get("total");
      assertTrue(after.get("bytesFetched").asLong() > before.get("bytesFetched").asLong());
      assertTrue(after.get("fetches").asLong() > before.get("fetches").asLong());
      assertTrue(after.get("misses").asLong() > before.get("misses").asLong());

      JsonNode warm = http().get(search).ok();
      assertEquals(cold.get("total"), warm.get("total"));
      assertEquals(0, warm.get("cost").get("storeRequests").asLong(), "its own cost: " + warm.get("cost"));
      assertEquals(0, warm.get("cost").get("bytesFetched").asLong(), "its own cost: " + warm.get("cost"));
      // and, nothing else running, the cache's counters moved for it alone
      assertEquals(0, warm.get("cache").get("bytesFetched").asLong(), warm.get("cache").toString());
      assertTrue(warm.get("cache").get("hits").asLong() > 0, warm.get("cache").toString());
      assertEquals(1.0, warm.get("cache").get("hitRatio").asDouble(), warm.get("cache").toString());
    } finally {
      http().delete("/indices/cold-day");
    }
  }

  @Test
  void badQuerySyntaxIsA400ProblemWithTheParsersMessage() throws Exception {
    JsonNode problem = http().get("/indices/logs-nginx-*/search?q=status:(GET").problem(400);
    assertEquals("Bad query", problem.get("title").asString());
    assertTrue(problem.get("detail").asString().contains("cannot parse query 'status:(GET'"), problem.toString());
    assertEquals("/indices/logs-nginx-*/search", problem.get("instance").asString());
    assertEquals("Bad query",
        http().get("/indices/logs-nginx-*/histogram?q=AND").problem(400).get("title").asString());
  }

  @Test
  void pathsTomcatRefusesAreProblemsToo() throws Exception {
    for (String path : new String[] {"/indices/..%2F..%2Fetc/search", "/indices/a%5Cb/search"}) {
      Http.Answer answer = http().get(path);
      JsonNode problem = answer.problem(400);
      assertTrue(problem.get("detail").asString().contains("malformed"), answer.body());
      assertFalse(answer.body().contains("<html") || answer.body().contains("Apache Tomcat"), answer.body());
    }
  }

  @Test
  void anUnknownIndexIsA404Problem() throws Exception {
    JsonNode problem = http().get("/indices/no-such-index/search?q=GET").problem(404);
    assertEquals("Unknown index", problem.get("title").asString());
    assertEquals("no index named 'no-such-index' is mounted", problem.get("detail").asString());
    http().get("/indices/logs-nginx-*,no-such-index/histogram").problem(404);
    http().delete("/indices/no-such-index").problem(404);
    http().get("/indices/no-such-index").problem(404);
    JsonNode snapshot = http().put("/indices/ghost", "{\"snapshot\":\"no-such-snapshot\"}").problem(404);
    assertEquals("Unknown snapshot", snapshot.get("title").asString());
    assertTrue(snapshot.get("detail").asString().contains("no-such-snapshot"), snapshot.toString());
    assertEquals(0, http().get("/indices/nothing-*/search").ok().get("total").asLong(), "a pattern may match nothing");
  }

  @Test
  void badParametersAre400Problems() throws Exception {
    String[] bad = {
      "/indices/logs-nginx-*/search?size=0",
      "/indices/logs-nginx-*/search?size=100000",
      "/indices/logs-nginx-*/search?size=many",
      "/indices/logs-nginx-*/search?from=yesterday",
      "/indices/logs-nginx-*/search?from=2024-02-03&to=2024-02-02",
      "/indices/logs-nginx-*/search?sort=message",
      "/indices/logs-nginx-*/search?sort=@timestamp:sideways",
      "/indices/logs-nginx-*/histogram?interval=soon",
      "/indices/logs-nginx-*/histogram?interval=1s",
      "/indices/logs-nginx-*/search?timeout=soon",
      "/indices/logs-nginx-*/search?size=100&page=6",
      "/indices/logs-nginx-*/search?page=0",
      "/indices/logs-nginx-*/search?timeout=0s",
      "/indices/logs-nginx-*/histogram?timeout=-1s",
    };
    for (String path : bad) {
      JsonNode problem = http().get(path).problem(400);
      assertFalse(problem.get("detail").asString().isBlank(), path);
    }
    assertTrue(http().get("/indices/logs-nginx-*/histogram?interval=1s").problem(400).get("detail").asString()
        .contains("permafrost.search.max-buckets"));
    assertEquals("Bad parameter", http().put("/indices/x", "{\"mode\":\"frozen\"}").problem(400).get("title").asString());
    http().put("/indices/-bad-name", "{\"snapshot\":\"" + DAY1 + "\"}").problem(400);
    http().put("/indices/x", "{not json").problem(400);
  }

  @Test
  void mountSearchAndUnmount() throws Exception {
    Http.Answer mounted = http().put("/indices/extra", "{\"snapshot\":\"" + DAY3 + "\",\"mode\":\"shared_cache\"}");
    assertEquals(201, mounted.status(), mounted.body());
    assertEquals(DAY3, mounted.json().get("snapshot").asString());
    assertEquals("Already mounted", http().put("/indices/extra", "{\"snapshot\":\"" + DAY3 + "\"}").problem(409)
        .get("title").asString());
    JsonNode result = http().get("/indices/extra/search?q=GET&size=5&sort=_score").ok();
    assertTrue(result.get("total").asLong() > 0);
    assertTrue(result.get("hits").get(0).get("score").asDouble() > 0, "sorted by score");
    assertEquals(List.of("extra"), strings(result.get("indices").get("searched")));

    assertEquals("extra", http().delete("/indices/extra").ok().get("unmounted").asString());
    List<String> names = new ArrayList<>();
    http().get("/indices").ok().forEach(i -> names.add(i.get("name").asString()));
    assertFalse(names.contains("extra"), names.toString());
    http().get("/indices/extra/search").problem(404);
  }

  @Test
  void metricsAndTheRepositorysHealthAreInActuator() throws Exception {
    http().get("/indices/logs-nginx-*/search?q=GET").ok();
    // the binder reads the cache's stats at most once a second (statsMaxAge): a reading may lag by that much
    // (polled for up to 60 s, a bound that only turns a hang into a failure)
    JsonNode gets = http().get("/actuator/metrics/cache.gets?tag=cache:permafrost").ok();
    for (int i = 0; i < 600 && gets.get("measurements").get(0).get("value").asDouble() == 0; i++) {
      Thread.sleep(100);
      gets = http().get("/actuator/metrics/cache.gets?tag=cache:permafrost").ok();
    }
    assertTrue(gets.get("measurements").get(0).get("value").asDouble() > 0, gets.toString());
    assertTrue(gets.toString().contains("\"hit\"") && gets.toString().contains("\"miss\""), gets.toString());
    JsonNode searches = http().get("/actuator/metrics/permafrost.catalog.searches").ok();
    assertTrue(searches.get("measurements").get(0).get("value").asDouble() >= 1, searches.toString());
    for (String meter : List.of("cache.puts", "cache.evictions", "cache.size", "permafrost.cache.fetched",
        "permafrost.cache.direct.reads", "permafrost.cache.fills.in.flight", "permafrost.catalog.readers.open",
        "permafrost.catalog.reader.opens", "permafrost.catalog.lease.wait")) {
      http().get("/actuator/metrics/" + meter).ok();
    }
    assertTrue(http().get("/actuator/metrics/permafrost.catalog.mounted").ok().get("measurements").get(0).get("value")
        .asDouble() >= 3);
    JsonNode health = http().get("/actuator/health/repository").ok();
    assertEquals("UP", health.get("status").asString());
    assertTrue(health.get("details") == null, "no details for an anonymous caller: " + health);
    String all = http().get("/actuator/health").body();
    assertTrue(all.contains("\"repository\"") && !all.contains(HOME.toString()) && !all.contains("details"),
        "the components' statuses, and no local path: " + all);
  }

  @Test
  void aSnapshotOfASourceReportsProgressAndCanBeMounted() throws Exception {
    Http.Answer accepted = http().post("/snapshots", "{\"source\":\"" + DAY2 + "\",\"snapshot\":\"day2-again\"}");
    assertEquals(202, accepted.status(), accepted.body());
    JsonNode task = awaitTask("day2-again");
    assertEquals("DONE", task.get("state").asString(), task.toString());
    JsonNode progress = task.get("progress");
    assertEquals(progress.get("filesTotal").asInt(), progress.get("filesDone").asInt());
    assertEquals(0, progress.get("filesUploaded").asInt(), "every file is in the repository already: " + progress);
    assertTrue(http().get("/snapshots").ok().get("snapshots").toString().contains("day2-again"));
    assertEquals(2000, http().get("/snapshots/day2-again").ok().get("numDocs").asLong());
    assertEquals("Snapshot exists", http().post("/snapshots", "{\"source\":\"" + DAY2 + "\",\"snapshot\":\"day2-again\"}")
        .problem(409).get("title").asString());
    assertEquals("Bad parameter", http().post("/snapshots", "{\"source\":\"/etc\"}").problem(400).get("title").asString());

    // an increment of the snapshot just taken: its checksums, no file of it read again, and it mounts and searches
    assertEquals(202, http().post("/snapshots", "{\"source\":\"" + DAY2 + "\",\"snapshot\":\"day2-third\","
        + "\"basedOn\":\"day2-again\"}").status());
    JsonNode based = awaitTask("day2-third");
    assertEquals("DONE", based.get("state").asString(), based.toString());
    assertEquals(0, based.get("progress").get("filesUploaded").asInt(), based.toString());
    assertEquals(2000, http().get("/snapshots/day2-third").ok().get("numDocs").asLong());
    assertEquals(201, http().put("/indices/day2-third", "{}").status());
    long total = http().get("/indices/day2-third/search?q=*&size=1").ok().get("total").asLong();
    assertTrue(total > 0, "the increment's documents are found");
    assertEquals(http().get("/indices/" + DAY2 + "/search?q=*&size=1").ok().get("total").asLong(), total);
    JsonNode noBase = http().post("/snapshots", "{\"source\":\"" + DAY2 + "\",\"snapshot\":\"day2-fourth\","
        + "\"basedOn\":\"no-such-day\"}").problem(400);
    assertTrue(noBase.get("detail").asString().contains("'no-such-day'"), noBase.toString());
  }

  @Test
  void aCorruptBlobIsA500NamingTheSnapshotAndTheFile() throws Exception {
    Path blobs = HOME.resolve("repository").resolve("blobs");
    Set<Path> before = listBlobs(blobs);
    assertEquals(202, http().post("/snapshots", "{\"source\":\"private\"}").status());
    assertEquals("DONE", awaitTask("private").get("state").asString());
    assertEquals(201, http().put("/indices/private", "{}").status());
    assertTrue(http().get("/indices/private/search?q=w17&size=5").ok().get("total").asLong() > 0);

    int damaged = 0;
    for (Path blob : listBlobs(blobs)) {
      if (!before.contains(blob) && !blob.getFileName().toString().contains(".crc32c") && Files.size(blob) > 4096) {
        for (long at = 100; at < Files.size(blob) - 16; at += 4096) { // every chunk of the checksum table
          flipByte(blob, at);
        }
        damaged++;
      }
    }
    assertTrue(damaged > 0, "the private snapshot has blobs of its own");
    http().awaitCacheIdle(); // a region a fill is writing survives the clear, with the bytes from before the damage
    http().post("/cache/clear", null).ok();
    JsonNode problem = http().get("/indices/private/search?q=*&size=500").problem(500);
    assertEquals("Corrupt data", problem.get("title").asString());
    String detail = problem.get("detail").asString();
    assertTrue(detail.contains("'private'"), "names the snapshot: " + detail);
    assertTrue(detail.matches("(?s).*\\b_\\w+\\.\\w+\\b.*"), "names the Lucene file: " + detail);
  }

  private JsonNode awaitTask(String name) throws Exception {
    for (int i = 0; i < 600; i++) {
      JsonNode task = http().get("/snapshots/tasks/" + name).ok();
      String state = task.get("state").asString();
      if (state.equals("DONE") || state.equals("FAILED")) {
        return task;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("snapshot " + name + " did not finish");
  }

  private static Set<Path> listBlobs(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return new HashSet<>(files.filter(Files::isRegularFile).toList());
    }
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      channel.read(b, position);
      b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
      channel.write(b, position);
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(n -> values.add(n.asString()));
    return values;
  }
}
