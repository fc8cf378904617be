/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.sample.AccessLogDocuments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.TermQuery;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The push-downs in {@code local[2]}: every pushed filter, the top-N, the limit and the counts give the rows Spark's own
 * evaluation gives over all the rows (read once and held in memory), and each was really pushed.
 */
class LocalPushDownTest {
  private static final String STATUS = AccessLogDocuments.STATUS;
  private static final String BYTES = "http.response.body.bytes";
  private static SparkSession spark;
  private static Path cacheDir;
  /** Every row of the {@link TestData#FIELDS} columns, in memory: Spark evaluates everything on it. */
  private static Dataset<Row> reference;

  @BeforeAll
  static void start() throws Exception {
    TestData.dataset();
    cacheDir = Files.createTempDirectory("permafrost-spark-local-cache");
    spark = SparkSession.builder().master("local[2]").appName("LocalPushDownTest")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.adaptive.enabled", "false").getOrCreate();
    Dataset<Row> all = read();
    reference = spark.createDataFrame(all.collectAsList(), all.schema()).cache();
    assertEquals((long) TestData.SPEC.days() * TestData.SPEC.eventsPerDay(), reference.count());
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static Dataset<Row> read() {
    return reader().option("fields", TestData.FIELDS).load();
  }

  private static DataFrameReader reader() {
    return spark.read().format("permafrost").option("repository", TestData.repository())
        .option("cache.path", cacheDir.toString()).option("cache.size", "256mb");
  }

  private static Column c(String name) {
    return col("`" + name + "`");
  }

  private static List<String> rows(Dataset<Row> df) {
    List<String> rows = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      rows.add(r.toString());
    }
    rows.sort(null);
    return rows;
  }

  static SparkPlan plan(Dataset<Row> df) {
    return df.queryExecution().executedPlan();
  }

  static PermafrostScan scanOf(Dataset<Row> df) {
    for (SparkPlan leaf : CollectionConverters.asJava(plan(df).collectLeaves())) {
      if (leaf instanceof BatchScanExec scan && scan.scan() instanceof PermafrostScan p) {
        return p;
      }
    }
    throw new AssertionError("no permafrost scan in " + plan(df));
  }

  static BatchScanExec scanExecOf(Dataset<Row> df) {
    for (SparkPlan leaf : CollectionConverters.asJava(plan(df).collectLeaves())) {
      if (leaf instanceof BatchScanExec scan) {
        return scan;
      }
    }
    throw new AssertionError("no batch scan in " + plan(df));
  }

  @Test
  void schemaComesFromTheFieldInfos() {
    StructType schema = reader().load().schema();
    assertEquals(DataTypes.StringType, schema.apply("_index").dataType());
    assertEquals(DataTypes.FloatType, schema.apply("_score").dataType());
    assertEquals(DataTypes.TimestampType, schema.apply(TestData.TS).dataType());
    assertEquals(DataTypes.StringType, schema.apply(STATUS).dataType());
    assertEquals(DataTypes.LongType, schema.apply(BYTES).dataType());
    assertEquals(DataTypes.StringType, schema.apply(AccessLogDocuments.SOURCE).dataType());
    assertFalse(schema.getFieldIndex(AccessLogDocuments.MESSAGE).isDefined(), "analyzed, unstored text is no column");
  }

