/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The peer: a real OpenSearch 3.2 cluster of two nodes on 127.0.0.1, each in a JVM of its own (OpenSearch brings its
 * own Lucene), run from the {@code engine-fixture} module's {@code PeerNodeMain} and classpath: {@code cm}
 * (cluster manager and data: it indexes and snapshots) and {@code warm} (OpenSearch 3's role for searchable snapshots:
 * it serves {@code remote_snapshot} indices from a file cache of {@code node.search.cache.size}). Both nodes' S3
 * client reads the repository through {@code s3Endpoint}. Each node's output goes to {@code <work>/<node>.log}.
 */
final class PeerCluster implements AutoCloseable {
  // 297xx: a range no test fixture's node takes (29200-29699 are theirs: an Elasticsearch fixture's transport took
  // 29400 once, and the peer's cluster manager could not bind its HTTP port)
  static final int CM_HTTP = 29700;
  static final int WARM_HTTP = 29701;
  private static final int CM_TRANSPORT = 29710;
  private static final int WARM_TRANSPORT = 29711;

  private final Path work;
  private final String classpath;
  private final String s3Endpoint;
  private final String accessKey;
  private final String secretKey;
  private Process cm;
  private Process warm;
  final Rest rest = new Rest("http://127.0.0.1:" + CM_HTTP);

  PeerCluster(Path work, String s3Endpoint, String accessKey, String secretKey) throws IOException {
    this.work = work;
    this.s3Endpoint = s3Endpoint;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    Path module = projectRoot().resolve("engine-fixture");
    Path classpathFile = module.resolve("target/node-classpath.txt");
    if (!Files.exists(classpathFile)) {
      throw new IllegalStateException("no " + classpathFile + ": build the engine-fixture module first"
          + " (scripts/mvn -pl engine-fixture package -DskipTests)");
    }
    this.classpath = module.resolve("target/classes") + File.pathSeparator + Files.readString(classpathFile).trim();
    Files.createDirectories(work);
  }

  /** Starts both nodes, the warm one with a file cache of {@code fileCacheBytes}, and waits for the cluster to form. */
  void start(long fileCacheBytes) throws IOException, InterruptedException {
    cm = node("cm", "cluster_manager,data", CM_HTTP, CM_TRANSPORT, "-", "2g");
    warm = node("warm", "warm", WARM_HTTP, WARM_TRANSPORT, fileCacheBytes + "b", "2g");
    awaitNodes(2);
  }

  /** Starts the warm node again, empty, with another file cache size; waits for it to join. */
  void restartWarm(long fileCacheBytes) throws IOException, InterruptedException {
    stop(warm);
    awaitNodes(1);
    deleteRecursively(work.resolve("warm"));
    warm = node("warm", "warm", WARM_HTTP, WARM_TRANSPORT, fileCacheBytes + "b", "2g");
    awaitNodes(2);
  }

  /**
   * Waits until {@code indices} are green; if they are not within {@code seconds}, returns why (the allocation
   * explanation of an unassigned shard), else null.
   */
  String awaitGreen(String indices, int seconds) throws IOException {
    try {
      rest.get("/_cluster/health/" + indices + "?wait_for_status=green&timeout=" + seconds + "s");
      return null;
    } catch (IOException e) {
      try {
        JsonNode explain = rest.get("/_cluster/allocation/explain");
        for (JsonNode decider : explain.findValues("explanation")) {
          String text = decider.asText();
          if (!text.isBlank() && !text.equals("none")) {
            return text;
          }
        }
        return explain.toString();
      } catch (IOException notExplained) {
        return e.getMessage();
      }
    }
  }

  /** The warm node's process id (for heap measurements). */
  long warmPid() {
    return warm.pid();
  }

  private Process node(String name, String roles, int http, int transport, String cache, String heap) throws IOException {
    Path log = work.resolve(name + ".log");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p = new ProcessBuilder(java.toString(), "-Xms" + heap, "-Xmx" + heap, "--enable-native-access=ALL-UNNAMED",
        "-cp", classpath, "dev.permafrost.opensearch.fixture.PeerNodeMain", work.toString(), name, roles,
        Integer.toString(http), Integer.toString(transport), Integer.toString(CM_TRANSPORT), "cm", cache, s3Endpoint,
        accessKey, secretKey)
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return p;
  }

  private void awaitNodes(int count) throws IOException, InterruptedException {
    long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (System.nanoTime() < until) {
      if (cm != null && !cm.isAlive()) {
        throw new IllegalStateException("the peer's cluster-manager node exited; see " + work.resolve("cm.log"));
      }
      if (warm != null && count == 2 && !warm.isAlive()) {
        throw new IllegalStateException("the peer's warm node exited; see " + work.resolve("warm.log"));
      }
      if (rest.status("/_cluster/health") == 200 && rest.get("/_cluster/health").get("number_of_nodes").asInt() == count) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("the peer cluster did not have " + count + " nodes within 3 minutes; see the logs in "
        + work);
  }

  private static void stop(Process p) throws InterruptedException {
    if (p == null) {
      return;
    }
    try (OutputStream in = p.getOutputStream()) {
      in.flush(); // closing its input tells the node to stop
    } catch (IOException e) {
      // already gone
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop(warm);
    stop(cm);
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("engine-fixture"))) {
        return p;
      }
    }
    throw new IllegalStateException("no engine-fixture module above " + Path.of("").toAbsolutePath()
        + ": run from the project's checkout");
  }

  /** The nodes' names and roles, for the report. */
  static List<String> describe() {
    return List.of("cm: cluster_manager, data", "warm: warm (searchable snapshots, file cache)");
  }
}
