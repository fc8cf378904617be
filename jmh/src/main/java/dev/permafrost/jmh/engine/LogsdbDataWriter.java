/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.fixture.EngineDriver;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.LiveEngineNode;
import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.sample.AccessLogGenerator;
import dev.permafrost.sample.Dataset;
import dev.permafrost.sample.DatasetSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Writes a {@link LogsdbData} through a real Elasticsearch 9.3.3 node ({@code engine-fixture}'s
 * {@link LiveEngineNode}, started empty, HTTP on 127.0.0.1 only): creates {@value LogsdbData#INDEX} with
 * {@code index.mode: logsdb} sorted on {@code host.name} ascending then {@code @timestamp} descending (as
 * {@code engine-fixture}'s {@code logs-host}; 9.3 refuses {@code index.logsdb.sort_on_host_name}) and
 * {@code sample-data}'s engine mapping of the 36 access-log fields, indexes one day of the generator's documents with
 * bulk requests, force-merges to one segment, asks the node the dashboard's search request (its answer is what the
 * benchmarks check theirs against), snapshots into an {@code fs} repository and stops the node. The node's data,
 * home and log are in a scratch folder, deleted after; the data set's folder appears whole or not at all (written
 * beside it, then renamed).
 *
 * <p>Command line (the documented way to write 2,000,000 documents before benchmarking them; a benchmark that finds no
 * data set writes it in its set-up, where JMH's time-out may interrupt it):
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.permafrost.jmh.engine.LogsdbDataWriter [docs] [base-dir]
 * </pre>
 *
 * Run from the checkout (the node's jars are found through {@code elasticsearch93-fixture/target/node-classpath.txt}:
 * build that module first).
 */
public final class LogsdbDataWriter {
  private static final int BULK_DOCS = 4000;
  private static final String SETTINGS = "{\"number_of_shards\": 1, \"number_of_replicas\": 0,"
      + " \"refresh_interval\": \"-1\", \"mode\": \"logsdb\", \"sort\": {\"field\": [\"host.name\", \"@timestamp\"],"
      + " \"order\": [\"asc\", \"desc\"]}}";
  private static final ObjectMapper JSON = new ObjectMapper();

  private LogsdbDataWriter() {}

  public static void main(String[] args) throws Exception {
    int docs = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 2_000_000;
    Path base = args.length > 1 ? Path.of(args[1]) : Dataset.defaultBaseDir();
    LogsdbData data = LogsdbData.at(base, docs);
    if (Files.exists(data.dir().resolve(LogsdbData.DONE))) {
      System.out.println("already written: " + data + "; " + data.generation());
      return;
    }
    write(data);
    System.out.println("written: " + data + "; " + data.generation());
  }

  /** The data set of {@code docs} documents under the benchmark data's folder, written first if it is not there. */
  public static LogsdbData getOrCreate(int docs) throws IOException, InterruptedException {
    LogsdbData data = LogsdbData.at(Dataset.defaultBaseDir(), docs);
    if (!Files.exists(data.dir().resolve(LogsdbData.DONE))) {
      write(data);
    }
    return data;
  }

  /** Writes {@code data} (its folder must not hold a finished data set). */
  static void write(LogsdbData data) throws IOException, InterruptedException {
    Path dir = data.dir();
    Path parent = dir.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path partial = parent.resolve(dir.getFileName() + ".partial");
    Path nodeWork = parent.resolve("scratch").resolve(dir.getFileName() + "-node");
    delete(partial);
    delete(dir);
    Files.createDirectories(partial);
    System.err.println("logsdb: writing " + data + " through an Elasticsearch 9.3.3 node (node log: "
        + nodeWork.resolve("node.log") + ")");
    ObjectNode generation = JSON.createObjectNode();
    long start = System.nanoTime();
    try (LiveEngineNode node = LiveEngineNode.startBare(EngineFixture.ELASTICSEARCH_93, nodeWork)) {
      long started = System.nanoTime();
      EngineDriver es = node.api();
      JsonNode mapping = JSON.readTree(AccessLogDocuments.engineIndexBody()).get("mappings");
      createIndex(es, mapping.toString());
      index(es, data.spec());
      long indexed = System.nanoTime();
      es.request("POST", "/" + LogsdbData.INDEX + "/_forcemerge?max_num_segments=1", null);
      es.request("POST", "/" + LogsdbData.INDEX + "/_flush?force=true", null);
      long merged = System.nanoTime();
      checkShape(es, data.spec().eventsPerDay());
      DashboardWorkload dashboard = (DashboardWorkload) Workloads.byName("dashboard", data.spec());
      String body = dashboard.searchBody().replaceFirst("^\\{", "{\"track_total_hits\":true,");
      Files.writeString(partial.resolve(LogsdbData.NODE_ANSWER),
          es.request("POST", "/" + LogsdbData.INDEX + "/_search", body) + "\n");
      es.request("PUT", "/_snapshot/fsrepo", "{\"type\": \"fs\", \"settings\": {\"location\": "
          + JSON.writeValueAsString(node.repository().toString()) + "}}");
      String snapshot = es.request("PUT", "/_snapshot/fsrepo/" + LogsdbData.SNAPSHOT + "?wait_for_completion=true",
          "{\"indices\": \"" + LogsdbData.INDEX + "\", \"include_global_state\": false}");
      if (!snapshot.contains("\"SUCCESS\"")) {
        throw new IllegalStateException("the snapshot did not succeed: " + snapshot);
      }
      long snapshotted = System.nanoTime();
      generation.put("documents", data.spec().eventsPerDay());
      generation.put("node_start_seconds", (started - start) / 1e9);
      generation.put("index_seconds", (indexed - started) / 1e9);
      generation.put("force_merge_seconds", (merged - indexed) / 1e9);
      generation.put("snapshot_seconds", (snapshotted - merged) / 1e9);
      JsonNode nodes = JSON.readTree(es.request("GET", "/_nodes/_local", null)).path("nodes");
      generation.put("node_version", nodes.elements().next().path("version").asText());
      node.close();
      Files.move(node.repository(), partial.resolve(LogsdbData.REPO));
    }
    generation.put("total_seconds", (System.nanoTime() - start) / 1e9);
    generation.put("repository_bytes", LogsdbData.bytesUnder(partial.resolve(LogsdbData.REPO)));
    Files.writeString(partial.resolve(LogsdbData.GENERATION), generation.toPrettyString() + "\n");
    Files.writeString(partial.resolve(LogsdbData.DONE), "done\n");
    Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
    delete(nodeWork);
    System.err.println("logsdb: written " + data + ": " + generation);
  }

  private static void createIndex(EngineDriver es, String mapping) throws IOException {
    try {
      es.createIndex(LogsdbData.INDEX, SETTINGS, mapping);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("the node did not create " + LogsdbData.INDEX + ": " + e, e);
    }
  }

  /** One day of the generator's events, in bulks of {@value #BULK_DOCS} sent by two threads. */
  private static void index(EngineDriver es, DatasetSpec spec) throws IOException, InterruptedException {
    BlockingQueue<String> bulks = new ArrayBlockingQueue<>(4);
    String end = new String("end"); // compared by identity: no bulk is this object
    ExecutorService senders = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> sending = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        sending.add(senders.submit(() -> {
          for (String body = bulks.take(); body != end; body = bulks.take()) {
            es.bulk(body);
          }
          return null;
        }));
      }
      String action = "{\"index\":{\"_index\":\"" + LogsdbData.INDEX + "\"}}\n";
      StringBuilder bulk = new StringBuilder(BULK_DOCS * 1300);
      int[] counts = {0, 0}; // in this bulk, in all
      long start = System.nanoTime();
      new AccessLogGenerator(spec.seed()).generateDay(spec.day(0), spec.eventsPerDay(), e -> {
        bulk.append(action).append(AccessLogDocuments.engineDocument(e)).append('\n');
        counts[1]++;
        if (++counts[0] == BULK_DOCS) {
          put(bulks, bulk.toString(), sending);
          bulk.setLength(0);
          counts[0] = 0;
          if (counts[1] % 200_000 == 0) {
            System.err.printf("logsdb: %,d documents sent after %.0f s%n", counts[1], (System.nanoTime() - start) / 1e9);
          }
        }
      });
      if (counts[0] > 0) {
        put(bulks, bulk.toString(), sending);
      }
      for (int t = 0; t < 2; t++) {
        put(bulks, end, sending);
      }
      for (Future<?> f : sending) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IOException("indexing into " + LogsdbData.INDEX + " failed: " + e.getCause().getMessage(), e.getCause());
    } finally {
      senders.shutdownNow();
    }
    es.request("POST", "/" + LogsdbData.INDEX + "/_refresh", null);
  }

  /** Queues a bulk; a sender that failed ends the indexing at once instead of blocking the generator. */
  private static void put(BlockingQueue<String> queue, String body, List<Future<?>> senders) {
    try {
      while (!queue.offer(body, 1, TimeUnit.SECONDS)) {
        for (Future<?> f : senders) {
          if (f.isDone()) {
            f.get(); // throws the sender's failure
            throw new IllegalStateException("a bulk sender ended early");
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while indexing", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("bulk indexing failed: " + e.getCause().getMessage(), e.getCause());
    }
  }

  /** The node holds every document in one segment, sorted as asked: what the benchmark's description says. */
  private static void checkShape(EngineDriver es, int docs) throws IOException, InterruptedException {
    long count = JSON.readTree(es.request("GET", "/" + LogsdbData.INDEX + "/_count", null)).path("count").asLong();
    if (count != docs) {
      throw new IllegalStateException("the node counts " + count + " documents in " + LogsdbData.INDEX + ", not " + docs);
    }
    JsonNode segments = JSON.readTree(es.request("GET", "/" + LogsdbData.INDEX + "/_segments", null))
        .path("indices").path(LogsdbData.INDEX).path("shards").path("0").path(0).path("segments");
    if (segments.size() != 1) {
      throw new IllegalStateException(LogsdbData.INDEX + " is not one segment after the force-merge: " + segments);
    }
  }

  private static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
