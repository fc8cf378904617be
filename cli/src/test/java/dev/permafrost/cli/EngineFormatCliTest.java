/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.opensearch.fixture.OpenSearchFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersIndexOutput;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code list}, {@code info} and {@code search} with {@code --format opensearch} (and {@code elasticsearch}), run in
 * process against the snapshots a real OpenSearch 3.2 node wrote ({@link OpenSearchFixture}: snapshots snap-1 and
 * snap-2 of indices logs-a and logs-b, two shards each, with the node's own answers to its queries): what the command
 * line prints must be what the node answered.
 */
class EngineFormatCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  static Path fixture;
  static String repo;
  static JsonNode answers;
  static JsonNode queries;

  @BeforeAll
  static void fixture() throws Exception {
    fixture = OpenSearchFixture.ensure();
    repo = fixture.resolve("repo").toUri().toString();
    answers = JSON.readTree(fixture.resolve("answers.json").toFile());
    queries = JSON.readTree(fixture.resolve("queries.json").toFile());
  }

  private static Cli.Run ok(String... args) {
    Cli.Run run = Cli.run(args);
    assertEquals(0, run.code(), run.toString());
    return run;
  }

  private static Cli.Run fails(int code, String... args) {
    Cli.Run run = Cli.run(args);
    assertEquals(code, run.code(), run.toString());
    assertEquals("", run.out(), "nothing on stdout: " + run);
    return run;
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  @Test
  void listShowsEachIndexOfEachSnapshotOldestFirst() {
    assertEquals("snap-1/logs-a\nsnap-1/logs-b\nsnap-2/logs-a\nsnap-2/logs-b\n",
        ok("list", "--format", "opensearch", repo).out().replace("\r\n", "\n"));
    assertEquals(ok("list", "--format", "opensearch", repo).out(), ok("list", "--format=ELASTICSEARCH", repo).out(),
        "both names read the same layout, in any case");

    List<String> lines = ok("list", "-l", "--format", "elasticsearch", repo).out().lines().toList();
    assertEquals(4, lines.size(), lines.toString());
    for (String line : lines) {
      String index = line.substring(line.indexOf('/') + 1, line.indexOf(' '));
      int shards = answers.path("indices").path(index).path("shards").asInt();
      assertTrue(shards > 0, index);
      assertTrue(line.contains(" " + shards + " shards "), line);
      assertTrue(line.matches(".* 20\\d\\d-\\d\\d-\\d\\dT.* \\d+ files +[0-9.]+ [KM]iB"), line);
    }
    assertTrue(lines.get(0).startsWith("snap-1/logs-a "), lines.toString());
    assertTrue(lines.get(3).startsWith("snap-2/logs-b "), lines.toString());
  }

  @Test
  void infoShowsASnapshotsIndicesWithTheirShardsAndUuids() {
    Cli.Run info = ok("info", "--format", "opensearch", repo, "snap-1");
    assertTrue(info.out().contains("indices:      2"), info.toString());
    for (String index : List.of("logs-a", "logs-b")) {
      JsonNode expected = answers.path("indices").path(index);
      String line = info.out().lines().filter(l -> l.startsWith(index + " ")).findFirst()
          .orElseThrow(() -> new AssertionError(index + " is not listed: " + info));
      assertTrue(line.matches(index + " +" + expected.path("shards").asInt() + " +"
          + Pattern.quote(expected.path("uuid").asText()) + " +20\\d\\d-.*Z"), line);
    }
  }

  @Test
  void infoShowsAnIndexsShardsUuidAndMappedFieldTypes() throws IOException {
    Cli.Run info = ok("info", "--format", "opensearch", repo, "snap-2/logs-a");
    JsonNode expected = answers.path("indices").path("logs-a");
    assertTrue(info.out().contains("uuid:         " + expected.path("uuid").asText() + "\n"), info.toString());
    assertTrue(info.out().contains("shards:       " + expected.path("shards").asInt() + ", "), info.toString());
    for (int shard = 0; shard < expected.path("shards").asInt(); shard++) {
      int s = shard;
      assertTrue(info.out().lines().anyMatch(l -> l.matches(s + " +20\\d\\d-.*Z +\\d+ +[\\d,]+ +\\d+ +10\\.2\\.2")),
          "shard " + shard + ", written by OpenSearch 3.2's Lucene 10.2.2: " + info);
    }
    // the types the fixture's node was given (FixtureMain), as the snapshot recorded them
    String[][] types = {{"seq", "long"}, {"@timestamp", "date"}, {"host", "keyword"}, {"status", "long"},
        {"level", "keyword"}, {"message", "text, analyzer standard"}, {"message.raw", "keyword"}, {"tags", "keyword"},
        {"user.name", "keyword, in nested object user"}, {"user.age", "long, in nested object user"}};
    for (String[] type : types) {
      assertTrue(info.out().lines().anyMatch(l -> l.matches(Pattern.quote(type[0]) + " +"
          + Pattern.quote(type[1]) + ".*")), type[0] + " is a " + type[1] + ": " + info);
    }
    try (var store = FileSystemBlobStore.open(fixture.resolve("repo"), false)) {
      IndexMapping mapping = EngineSnapshotRepository.open(store).indexMetadata("snap-2", "logs-a").mapping();
      long fieldLines = info.out().lines().dropWhile(l -> !l.startsWith("FIELD ")).skip(1).count();
      assertEquals(mapping.fields().size(), fieldLines, "every mapped field, once: " + info);
    }
  }

  @Test
  void searchAnswersEveryQueryAsTheNodeDid() throws IOException {
    int compared = 0;
    for (String snapshot : List.of("snap-1", "snap-2")) {
      for (JsonNode q : queries) {
        String indices = q.get("indices").asText();
        String pattern = snapshot + "/" + (indices.contains(",") ? "logs-*" : indices);
        Cli.Run run = ok("search", "--format", "opensearch", "--exact-total", "--sort", "seq:desc", "-f", "_source",
            repo, pattern, q.get("query_string").asText());
        JsonNode expected = answers.path("snapshots").path(snapshot).path(q.get("id").asText());
        int indexCount = indices.split(",").length;
        assertTrue(run.out().endsWith("total: " + count(expected.path("total").asLong()) + " hit"
            + (expected.path("total").asLong() == 1 ? "" : "s") + " in " + indexCount + (indexCount == 1 ? " index"
            : " indices") + " (" + 2 * indexCount + " shards)\n"), pattern + " " + q + ": " + run);
        List<String> ids = new ArrayList<>();
        long previous = Long.MAX_VALUE;
        for (String line : run.out().lines().filter(l -> !l.startsWith("total: ")).toList()) {
          String[] columns = line.split("\t");
          assertTrue(columns[0].startsWith(snapshot + "/logs-") && columns[1].matches("shard=[01]"), line);
          assertTrue(columns[2].startsWith("_id="), line);
          ids.add(columns[2].substring("_id=".length()));
          long seq = Long.parseLong(columns[3].substring("seq=".length()));
          assertTrue(seq <= previous, "sorted by seq, descending: " + run);
          previous = seq;
          JsonNode source = JSON.readTree(columns[4].substring("_source=".length()));
          assertEquals(seq, source.get("seq").asLong(), "the _source is the hit's own: " + line);
        }
        List<String> expectedIds = new ArrayList<>();
        expected.path("ids").forEach(id -> expectedIds.add(id.asText()));
        assertEquals(expectedIds, ids, pattern + " " + q);
        compared++;
      }
    }
    assertTrue(compared >= 40, "compared " + compared);
  }

  @Test
  void searchCountsAsForPermafrostSnapshots() {
    long all = answers.path("snapshots").path("snap-1").path("all").path("total").asLong();
    Cli.Run bounded = ok("search", "--format", "opensearch", repo, "snap-1", "seq:[0 TO *]");
    assertTrue(bounded.out().contains("total: at least ") && bounded.out().contains(" hits (a lower bound; --exact-total"
        + " counts them all) in 2 indices (4 shards)"), "1,000 counted per shard, as per Permafrost index: " + bounded);
    assertEquals(10, bounded.out().lines().filter(l -> l.startsWith("snap-1/logs-")).count(), "10 hits by default");
    assertTrue(bounded.out().lines().filter(l -> l.startsWith("snap-1/")).allMatch(l -> l.contains("\tscore=")),
        "by score unless sorted: " + bounded);
    Cli.Run exact = ok("search", "--format", "opensearch", "--exact-total", "--timeout", "1m", "-n", "3", repo,
        "snap-1", "*");
    assertTrue(exact.out().endsWith("total: " + count(all) + " hits in 2 indices (4 shards)\n"), exact.toString());
    assertEquals(3, exact.out().lines().filter(l -> l.startsWith("snap-1/logs-")).count(), exact.toString());

    // dates sort as the mapping says and print as instants; a keyword sorts as text
    Cli.Run byTime = ok("search", "--format", "opensearch", "-n", "5", "--sort", "@timestamp:asc", repo, "snap-2/logs-b",
        "host:web-03");
    List<String> times = byTime.out().lines().filter(l -> l.startsWith("snap-2/")).map(l -> l.split("\t")[3]).toList();
    assertEquals(5, times.size(), byTime.toString());
    assertTrue(times.stream().allMatch(t -> t.matches("@timestamp=2024-01-\\d\\dT.*Z")), times.toString());
    assertEquals(times.stream().sorted().toList(), times, "ascending: " + byTime);
    List<String> down = hosts(ok("search", "--format", "opensearch", "-n", "40", "--sort", "host:desc", repo,
        "snap-2/logs-*", "status:404"));
    List<String> up = hosts(ok("search", "--format", "opensearch", "-n", "40", "--sort", "host", repo, "snap-2/logs-*",
        "status:404"));
    assertEquals(40, down.size(), down.toString());
    assertEquals(down.stream().sorted(Comparator.reverseOrder()).toList(), down, "descending");
    assertEquals(up.stream().sorted().toList(), up, "ascending by default");
    assertTrue(down.get(0).compareTo(up.get(0)) > 0, "the greatest host first, then the least: " + down + " " + up);
  }

  private static List<String> hosts(Cli.Run run) {
    return run.out().lines().filter(l -> !l.startsWith("total: ")).map(l -> l.split("\t")[3]).peek(
        h -> assertTrue(h.startsWith("host="), h)).toList();
  }

  @Test
  void searchNoticesAFieldNoIndexMaps() {
    Cli.Run run = ok("search", "--format", "opensearch", repo, "snap-1/logs-a", "hots:web-03");
    assertTrue(run.out().startsWith("total: 0 hits in 1 index (2 shards)"), run.toString());
    assertTrue(run.err().contains("no index searched maps field 'hots'"), run.toString());
  }

  @Test
  void badInputFailsNamingWhatIsAtFault() {
    Cli.Run format = fails(2, "list", "--format", "solr", repo);
    assertTrue(format.err().contains("unknown format 'solr'") && format.err().contains("opensearch"), format.toString());
    assertTrue(format.err().contains("Try 'permafrost list --help'"), format.toString());

    Cli.Run snapshot = fails(1, "search", "--format", "opensearch", repo, "snap-9/logs-a", "host:web-03");
    assertTrue(snapshot.err().startsWith("permafrost search: no snapshot 'snap-9' in opensearch repository " + repo),
        snapshot.toString());
    assertTrue(snapshot.err().contains("[snap-1, snap-2]"), "the snapshots there are: " + snapshot);
    Cli.Run infoSnapshot = fails(1, "info", "--format", "opensearch", repo, "snap-9");
    assertTrue(infoSnapshot.err().contains("no snapshot 'snap-9' in opensearch repository "), infoSnapshot.toString());
    Cli.Run glob = fails(1, "search", "--format", "opensearch", repo, "daily-*", "host:web-03");
    assertTrue(glob.err().contains("no snapshot in opensearch repository " + repo + " matches 'daily-*'"), glob.toString());

    Cli.Run index = fails(1, "info", "--format", "opensearch", repo, "snap-1/logs-z");
    assertTrue(index.err().contains("snapshot 'snap-1' has no index 'logs-z' in opensearch repository " + repo
        + " (it has logs-a, logs-b)"), index.toString());
    Cli.Run noIndex = fails(1, "search", "--format", "elasticsearch", repo, "snap-*/metrics-*", "host:web-03");
    assertTrue(noIndex.err().contains("no index in 2 snapshots matching 'snap-*' matches 'metrics-*'"), noIndex.toString());
    Cli.Run infoGlob = fails(2, "info", "--format", "opensearch", repo, "snap-*");
    assertTrue(infoGlob.err().contains("not a glob: 'snap-*'"), infoGlob.toString());

    Cli.Run unfielded = fails(2, "search", "--format", "opensearch", repo, "snap-1/logs-a", "timeout");
    assertTrue(unfielded.err().contains("has a term without a field"), unfielded.toString());
    Cli.Run nested = fails(2, "search", "--format", "opensearch", repo, "snap-1/logs-a", "user.name:bob");
    assertTrue(nested.err().contains("field 'user.name' is inside nested object 'user'"), nested.toString());
    Cli.Run sortText = fails(2, "search", "--format", "opensearch", "--sort", "message", repo, "snap-1", "host:web-03");
    assertTrue(sortText.err().contains("cannot sort on 'message' of type 'text'"), sortText.toString());
    Cli.Run sortSyntax = fails(2, "search", "--format", "opensearch", "--sort", "seq:down", repo, "snap-1", "*");
    assertTrue(sortSyntax.err().contains("FIELD, FIELD:asc or FIELD:desc, got 'seq:down'"), sortSyntax.toString());

    Cli.Run defaultField = fails(2, "search", "--format", "opensearch", "--default-field", "message", repo, "snap-1",
        "timeout");
    assertTrue(defaultField.err().contains("--default-field is not for --format opensearch"), defaultField.toString());
    Cli.Run sortPermafrost = fails(2, "search", "--sort", "seq", repo, "snap-*", "*");
    assertTrue(sortPermafrost.err().contains("cannot sort on 'seq': no index searched maps it (a Permafrost snapshot"
        + " records no mapping: give one with --mapping)"), sortPermafrost.toString());
    Cli.Run basePath = fails(2, "list", "--base-path", "prod", repo);
    assertTrue(basePath.err().contains("--base-path is for --format opensearch or elasticsearch"), basePath.toString());
  }

  @Test
  void eachFormatPointsAtTheOtherWhereItFindsNoneOfItsOwn() throws IOException {
    Cli.Run permafrostList = ok("list", repo);
    assertEquals("", permafrostList.out());
    assertTrue(permafrostList.err().contains("no Permafrost snapshot in " + repo + "; it holds an OpenSearch or"
        + " Elasticsearch snapshot repository: add --format opensearch"), permafrostList.toString());
    Cli.Run permafrostSearch = fails(1, "search", repo, "snap-*", "*");
    assertTrue(permafrostSearch.err().contains("add --format opensearch"), permafrostSearch.toString());
    Cli.Run permafrostInfo = fails(1, "info", repo, "snap-1");
    assertTrue(permafrostInfo.err().contains("no snapshot 'snap-1'") && permafrostInfo.err().contains(
        "add --format opensearch"), permafrostInfo.toString());

    Path index = tmp.resolve("index");
    LogIndexes.write(index, 0, 100, 7);
    String permafrostRepo = tmp.resolve("permafrost-repo").toUri().toString();
    ok("snapshot", "-q", index.toString(), permafrostRepo, "day-1");
    Cli.Run engineList = fails(1, "list", "--format", "opensearch", permafrostRepo);
    assertTrue(engineList.err().contains("no Elasticsearch or OpenSearch snapshot repository in")
        && engineList.err().contains("it holds Permafrost snapshots: leave --format out"), engineList.toString());
  }

  /**
   * A repository written with a base path, its shard paths hashed (as OpenSearch 3.2 writes them): the metadata under
   * {@code prod/}, the shards' directories at the bucket's root. Only {@code --base-path} reads it.
   */
  @Test
  void aBasePathReadsShardsHashedOutsideIt() throws IOException {
    Path bucket = tmp.resolve("bucket");
    Path source = fixture.resolve("repo");
    try (Stream<Path> top = Files.list(source)) {
      for (Path p : top.toList()) {
        String name = p.getFileName().toString();
        boolean metadata = !Files.isDirectory(p) || name.equals("indices") || name.equals("snapshot_shard_paths");
        copy(p, (metadata ? bucket.resolve("prod") : bucket).resolve(name));
      }
    }
    String uri = bucket.toUri().toString();
    long expected = answers.path("snapshots").path("snap-2").path("level").path("total").asLong();
    Cli.Run run = ok("search", "--format", "opensearch", "--base-path", "prod", "--exact-total", uri, "snap-2/logs-b",
        "level:error");
    assertTrue(run.out().endsWith("total: " + count(expected) + " hits in 1 index (2 shards)\n"), run.toString());

    Cli.Run noBase = fails(1, "list", "--format", "opensearch", uri);
    assertTrue(noBase.err().contains("neither index.latest nor any index-N at its root"), noBase.toString());
    Cli.Run atBase = Cli.run("search", "--format", "opensearch", bucket.resolve("prod").toUri().toString(),
        "snap-2/logs-b", "level:error");
    assertEquals(1, atBase.code(), "the shards are outside the base path: " + atBase);
  }

  /**
   * Indices that map a field differently are searched together, each by its own mapping, as the engine searches
   * them; only a sort on that field, which must mean one thing for all, fails naming the types. The fixture's indices
   * map alike, so logs-b's metadata is rewritten in a copy of the repository with {@code status} a keyword (the rest,
   * shards included, as the node wrote it): logs-a still answers {@code status:404} from its points, and the total is
   * logs-a's alone.
   */
  @Test
  void aFieldMappedDifferentlyIsReadByEachIndexsOwnMapping() throws IOException {
    Path copy = tmp.resolve("remapped");
    copy(fixture.resolve("repo"), copy);
    JsonNode root = JSON.readTree(copy.resolve("index-" + ByteBuffer.wrap(
        Files.readAllBytes(copy.resolve("index.latest"))).getLong()).toFile());
    Path metaDir = copy.resolve("indices").resolve(root.path("indices").path("logs-b").path("id").asText());
    List<Path> metas;
    try (Stream<Path> files = Files.list(metaDir)) {
      metas = files.filter(p -> p.getFileName().toString().startsWith("meta-")).toList();
    }
    assertFalse(metas.isEmpty(), "logs-b's metadata in " + metaDir);
    String json = """
        {"logs-b": {"settings": {"index": {"number_of_shards": "2", "uuid": "remapped"}},
          "mappings": {"_doc": {"properties": {"seq": {"type": "long"}, "host": {"type": "keyword"},
            "status": {"type": "keyword"}}}}}}""";
    for (Path meta : metas) {
      Files.write(meta, metadataBlob(json));
    }
    String uri = copy.toUri().toString();
    Cli.Run both = ok("search", "--format", "opensearch", "--exact-total", uri, "snap-1/logs-*", "status:404");
    Cli.Run logsA = ok("search", "--format", "opensearch", "--exact-total", uri, "snap-1/logs-a", "status:404");
    String totalA = logsA.out().lines().filter(l -> l.startsWith("total: ")).findFirst().orElseThrow();
    assertTrue(totalA.matches("total: [1-9][0-9,]* hits? in 1 index \\(2 shards\\)"), logsA.toString());
    assertTrue(both.out().contains(totalA.substring(0, totalA.indexOf(" in ")) + " in 2 indices (4 shards)"),
        "logs-b reads status:404 as a keyword over long points: nothing; logs-a as a long: " + both + logsA);
    Cli.Run sortConflict = fails(2, "search", "--format", "opensearch", "--sort", "status", uri, "snap-2/logs-*",
        "host:web-03");
    assertTrue(sortConflict.err().contains("cannot sort on 'status': the indices searched map it as long and keyword"),
        sortConflict.toString());

    long host = answers.path("snapshots").path("snap-1").path("host").path("total").asLong();
    Cli.Run alike = ok("search", "--format", "opensearch", "--exact-total", uri, "snap-1/logs-*", "host:web-03");
    assertTrue(alike.out().endsWith("total: " + count(host) + " hits in 2 indices (4 shards)\n"),
        "fields mapped alike are searched together: " + alike);
    Cli.Run info = ok("info", "--format", "opensearch", uri, "snap-1/logs-b");
    assertTrue(info.out().lines().anyMatch(l -> l.matches("status +keyword")), info.toString());
  }

  /** An engine's metadata blob: a Lucene codec header, JSON content and a Lucene footer. */
  private static byte[] metadataBlob(String json) throws IOException {
    ByteBuffersDataOutput bytes = new ByteBuffersDataOutput();
    try (ByteBuffersIndexOutput out = new ByteBuffersIndexOutput(bytes, "meta", "meta")) {
      CodecUtil.writeHeader(out, "index-metadata", 1);
      byte[] content = json.getBytes(StandardCharsets.UTF_8);
      out.writeBytes(content, content.length);
      CodecUtil.writeFooter(out);
    }
    return bytes.toArrayCopy();
  }

  /**
   * An Elasticsearch archive searched from the shell answers as the node did, as a user on a current cluster would
   * search it: 9.3's (Lucene103, best_compression's Elasticsearch92Lucene103 with zstd stored fields, _id behind
   * ES87BloomFilter) and 8.19's (Elasticsearch816, ES812Postings), and their logsdb index (ES819TSDB doc values)
   * newest first.
   */
  @ParameterizedTest
  @EnumSource(value = EngineFixture.class, names = {"ELASTICSEARCH_93", "ELASTICSEARCH_8"})
  void searchesAnElasticsearchArchiveAsTheNodeDid(EngineFixture engine) throws Exception {
    Path es = engine.ensure();
    String esRepo = es.resolve("repo").toUri().toString();
    JsonNode esAnswers = JSON.readTree(es.resolve("answers.json").toFile());
    JsonNode esQueries = JSON.readTree(es.resolve("queries.json").toFile());
    assertTrue(ok("list", "--format", "elasticsearch", esRepo).out().contains("snap-2/logs-best\n"));
    for (JsonNode q : esQueries) {
      Cli.Run run = ok("search", "--format", "elasticsearch", "--exact-total", "--sort", "seq:desc", esRepo,
          "snap-2/logs-best", q.get("query_string").asText());
      JsonNode expected = esAnswers.path("variants").path("logs-best").path(q.get("id").asText());
      long total = expected.path("total").asLong();
      assertTrue(run.out().endsWith("total: " + count(total) + " hit" + (total == 1 ? "" : "s") + " in 1 index (1 shards)\n")
          || run.out().endsWith("total: " + count(total) + " hit" + (total == 1 ? "" : "s") + " in 1 index (1 shard)\n"),
          q + ": " + run);
      List<String> ids = new ArrayList<>();
      for (String line : run.out().lines().filter(l -> !l.startsWith("total: ")).toList()) {
        ids.add(line.split("\t")[2].substring("_id=".length()));
      }
      List<String> expectedIds = new ArrayList<>();
      expected.path("ids").forEach(id -> expectedIds.add(id.asText()));
      assertEquals(expectedIds, ids, engine + " " + q);
    }
    // the logsdb index (ES819TSDB doc values) newest first, as the node answered the fixed queries so sorted
    int logsdb = 0;
    for (JsonNode search : esAnswers.path("tsdb").path("snap-2").path("logs-db").path("searches")) {
      if (!search.path("sort_id").asText().equals("timestamp") || search.path("query_id").asText().startsWith("random")) {
        continue;
      }
      Cli.Run run = ok("search", "--format", "elasticsearch", "--exact-total", "--sort", "@timestamp:desc", esRepo,
          "snap-2/logs-db", search.path("query_string").asText());
      long total = search.path("total").asLong();
      assertTrue(run.out().contains("total: " + count(total) + " hit" + (total == 1 ? "" : "s") + " in 1 index"),
          search + ": " + run);
      List<String> ids = new ArrayList<>();
      for (String line : run.out().lines().filter(l -> !l.startsWith("total: ")).toList()) {
        ids.add(line.split("\t")[2].substring("_id=".length()));
      }
      List<String> expectedIds = new ArrayList<>();
      search.path("ids").forEach(id -> expectedIds.add(id.asText()));
      assertEquals(expectedIds, ids, engine + " logs-db " + search.path("query_string"));
      logsdb++;
    }
    assertTrue(logsdb >= 10, "fixed logsdb queries searched: " + logsdb);
    // --from/--to on the time_series index (9.3: its @timestamp in doc values only), as the node matched the range
    for (JsonNode search : esAnswers.path("tsdb").path("snap-2").path("metrics-ts").path("searches")) {
      if (!search.path("query_id").asText().equals("time") || !search.path("sort_id").asText().equals("timestamp")) {
        continue;
      }
      assertEquals("@timestamp:[2024-01-01T02:00:00Z TO 2024-01-01T04:00:00Z}", search.path("query_string").asText());
      Cli.Run run = ok("search", "--format", "elasticsearch", "--exact-total", "--sort", "@timestamp:desc", "--from",
          "2024-01-01T02:00:00Z", "--to", "2024-01-01T04:00:00Z", esRepo, "snap-2/metrics-ts", "*");
      long total = search.path("total").asLong();
      assertTrue(total > 0 && run.out().contains("total: " + count(total) + " hits in 1 index"), search + ": " + run);
      List<String> ids = new ArrayList<>();
      for (String line : run.out().lines().filter(l -> !l.startsWith("total: ")).toList()) {
        ids.add(line.split("\t")[2].substring("_id=".length()));
      }
      List<String> expectedIds = new ArrayList<>();
      search.path("ids").forEach(id -> expectedIds.add(id.asText()));
      assertEquals(expectedIds, ids, engine + " metrics-ts in [from, to)");
      logsdb = -1;
    }
    assertEquals(-1, logsdb, "the node's answer to the time range over metrics-ts");
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(p, target);
        }
      }
    }
  }
}