  @Test
  void queryGivesTheLibrarysHits() throws Exception {
    Dataset<Row> df = reader().option("query", "http.request.method:POST").option("fields", "trace.id").load();
    List<String> spark = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      spark.add(r.getString(0) + "/" + r.getString(2));
    }
    spark.sort(null);
    List<String> library = TestData.localHits(new TermQuery(new Term("http.request.method", "POST")));
    library.sort(null);
    assertFalse(library.isEmpty());
    assertEquals(library, spark);
  }

  @Test
  void storedSourceIsReturned() {
    Row row = reader().option("query", "trace.id:*").option("fields", AccessLogDocuments.SOURCE).load()
        .filter(c("_index").equalTo(TestData.day(0))).limit(1).collectAsList().get(0);
    assertTrue(row.getString(2).startsWith("{\"@timestamp\":"), row.getString(2));
  }

  @Test
  void everyPushedFilterGivesSparksRows() {
    Timestamp from = Timestamp.from(TestData.instant(TestData.dayStart(3) + 12 * 3_600_000L + 123));
    Timestamp to = Timestamp.from(TestData.instant(TestData.dayStart(5) + 6 * 3_600_000L));
    List<Column> filters = List.of(
        c("http.request.method").equalTo("GET"),
        c(STATUS).isin("404", "500", "503"),
        c(BYTES).gt(5000).and(c(BYTES).leq(20000)),
        c(TestData.TS).geq(from).and(c(TestData.TS).lt(to)),
        c(TestData.TS).equalTo(Timestamp.from(TestData.instant(TestData.dayStart(2)))).or(c(STATUS).equalTo("302")),
        not(c(STATUS).equalTo("200")),
        not(c(STATUS).equalTo("200").or(c("url.query").equalTo("page=2"))),
        c("url.query").isNull(),
        c("url.query").isNotNull().or(c("http.request.method").equalTo("DELETE")),
        not(c("url.query").isin("page=2", "page=3")),
        c(AccessLogDocuments.URL_PATH).startsWith("/api"),
        c("source.port").geq(60000).or(c(AccessLogDocuments.COUNTRY).lt("C")),
        c("_index").equalTo(TestData.day(4)),
        c("_index").isin(TestData.day(1), TestData.day(7)).and(c(STATUS).notEqual("200")));
    for (Column filter : filters) {
      Dataset<Row> pushed = read().filter(filter);
      List<String> expected = rows(reference.filter(filter));
      assertFalse(expected.isEmpty(), "a filter that keeps no row proves little: " + filter);
      assertEquals(expected, rows(pushed), "rows of " + filter);
      assertFalse(scanOf(pushed).plan().conditions().isEmpty(), "not pushed: " + filter);
      assertFalse(plan(pushed).toString().contains("Filter "), "Spark still filters " + filter + ":\n" + plan(pushed));
    }
  }

  @Test
  void aFilterOnAnUnindexedColumnIsLeftToSpark() {
    Column filter = c("_score").gt(0.5f);
    Dataset<Row> df = reader().option("fields", STATUS).load().filter(filter);
    assertTrue(scanOf(df).plan().conditions().isEmpty());
    assertEquals(reference.count(), df.count());
  }

  @Test
  void aTimeRangeSkipsTheSnapshotsOutsideIt() {
    Timestamp from = Timestamp.from(TestData.instant(TestData.dayStart(10)));
    Timestamp to = Timestamp.from(TestData.instant(TestData.dayStart(12) + 12 * 3_600_000L));
    Column filter = c(TestData.TS).between(from, to);
    Dataset<Row> df = read().filter(filter);
    assertEquals(rows(reference.filter(filter)), rows(df));
    PermafrostScan scan = scanOf(df);
    assertEquals(List.of(TestData.day(10), TestData.day(11), TestData.day(12)), scan.searched());
    assertEquals(27, scan.skipped().size());
    assertFalse(scan.skipped().contains(TestData.day(10)));
    assertTrue(scan.skipped().contains(TestData.day(9)) && scan.skipped().contains(TestData.day(13)));
  }

  @Test
  void topNOnTheTimestampGivesSparksRows() {
    for (Column order : List.of(c(TestData.TS).desc(), c(TestData.TS).asc(), c(BYTES).desc())) {
      Dataset<Row> df = read().filter(c("http.request.method").equalTo("GET")).orderBy(order).limit(25);
      Dataset<Row> expected = reference.filter(c("http.request.method").equalTo("GET")).orderBy(order).limit(25);
      List<Row> got = df.collectAsList();
      List<Row> want = expected.collectAsList();
      assertEquals(25, got.size());
      String key = order.toString().contains(BYTES) ? BYTES : TestData.TS;
      for (int i = 0; i < 25; i++) {
        assertEquals(want.get(i).getAs(key).toString(), got.get(i).getAs(key).toString(), "row " + i + " by " + order);
      }
      ScanPlan.TopN topN = scanOf(df).plan().topN();
      assertNotNull(topN, "top-N not pushed for " + order);
      assertEquals(25, topN.limit());
      long scanned = scanExecOf(df).metrics().apply("numOutputRows").value();
      assertTrue(scanned <= 25L * TestData.SPEC.days(), "each partition returns at most 25 rows, scanned " + scanned);
    }
  }

  @Test
  void smallSnapshotsShareAPartitionAndGiveTheSameRows() {
    Column filter = c("http.request.method").equalTo("POST");
    Dataset<Row> grouped = read().filter(filter);
    Dataset<Row> alone = reader().option("fields", TestData.FIELDS).option("partition.maxBytes", "0").load().filter(filter);
    assertEquals(1, grouped.javaRDD().getNumPartitions(), "every small day in one partition (no executors here)");
    assertEquals(TestData.SPEC.days(), alone.javaRDD().getNumPartitions(), "one partition a day");
    assertEquals(rows(alone), rows(grouped));
    assertEquals(rows(reference.filter(filter)), rows(grouped));
    Dataset<Row> two = reader().option("fields", TestData.FIELDS).option("partition.maxBytes", "1b").load();
    assertEquals(TestData.SPEC.days(), two.javaRDD().getNumPartitions(), "a snapshot over the limit stays alone");
  }

  @Test
  void limitIsPushed() {
    Dataset<Row> df = read().limit(7);
    assertEquals(7, df.collectAsList().size());
    assertEquals(7, scanOf(df).plan().limit());
    assertTrue(scanExecOf(df).metrics().apply("numOutputRows").value() <= 7L * TestData.SPEC.days());
  }

  @Test
  void countIsAnsweredByLucene() {
    Column filter = c(STATUS).isin("404", "500");
    Dataset<Row> counted = read().filter(filter).groupBy().count();
    assertEquals(reference.filter(filter).count(), counted.collectAsList().get(0).getLong(0));
    assertEquals(ScanPlan.Output.COUNT, scanOf(counted).plan().output());
    assertEquals(reference.filter(filter).count(), read().filter(filter).count());

    Dataset<Row> perIndex = read().filter(filter).groupBy(c("_index")).count();
    assertEquals(rows(reference.filter(filter).groupBy(c("_index")).count()), rows(perIndex));
    assertTrue(scanOf(perIndex).plan().groupByIndex());

    Dataset<Row> ofField = read().groupBy().agg(org.apache.spark.sql.functions.count(c("url.query")));
    assertEquals(reference.filter(c("url.query").isNotNull()).count(), ofField.collectAsList().get(0).getLong(0));
    assertEquals(ScanPlan.Output.COUNT, scanOf(ofField).plan().output());
  }

  @Test
  void histogramModeCountsPerInterval() {
    Dataset<Row> histogram = reader().option("mode", "histogram").option("interval", "6h")
        .option("query", "http.request.method:GET").load();
    Map<String, Long> got = new TreeMap<>();
    for (Row r : histogram.collectAsList()) {
      got.put(r.getString(0) + "@" + ((Timestamp) r.get(1)).getTime(), r.getLong(2));
    }
    Map<String, Long> want = new TreeMap<>();
    for (Row r : reference.filter(c("http.request.method").equalTo("GET")).collectAsList()) {
      long millis = ((Timestamp) r.getAs(TestData.TS)).getTime();
      want.merge(r.getString(0) + "@" + Math.floorDiv(millis, 21_600_000L) * 21_600_000L, 1L, Long::sum);
    }
    assertEquals(want, got);
  }

  @Test
  void errorsNameWhatIsWrong() {
    Exception unknown = assertThrows(Exception.class, () -> reader().option("qurey", "x").load());
    assertTrue(message(unknown).contains("unknown option [qurey]"), message(unknown));
    Exception badQuery = assertThrows(Exception.class, () -> reader().option("query", "status:(200").load());
    assertTrue(message(badQuery).contains("option 'query' is not a valid Lucene query"), message(badQuery));
    Exception noField = assertThrows(Exception.class, () -> reader().option("fields", "no.such.field").load());
    assertTrue(message(noField).contains("'no.such.field', which is not a field of snapshot 'logs-nginx-2024.03.01'"),
        message(noField));
    Exception noStore = assertThrows(Exception.class,
        () -> spark.read().format("permafrost").option("repository", "nosuch://bucket/x").load());
    assertTrue(message(noStore).contains("cannot open the repository nosuch://bucket/x (option 'repository')"),
        message(noStore));
    Exception withSecret = assertThrows(Exception.class, () -> spark.read().format("permafrost")
        .option("repository", "nosuch://bucket/x?secret_key=hunter2").load());
    assertTrue(message(withSecret).contains("nosuch://bucket/x") && !message(withSecret).contains("hunter2"),
        message(withSecret));
    Exception notAUri = assertThrows(Exception.class, () -> spark.read().format("permafrost")
        .option("repository", "s3://bucket/a b?secret_key=hunter2").load());
    assertTrue(message(notAUri).contains("option 'repository' is not a URI") && !message(notAUri).contains("hunter2"),
        message(notAUri));
    Exception noSnapshot = assertThrows(Exception.class, () -> reader().option("snapshots", "logs-1999").load());
    assertTrue(message(noSnapshot).contains("names 'logs-1999', which is not a snapshot of"), message(noSnapshot));
  }

  private static String message(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable x = t; x != null; x = x.getCause()) {
      sb.append(x.getMessage()).append(" | ");
    }
    return sb.toString();
  }

  @Test
  void concurrentReadsShareOneCachePerJvm() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Long>> counts = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        int day = i;
        counts.add(pool.submit(() -> read().filter(c("_index").equalTo(TestData.day(day))).count()));
      }
      for (Future<Long> f : counts) {
        assertEquals(TestData.SPEC.eventsPerDay(), f.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, ExecutorNode.all().size());
    assertEquals(cacheDir.toAbsolutePath(), ExecutorNode.all().get(0).cache().file().getParent());
  }
}
