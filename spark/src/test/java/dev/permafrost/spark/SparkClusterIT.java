/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.opensearch.fixture.OpenSearchFixture;
import dev.permafrost.sample.DatasetSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The data source on a real standalone cluster (scripts/servers/spark.sh: a master and two one-core workers on
 * 127.0.0.1, each with its own cache directory, Java 21 executors) over the 30 daily snapshots: the rows are the
 * library's, a time range skips the other days, a warm second run fetches (nearly) nothing with affinity, and a
 * killed executor does not fail the query. Each test reads its own copy of the repository, so every cache starts
 * cold for it whatever ran before.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkClusterIT {
  private static final int EXECUTORS = 2;
  private static SparkSession spark;
  private static Path copies;
  private static final FetchListener listener = new FetchListener();
  /** The executor aKilledExecutorDoesNotFailTheQuery killed, or null. */
  private static volatile String killed;

  @BeforeAll
  static void start() throws Exception {
    String master = System.getenv("PERMAFROST_SPARK_MASTER");
    assertNotNull(master, "no Spark cluster: start one with scripts/servers/spark.sh start and export what"
        + " scripts/servers/spark.sh env prints (scripts/test does both)");
    String jar = System.getProperty("permafrost.spark.jar");
    assertTrue(jar != null && Files.exists(Path.of(jar)), "the shaded jar " + jar + " is missing: run mvn verify");
    TestData.dataset();
    copies = Path.of("target", "cluster-repositories", UUID.randomUUID().toString()).toAbsolutePath();
    String opens = System.getProperty("permafrost.spark.executorJavaOptions", "");
    spark = SparkSession.builder().master(master).appName("SparkClusterIT")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.jars", jar).config("spark.executor.memory", "1g").config("spark.executor.cores", "1")
        .config("spark.cores.max", String.valueOf(EXECUTORS)).config("spark.executor.extraJavaOptions", opens)
        .config("spark.plugins", PermafrostPlugin.class.getName())
        .config("spark.ui.enabled", "false").config("spark.sql.adaptive.enabled", "false")
        // Delay scheduling: a task waits this long for the executor its snapshot prefers before it may run on another
        // (here on the same host, so anywhere) and read cold. Spark's 3s let a busy machine send warm tasks elsewhere;
        // a minute is far longer than any executor's queue of its own tasks in these tests. The cost: a task whose
        // preferred executor is killed waits the minute out before it runs elsewhere (aKilledExecutorDoesNotFailTheQuery).
        .config("spark.locality.wait", "60s")
        .config("spark.task.maxFailures", "4").getOrCreate();
    spark.sparkContext().addSparkListener(listener);
    awaitExecutors();
  }

  @AfterAll
  static void stop() throws IOException {
    if (spark != null) {
      spark.stop();
    }
    if (copies != null && Files.exists(copies)) {
      try (Stream<Path> paths = Files.walk(copies)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * Waits until the executors the scans' affinity sees ({@link ExecutorLocations#live()}, the block manager master's)
   * are {@link #EXECUTORS} live ones, the killed executor not among them: after a kill it stays listed until the
   * driver has noticed it is lost, while its replacement may register already. The bound only turns a hang into a
   * failure.
   */
  private static void awaitExecutors() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    for (;;) {
      List<String> live = ExecutorLocations.live();
      String dead = killed;
      boolean deadGone = dead == null || live.stream().noneMatch(l -> l.endsWith("_" + dead));
      if (live.size() == EXECUTORS && deadGone) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the cluster did not give " + EXECUTORS + " live executors"
          + (dead == null ? "" : " without the killed executor " + dead) + " within 120 s: " + live);
      Thread.sleep(200);
    }
  }

  /** A fresh copy of the repository, so that no executor's cache holds any of its blobs. */
  private static String repositoryCopy(String name) throws IOException {
    Path source = TestData.dataset().repositoryPath();
    Path target = copies.resolve(name);
    try (Stream<Path> paths = Files.walk(source)) {
      for (Path p : paths.toList()) {
        Path t = target.resolve(source.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return target.toUri().toString();
  }

  private static Dataset<Row> read(String repository, boolean affinity) {
    return spark.read().format("permafrost").option("repository", repository).option("fields", TestData.FIELDS)
        .option("cache.size", "256mb").option("affinity", String.valueOf(affinity)).load();
  }

  private static Column c(String name) {
    return col("`" + name + "`");
  }

  /** Runs {@code df} and returns the bytes each executor fetched from the store for it (from the accumulator). */
  private static Map<String, Long> fetchedPerExecutor(Dataset<Row> df, List<Row> rows) throws Exception {
    listener.reset();
    rows.addAll(df.collectAsList());
    spark.sparkContext().listenerBus().waitUntilEmpty();
    Map<String, Long> perExecutor = new TreeMap<>(listener.fetched);
    long total = perExecutor.values().stream().mapToLong(Long::longValue).sum();
    assertEquals(LocalPushDownTest.scanOf(df).bytesFetched().value().longValue(), total,
        "the accumulator's total and the tasks' updates agree");
    return perExecutor;
  }

  @Test
  @Order(1)
  void rowsAreTheLibrarys() throws Exception {
    Dataset<Row> df = spark.read().format("permafrost").option("repository", repositoryCopy("rows"))
        .option("query", "http.request.method:POST").option("fields", "trace.id").load();
    List<String> got = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      got.add(r.getString(0) + "/" + r.getString(2));
    }
    got.sort(null);
    List<String> library = TestData.localHits(new TermQuery(new Term("http.request.method", "POST")));
    library.sort(null);
    assertFalse(library.isEmpty());
    assertEquals(library, got);
  }

  @Test
  @Order(2)
  void aTimeRangeSkipsTheOtherDays() throws Exception {
    long from = TestData.dayStart(20) + 3_600_000L;
    long to = TestData.dayStart(22) + 7_200_000L;
    Dataset<Row> df = read(repositoryCopy("pruning"), true)
        .filter(c(TestData.TS).between(new Timestamp(from), new Timestamp(to)))
        .filter(c("http.request.method").equalTo("GET"));
    List<String> got = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      got.add(r.getString(0) + "/" + r.getAs("trace.id"));
    }
    got.sort(null);
    List<String> library = TestData.localHits(new BooleanQuery.Builder()
        .add(new TermQuery(new Term("http.request.method", "GET")), Occur.FILTER)
        .add(LongPoint.newRangeQuery(TestData.TS, from, to), Occur.FILTER).build());
    library.sort(null);
    assertEquals(library, got);
    PermafrostScan scan = LocalPushDownTest.scanOf(df);
    assertEquals(List.of(TestData.day(20), TestData.day(21), TestData.day(22)), scan.searched());
    assertEquals(27, scan.skipped().size());
  }

  @Test
  @Order(3)
  void aWarmSecondRunFetchesNearlyNothingWithAffinity() throws Exception {
    String withAffinity = repositoryCopy("affinity");
    List<Row> first = new ArrayList<>();
    Map<String, Long> cold = fetchedPerExecutor(read(withAffinity, true).filter(c("http.request.method").equalTo("GET")), first);
    List<Row> second = new ArrayList<>();
    Map<String, Long> warm = fetchedPerExecutor(read(withAffinity, true).filter(c("http.request.method").equalTo("GET")), second);
    assertEquals(first.size(), second.size());
    long coldTotal = sum(cold);
    long warmTotal = sum(warm);
    assertTrue(coldTotal > 0, "the first run fetched nothing: " + cold);
    assertEquals(EXECUTORS, cold.size(), "both executors searched snapshots: " + cold);
    assertTrue(warmTotal * 20 <= coldTotal, "the warm run fetched " + warm + " after a cold " + cold);

    String withoutAffinity = repositoryCopy("no-affinity");
    Map<String, Long> coldNo = fetchedPerExecutor(read(withoutAffinity, false).filter(c("http.request.method").equalTo("GET")), new ArrayList<>());
    Map<String, Long> warmNo = fetchedPerExecutor(read(withoutAffinity, false).filter(c("http.request.method").equalTo("GET")), new ArrayList<>());
    String report = "| run | bytes fetched, per executor | total |\n|---|---|---|\n"
        + "| with affinity, first (cold) | " + cold + " | " + coldTotal + " |\n"
        + "| with affinity, second | " + warm + " | " + warmTotal + " |\n"
        + "| without affinity, first (cold) | " + coldNo + " | " + sum(coldNo) + " |\n"
        + "| without affinity, second | " + warmNo + " | " + sum(warmNo) + " |\n";
    System.out.println(report);
    String file = System.getProperty("permafrost.spark.report");
    if (file != null) {
      Files.writeString(Path.of(file), report);
    }
  }

  @Test
  @Order(5)
  void aThousandSmallSnapshotsRunAsAFewTasksWithTheLibrarysRowsAndStayWarm() throws Exception {
    awaitExecutors(); // the killed executor's replacement, and the killed one gone
    // 1,000 tenants of 1,000 events each (big enough that a search reads more than the manifest keeps), in a
    // repository no executor has read
    dev.permafrost.sample.Dataset many = dev.permafrost.sample.Dataset.getOrCreate(
        copies.resolve("many"), DatasetSpec.of(1000, 1000));
    String repository = many.repositoryPath().toUri().toString();
    Column get = c("http.request.method").equalTo("GET");
    Dataset<Row> first = spark.read().format("permafrost").option("repository", repository)
        .option("fields", "http.request.method,trace.id").option("cache.size", "256mb").load().filter(get);
    int tasks = first.javaRDD().getNumPartitions();
    assertTrue(tasks >= EXECUTORS && tasks <= 10, "1,000 small snapshots in " + tasks + " tasks");
    List<Row> rows = new ArrayList<>();
    Map<String, Long> cold = fetchedPerExecutor(first, rows);
    List<String> got = new ArrayList<>();
    for (Row r : rows) {
      got.add(r.getAs("_index") + "/" + r.getAs("trace.id"));
    }
    got.sort(null);
    List<String> want = TestData.localHits(many, new TermQuery(new Term("http.request.method", "GET")));
    want.sort(null);
    assertEquals(want, got, "the rows are the library's");
    Dataset<Row> again = spark.read().format("permafrost").option("repository", repository)
        .option("fields", "http.request.method,trace.id").option("cache.size", "256mb").load().filter(get);
    List<Row> rows2 = new ArrayList<>();
    Map<String, Long> warm = fetchedPerExecutor(again, rows2);
    assertEquals(rows.size(), rows2.size());
    long coldTotal = sum(cold);
    long warmTotal = sum(warm);
    assertEquals(EXECUTORS, cold.size(), "both executors searched: " + cold);
    assertTrue(coldTotal > 0, "the first run fetched from the store: " + cold);
    assertTrue(warmTotal * 20 <= coldTotal, "the second run fetched " + warm + " after " + cold + " (at most 5%)");
    long ungrouped = spark.read().format("permafrost").option("repository", repository).option("partition.maxBytes", "0")
        .option("fields", "http.request.method").load().javaRDD().getNumPartitions();
    assertEquals(1000, ungrouped, "without grouping, a partition per snapshot");
    System.out.println("| 1,000 snapshots of 1,000 events, " + tasks + " tasks (" + ungrouped + " without grouping) | first "
        + cold + " = " + coldTotal + " | second " + warm + " = " + warmTotal + " |");
  }

  private static long sum(Map<String, Long> m) {
    return m.values().stream().mapToLong(Long::longValue).sum();
  }

  @Test
  @Order(3)
  void anOpenSearchRepositoryIsReadShardByShardOnTheExecutors() throws Exception {
    Path fixture = OpenSearchFixture.ensure();
    JsonNode answers =
        new ObjectMapper().readTree(fixture.resolve("answers.json").toFile());
    Dataset<Row> df = spark.read().format("permafrost").option("format", "opensearch")
        .option("repository", fixture.resolve("repo-chunked").toUri().toString()).option("snapshots", "snap-2")
        .option("cache.size", "256mb").load();
    assertEquals(answers.path("snapshots").path("snap-2").path("status").path("total").asLong(),
        df.where(org.apache.spark.sql.functions.col("status").equalTo(404)).count());
    List<String> ids = new ArrayList<>();
    for (Row r : df.orderBy(org.apache.spark.sql.functions.col("seq").desc()).limit(10).select("_id").collectAsList()) {
      ids.add(r.getString(0));
    }
    List<String> expected = new ArrayList<>();
    answers.path("snapshots").path("snap-2").path("all").path("ids").forEach(id -> expected.add(id.asText()));
    assertEquals(expected, ids);
  }

  /**
   * An Elasticsearch 9.1 index at {@code best_compression} (stored fields in zstd frames, {@code _id} under
   * {@code ES87BloomFilter}) read on the executors, whose zstd-jni is the one Spark ships (the shaded jar carries
   * none): counts, top ids and each row's {@code _source} are the node's.
   */
  @Test
  @Order(3)
  void anElasticsearchBestCompressionIndexIsReadOnTheExecutorsWithSparksOwnZstd() throws Exception {
    Path fixture = EngineFixture.ELASTICSEARCH_9.ensure();
    ObjectMapper json = new ObjectMapper();
    JsonNode answers = json.readTree(fixture.resolve("answers.json").toFile());
    JsonNode best = answers.path("variants").path("logs-best");
    Dataset<Row> df = spark.read().format("permafrost").option("format", "elasticsearch")
        .option("repository", fixture.resolve("repo").toUri().toString()).option("snapshots", "snap-2")
        .option("indices", "logs-best").option("cache.size", "256mb").load();
    assertEquals(best.path("status").path("total").asLong(),
        df.where(org.apache.spark.sql.functions.col("status").equalTo(404)).count());
    List<String> ids = new ArrayList<>();
    for (Row r : df.orderBy(org.apache.spark.sql.functions.col("seq").desc()).limit(10).select("_id", "_source", "seq")
        .collectAsList()) {
      ids.add(r.getString(0));
      assertEquals(r.getLong(2), json.readTree(r.getString(1)).get("seq").asLong(), "the row's own _source: " + r);
    }
    List<String> expected = new ArrayList<>();
    best.path("all").path("ids").forEach(id -> expected.add(id.asText()));
    assertEquals(expected, ids);
  }

  @Test
  @Order(4)
  void aKilledExecutorDoesNotFailTheQuery() throws Exception {
    String repository = repositoryCopy("kill");
    String appId = spark.sparkContext().applicationId();
    listener.reset();
    CompletableFuture<Long> rows = CompletableFuture.supplyAsync(() -> spark.read().format("permafrost")
        .option("repository", repository).option("fields", "_source," + TestData.FIELDS).option("cache.size", "256mb")
        .load().collectAsList().stream().filter(r -> r.getString(0) != null).count());
    assertTrue(listener.firstTask.await(120, TimeUnit.SECONDS), "no task started");
    String victim = listener.firstTaskExecutor;
    Optional<ProcessHandle> process = ProcessHandle.allProcesses().filter(p -> {
      String cmd = p.info().commandLine().orElse("");
      return cmd.contains("CoarseGrainedExecutorBackend") && cmd.contains(appId)
          && cmd.contains("--executor-id " + victim + " ");
    }).findFirst();
    assertTrue(process.isPresent(), "no process for executor " + victim + " of " + appId);
    killed = victim;
    assertTrue(process.get().destroyForcibly());
    // the bound only turns a hang into a failure; it includes the minute the killed executor's task waits for it
    assertEquals((long) TestData.SPEC.days() * TestData.SPEC.eventsPerDay(), rows.get(600, TimeUnit.SECONDS));
    spark.sparkContext().listenerBus().waitUntilEmpty();
    assertTrue(listener.removed.contains(victim), "executor " + victim + " was not reported lost: " + listener.removed);
    awaitExecutors(); // the worker starts a new one; later reads prefer it for the snapshots it gained
  }

  /** Sums each executor's updates of the scans' bytes-fetched accumulators, and notes task starts and lost executors. */
  static final class FetchListener extends SparkListener {
    final Map<String, Long> fetched = new ConcurrentHashMap<>();
    final List<String> removed = new CopyOnWriteArrayList<>();
    volatile CountDownLatch firstTask = new CountDownLatch(1);
    volatile String firstTaskExecutor;

    void reset() {
      fetched.clear();
      firstTask = new CountDownLatch(1);
      firstTaskExecutor = null;
    }

    @Override
    public void onTaskStart(SparkListenerTaskStart start) {
      if (firstTaskExecutor == null) {
        firstTaskExecutor = start.taskInfo().executorId();
        firstTask.countDown();
      }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (end.taskInfo() == null || !end.taskInfo().successful()) {
        return;
      }
      for (AccumulableInfo info : CollectionConverters.asJava(end.taskInfo().accumulables())) {
        if (info.name().isDefined() && info.name().get().equals(PermafrostScan.BYTES_FETCHED_ACCUMULATOR)
            && info.update().isDefined()) {
          fetched.merge(end.taskInfo().executorId(), ((Number) info.update().get()).longValue(), Long::sum);
        }
      }
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved removedEvent) {
      removed.add(removedEvent.executorId());
    }
  }
}
