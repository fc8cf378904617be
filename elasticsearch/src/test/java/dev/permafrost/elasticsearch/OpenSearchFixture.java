/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the opensearch-fixture module's real OpenSearch node in a JVM of its own (OpenSearch needs its own Lucene),
 * once per build: it writes an {@code fs} snapshot repository and the node's answers to the queries under
 * {@code target/opensearch-fixture}, which later tests reuse while the queries and the program are unchanged.
 */
final class OpenSearchFixture {
  static final Path WORK = Path.of("target", "opensearch-fixture").toAbsolutePath();

  private OpenSearchFixture() {}

  /** The fixture's directory, written first if it is not complete for these queries. */
  static synchronized Path ensure() throws IOException, InterruptedException {
    Path root = projectRoot();
    Path module = root.resolve("opensearch-fixture");
    Path queries = module.resolve("src/main/resources/fixture-queries.json");
    Path copy = WORK.resolve("queries.json");
    Path stamp = WORK.resolve("fixture.sha256");
    String digest = digest(queries, module.resolve("target/classes/dev/permafrost/opensearch/fixture/FixtureMain.class"));
    if (Files.exists(WORK.resolve("DONE")) && Files.exists(stamp) && Files.readString(stamp).equals(digest)) {
      return WORK;
    }
    if (Files.exists(WORK)) {
      try (Stream<Path> paths = Files.walk(WORK)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Files.createDirectories(WORK);
    Path classpathFile = module.resolve("target/node-classpath.txt");
    if (!Files.exists(classpathFile)) {
      throw new IllegalStateException("no " + classpathFile + ": build the opensearch-fixture module first (the"
          + " reactor does, as this module depends on it)");
    }
    String classpath = module.resolve("target/classes") + java.io.File.pathSeparator + Files.readString(classpathFile).trim();
    Path log = WORK.resolve("fixture.log");
    Process node = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
        "--enable-native-access=ALL-UNNAMED", "-cp", classpath, "dev.permafrost.opensearch.fixture.FixtureMain",
        WORK.toString(), queries.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!node.waitFor(10, TimeUnit.MINUTES)) {
      node.destroyForcibly();
      throw new IllegalStateException("the OpenSearch fixture did not finish in 10 minutes; its log:\n" + tail(log));
    }
    if (node.exitValue() != 0 || !Files.exists(WORK.resolve("DONE"))) {
      throw new IllegalStateException("the OpenSearch fixture failed (exit " + node.exitValue() + "); its log:\n" + tail(log));
    }
    Files.copy(queries, copy, StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(stamp, digest);
    return WORK;
  }

  /** What the fixture is made from: the queries and the program that answers them. */
  private static String digest(Path... files) throws IOException {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      for (Path f : files) {
        sha.update(Files.readAllBytes(f));
      }
      return java.util.HexFormat.of().formatHex(sha.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 50), lines.size()));
  }

  private static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("opensearch-fixture"))) {
        return p;
      }
    }
    throw new IllegalStateException("no opensearch-fixture module above " + Path.of("").toAbsolutePath());
  }
}
