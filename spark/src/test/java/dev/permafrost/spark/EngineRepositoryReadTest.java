/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.opensearch.fixture.OpenSearchFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads, in {@code local[2]}, the snapshots a real OpenSearch node wrote ({@code format=elasticsearch}): the schema
 * comes from the mapping, each shard is a partition, and counts, filters and the top rows are the node's answers.
 */
class EngineRepositoryReadTest {
  private static SparkSession spark;
  private static Path fixture;
  private static JsonNode answers;
  private static Path cacheDir;

  @BeforeAll
  static void start() throws Exception {
    fixture = OpenSearchFixture.ensure();
    answers = new ObjectMapper().readTree(fixture.resolve("answers.json").toFile());
    cacheDir = Files.createTempDirectory("permafrost-spark-engine-cache");
    spark = SparkSession.builder().master("local[2]").appName("EngineRepositoryReadTest")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.adaptive.enabled", "false").getOrCreate();
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static DataFrameReader reader(String snapshot) {
    return spark.read().format("permafrost").option("format", "elasticsearch")
        .option("repository", fixture.resolve("repo").toUri().toString()).option("snapshots", snapshot)
        .option("cache.path", cacheDir.toString()).option("cache.size", "128mb");
  }

  private static long expected(String snapshot, String query) {
    return answers.path("snapshots").path(snapshot).path(query).path("total").asLong();
  }

  @Test
  void theSchemaIsTheMappings() {
    StructType schema = reader("snap-2").load().schema();
    assertEquals(DataTypes.StringType, schema.apply("host").dataType());
    assertEquals(DataTypes.StringType, schema.apply("message.raw").dataType());
    assertEquals(DataTypes.LongType, schema.apply("status").dataType());
    assertEquals(DataTypes.TimestampType, schema.apply("@timestamp").dataType());
    assertEquals(DataTypes.StringType, schema.apply("_id").dataType());
    assertEquals(DataTypes.StringType, schema.apply("_source").dataType());
    List<String> names = List.of(schema.fieldNames());
    assertFalse(names.contains("message"), "text is queried, not a column: " + names);
    assertFalse(names.stream().anyMatch(n -> n.startsWith("user.")), "nested fields make no column: " + names);
  }

  @Test
  void countsFiltersAndTopRowsAreTheNodes() throws Exception {
    for (String snapshot : List.of("snap-1", "snap-2")) {
      Dataset<Row> all = reader(snapshot).load();
      assertEquals(expected(snapshot, "all"), all.count(), snapshot);
      assertEquals(expected(snapshot, "status"), all.where(col("status").equalTo(404)).count(), snapshot);
      assertEquals(expected(snapshot, "host"), all.where(col("host").equalTo("web-03")).count(), snapshot);
      assertEquals(expected(snapshot, "level"),
          reader(snapshot).option("indices", "logs-b").load().where(col("level").equalTo("error")).count(), snapshot);
      assertEquals(expected(snapshot, "text"), reader(snapshot).option("query", "message:timeout").load().count(), snapshot);
      assertEquals(expected(snapshot, "all-a"), reader(snapshot).option("indices", "logs-a").load().count(), snapshot);
      List<String> ids = new ArrayList<>();
      for (Row row : all.orderBy(col("seq").desc()).limit(10).select("_id", "seq", "_source").collectAsList()) {
        ids.add(row.getString(0));
        assertEquals(row.getLong(1), new ObjectMapper().readTree(row.getString(2)).get("seq").asLong(), row.toString());
      }
      List<String> expectedIds = new ArrayList<>();
      answers.path("snapshots").path(snapshot).path("all").path("ids").forEach(id -> expectedIds.add(id.asText()));
      assertEquals(expectedIds, ids, snapshot);
    }
  }

  /**
   * Elasticsearch 9.1's logsdb index (doc values in {@code ES819TSDB}, no stored {@code _source}) is read as the node
   * answered: its count, a filter's count, the rows newest first with their {@code _source} rebuilt from doc values,
   * and the terms counts of {@code host.name}, columns read from the doc values.
   */
  @Test
  void aLogsdbIndexIsReadFromItsDocValuesAsTheNodeAnswered() throws Exception {
    Path es = EngineFixture.ELASTICSEARCH_9.ensure();
    JsonNode node = new ObjectMapper().readTree(es.resolve("answers.json").toFile()).path("tsdb").path("snap-2")
        .path("logs-db");
    Dataset<Row> logs = spark.read().format("permafrost").option("format", "elasticsearch")
        .option("repository", es.resolve("repo").toUri().toString()).option("snapshots", "snap-2")
        .option("indices", "logs-db").option("cache.path", cacheDir.toString()).option("cache.size", "128mb").load();
    assertEquals(node.path("count").asLong(), logs.count());
    JsonNode newest = null;
    JsonNode status = null;
    for (JsonNode search : node.path("searches")) {
      if (search.path("sort_id").asText().equals("timestamp") && search.path("query_id").asText().equals("all")) {
        newest = search;
      } else if (search.path("sort_id").asText().equals("timestamp") && search.path("query_id").asText().equals("status")) {
        status = search;
      }
    }
    assertEquals(status.path("total").asLong(), logs.where(col("status").equalTo(404)).count());
    List<String> ids = new ArrayList<>();
    List<JsonNode> sources = new ArrayList<>();
    for (Row row : logs.orderBy(col("`@timestamp`").desc()).limit(10).select("_id", "_source").collectAsList()) {
      ids.add(row.getString(0));
      sources.add(new ObjectMapper().readTree(row.getString(1)));
    }
    List<String> expectedIds = new ArrayList<>();
    newest.path("ids").forEach(id -> expectedIds.add(id.asText()));
    assertEquals(expectedIds, ids);
    List<JsonNode> expectedSources = new ArrayList<>();
    newest.path("sources").forEach(expectedSources::add);
    assertEquals(expectedSources, sources, "the synthetic _source, rebuilt from doc values as the node rebuilds it");
    List<String> hosts = new ArrayList<>();
    for (Row row : logs.groupBy(col("`host.name`")).count().orderBy(col("count").desc(), col("`host.name`"))
        .collectAsList()) {
      hosts.add(row.getString(0) + ":" + row.getLong(1));
    }
    List<String> expectedHosts = new ArrayList<>();
    for (JsonNode agg : node.path("aggregations")) {
      if (agg.path("query_id").asText().equals("all")) {
        agg.path("aggregations").path("by_host").forEach(b -> expectedHosts.add(b.path("key").asText() + ":"
            + b.path("doc_count").asLong()));
      }
    }
    assertEquals(expectedHosts, hosts);
  }

  @Test
  void badOptionsAreRefusedNamingThem() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> reader("snap-9").load().count());
    assertTrue(e.getMessage().contains("snap-9"), e.getMessage());
    IllegalArgumentException i = assertThrows(IllegalArgumentException.class,
        () -> reader("snap-2").option("indices", "logs-z").load().count());
    assertTrue(i.getMessage().contains("logs-z"), i.getMessage());
  }
}
