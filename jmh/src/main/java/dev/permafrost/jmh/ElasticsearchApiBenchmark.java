/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.dsl.Aggregations;
import dev.permafrost.elasticsearch.dsl.QueryDsl;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.Query;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The dashboard through the Elasticsearch-compatible API ({@code api}: its JSON request translated by
 * {@link SearchApi}, run by the catalog with {@code Aggregations}' collectors, answered as Elasticsearch's JSON)
 * against the catalog's own search of the same query with the workload's hand-written collector ({@code catalog}),
 * over the same mounted snapshots on a warm cache that holds them. The set-up checks that both give the same count,
 * histogram and top terms. What the translation costs is the difference; the HTTP layer of the service is not in it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 10, time = 2)
public class ElasticsearchApiBenchmark {
  @Param({"smoke"})
  public String scale;

  /**
   * {@code catalog}, {@code api}, or one half of the API's work with the other half the catalog's: {@code dsl-query}
   * (the translated query, the workload's collector) or {@code dsl-aggs} (the workload's query, the API's
   * aggregations), to say which half costs what.
   */
  @Param({"catalog", "api"})
  public String path;
  private Query dslQuery;
  private Aggregations dslAggs;

  private DashboardWorkload dashboard;
  private MountedIndices indices;
  private SearchApi api;
  private JsonNode body;
  private BlobStore store;
  private SharedRegionCache cache;
  private Path cacheDir;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Dataset dataset = BenchmarkData.dataset(scale);
    dashboard = (DashboardWorkload) Workloads.byName("dashboard", dataset.spec());
    store = dataset.openStore();
    cacheDir = BenchmarkData.scratch("es-api-cache");
    cache = BlobIndexes.cache(cacheDir, 2 * dataset.indexBytes() + (64 << 20), BlobIndexes.regionSizeFor(dataset));
    List<String> names = dataset.indexNames();
    indices = MountedIndices.mount(SnapshotRepository.open(store), names, cache);
    ObjectMapper json = new ObjectMapper();
    IndexMapping mapping = IndexMapping.of(json.readTree(AccessLogDocuments.engineIndexBody()).get("mappings"));
    Map<String, SearchApi.Index> byName = new LinkedHashMap<>();
    for (String name : names) {
      byName.put(name, new SearchApi.Index(name, List.of(name), mapping));
    }
    api = new SearchApi(indices.catalog(), () -> byName);
    body = json.readTree(dashboard.searchBody());
    dslQuery = new QueryDsl(mapping).toQuery(body.get("query"));
    dslAggs = Aggregations.parse(body.get("aggs"), mapping, new QueryDsl(mapping)::toQuery);
    // warm the cache for both, and check that they agree
    DashboardWorkload.Result expected = dashboard.run(indices);
    ObjectNode answer = api.search("*", body, Map.of());
    dashboard.run(indices);
    api.search("*", body, Map.of());
    DashboardAnswer.check(expected, answer);
  }

  @Benchmark
  public Object search() throws IOException {
    return switch (path) {
      case "api" -> api.search("*", body, Map.of());
      case "dsl-query" -> indices.collect(dslQuery, dashboard.collectorManager());
      case "dsl-aggs" -> indices.collect(dashboard.query(), dslAggs.collectorManager());
      default -> dashboard.run(indices);
    };
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    indices.close();
    cache.close();
    store.close();
    BenchmarkData.delete(cacheDir);
  }
}
