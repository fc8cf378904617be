/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.elasticsearch.IndexMapping;
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
import java.io.InterruptedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * What the search service's HTTP layer costs: the dashboard's Elasticsearch request answered by the library's
 * {@link SearchApi} in this JVM, its JSON answer written to bytes ({@code library}), against the same request sent to
 * the search service's {@code POST /_search} over loopback HTTP and its answer read ({@code http}). The service runs
 * in its own JVM (the jar {@code examples/target/permafrost-search-service.jar}, or {@code -Dpermafrost.service.jar}),
 * started by the set-up over the same data set's repository with every snapshot mounted and a cache that holds them,
 * with the same JVM options as this fork; both are warmed twice and the set-up checks that they give the same answer
 * (hits, histogram, top terms). The difference is Spring's request handling, Tomcat, the JSON parse of the body, the
 * socket and the client's read; the search and the rendering of the answer are in both.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 10, time = 2)
public class ElasticsearchHttpBenchmark {
  @Param({"smoke"})
  public String scale;

  /** {@code library} (the API's call in this JVM, answer to bytes) or {@code http} (the service's {@code _search}). */
  @Param({"library", "http"})
  public String path;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  private byte[] body;
  private JsonNode bodyJson;
  // library
  private MountedIndices indices;
  private SearchApi api;
  private BlobStore store;
  private SharedRegionCache cache;
  private Path cacheDir;
  // http
  private Process service;
  private Path serviceHome;
  private HttpClient client;
  private HttpRequest request;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Dataset dataset = BenchmarkData.dataset(scale);
    DashboardWorkload dashboard = (DashboardWorkload) Workloads.byName("dashboard", dataset.spec());
    body = dashboard.searchBody().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    bodyJson = JSON.readTree(body);
    long cacheBytes = 2 * dataset.indexBytes() + (64 << 20);
    JsonNode first;
    JsonNode second;
    switch (path) {
      case "library" -> {
        store = dataset.openStore();
        cacheDir = BenchmarkData.scratch("es-http-cache");
        cache = BlobIndexes.cache(cacheDir, cacheBytes, BlobIndexes.regionSizeFor(dataset));
        List<String> names = dataset.indexNames();
        indices = MountedIndices.mount(SnapshotRepository.open(store), names, cache);
        IndexMapping mapping = IndexMapping.of(JSON.readTree(AccessLogDocuments.engineIndexBody()).get("mappings"));
        Map<String, SearchApi.Index> byName = new LinkedHashMap<>();
        for (String name : names) {
          byName.put(name, new SearchApi.Index(name, List.of(name), mapping));
        }
        api = new SearchApi(indices.catalog(), () -> byName);
        first = JSON.readTree(library());
        second = JSON.readTree(library());
      }
      case "http" -> {
        startService(dataset, cacheBytes);
        first = JSON.readTree(http());
        second = JSON.readTree(http());
      }
      default -> throw new IllegalArgumentException("path must be library or http, not " + path);
    }
    DashboardWorkload.Result expected;
    Path checkDir = BenchmarkData.scratch("es-http-check");
    try (BlobStore s = dataset.openStore();
        SharedRegionCache c = BlobIndexes.cache(checkDir, cacheBytes, BlobIndexes.regionSizeFor(dataset));
        MountedIndices check = MountedIndices.mount(SnapshotRepository.open(s), dataset.indexNames(), c)) {
      expected = dashboard.run(check);
    } finally {
      BenchmarkData.delete(checkDir);
    }
    DashboardAnswer.check(expected, first);
    DashboardAnswer.check(expected, second);
  }

  private void startService(Dataset dataset, long cacheBytes) throws IOException {
    Path jar = Path.of(System.getProperty("permafrost.service.jar", "examples/target/permafrost-search-service.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("the search service's jar " + jar.toAbsolutePath() + " is missing: build it"
          + " with scripts/mvn -pl examples -am package -DskipTests, or give -Dpermafrost.service.jar=...");
    }
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    serviceHome = BenchmarkData.scratch("es-http-service");
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java, "--add-modules=jdk.incubator.vector",
        "--enable-native-access=ALL-UNNAMED", "-Xmx2g", "-jar", jar.toString(),
        "--server.address=127.0.0.1", "--server.port=" + port,
        "--permafrost.home=" + serviceHome,
        "--permafrost.repository.uri=" + dataset.repositoryPath().toUri(),
        "--permafrost.sample.enabled=false",
        "--permafrost.cache.size=" + cacheBytes,
        "--permafrost.cache.region-size=" + BlobIndexes.regionSizeFor(dataset),
        "--logging.level.root=WARN"));
    command.add("--permafrost.mounts.all.snapshot=*"); // every snapshot, each under its own name
    service = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(serviceHome.resolve("service.log").toFile()).start();
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    URI base = URI.create("http://127.0.0.1:" + port);
    request = HttpRequest.newBuilder(base.resolve("/_search")).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    HttpRequest count = HttpRequest.newBuilder(base.resolve("/_count")).GET().build();
    while (true) {
      if (!service.isAlive()) {
        throw new IllegalStateException("the search service exited with " + service.exitValue() + "; see "
            + serviceHome.resolve("service.log"));
      }
      try {
        HttpResponse<String> answer = client.send(count, HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() == 200 && JSON.readTree(answer.body()).path("count").asLong() > 0) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while starting the search service");
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the search service did not answer _count within " + START_TIMEOUT
            + "; see " + serviceHome.resolve("service.log"));
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while starting the search service");
      }
    }
  }

  private byte[] library() throws IOException {
    return JSON.writeValueAsBytes(api.search("*", bodyJson, Map.of()));
  }

  private byte[] http() throws IOException {
    try {
      HttpResponse<byte[]> answer = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
      if (answer.statusCode() != 200) {
        throw new IOException("the service answered " + answer.statusCode() + ": " + new String(answer.body(),
            java.nio.charset.StandardCharsets.UTF_8));
      }
      return answer.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted during a search");
    }
  }

  @Benchmark
  public byte[] search() throws IOException {
    return "http".equals(path) ? http() : library();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (service != null) {
      service.destroy();
      try {
        if (!service.waitFor(30, TimeUnit.SECONDS)) {
          service.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      BenchmarkData.delete(serviceHome);
    }
    if (indices != null) {
      indices.close();
      cache.close();
      store.close();
      BenchmarkData.delete(cacheDir);
    }
  }
}
