/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.opensearch.fixture.OpenSearchFixture;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built command line as a real process: {@code java -jar target/permafrost-cli-VERSION.jar} (its dependencies in
 * {@code lib/}, the backends found by ServiceLoader from there), and once through {@code scripts/permafrost}. Runs
 * after {@code package} (failsafe), so that it tests the jar the build ships.
 */
class PermafrostJarIT {
  @TempDir static Path tmp;
  static Path index;

  @BeforeAll
  static void index() throws IOException {
    index = tmp.resolve("index");
    LogIndexes.write(index, 0, 2000, 21);
  }

  @Test
  void theJarTakesVerifiesAndSearchesASnapshotAndExitsAsAUnixTool() throws Exception {
    Path repoDir = tmp.resolve("repo");
    String repo = repoDir.toUri().toString();

    Cli.Run version = java("--version");
    assertEquals(0, version.code(), version.toString());
    assertTrue(version.out().startsWith("permafrost " + System.getProperty("permafrost.cli.version")), version.toString());

    Cli.Run taken = java("snapshot", "-p", "@timestamp", index.toString(), repo, "day-1");
    assertEquals(0, taken.code(), taken.toString());
    assertTrue(taken.err().contains("day-1: 100%"), "progress on stderr: " + taken);
    assertFalse(taken.err().contains("SLF4J"), "a logger is bound: " + taken);

    Cli.Run search = java("search", "--exact-total", repo, "day-*", "host.name:web-02");
    assertEquals(0, search.code(), search.toString());
    assertTrue(search.out().contains(" hits in 1 index"), search.toString());
    assertEquals("", search.err(), "nothing on stderr: no JVM or Lucene notices either");

    assertEquals(0, java("verify", repo).code());
    SnapshotManifest manifest;
    try (BlobStore store = FileSystemBlobStore.open(repoDir, false)) {
      manifest = SnapshotRepository.open(store).readManifest("day-1");
    }
    FileEntry largest = manifest.files().stream().filter(f -> f.blobName() != null)
        .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    FileSystemCliTest.flipByte(repoDir.resolve(largest.blobName()), largest.length() - 100);
    Cli.Run damaged = java("verify", repo, "day-1");
    assertEquals(1, damaged.code(), damaged.toString());
    assertTrue(damaged.out().contains("file " + largest.name() + ": blob " + largest.blobName()), damaged.toString());

    Cli.Run badUri = java("list", "ftp://host/dir?password=hunter2");
    assertEquals(2, badUri.code(), badUri.toString());
    assertTrue(badUri.err().contains("no blob store backend for scheme 'ftp' in 'ftp://host/dir'"), badUri.toString());
    assertFalse(badUri.err().contains("hunter2"), badUri.toString());
  }

  /**
   * The engine's repository through the jar: permafrost-elasticsearch, Lucene's backward codecs (OpenSearch 3.2 wrote
   * Lucene 10.2 segments) and Jackson's SMILE found in its lib/, totals and top hits as the node answered.
   */
  @Test
  void theJarSearchesAnOpenSearchSnapshot() throws Exception {
    Path fixture = OpenSearchFixture.ensure();
    String repo = fixture.resolve("repo").toUri().toString();
    JsonNode expected = new ObjectMapper()
        .readTree(fixture.resolve("answers.json").toFile()).path("snapshots").path("snap-2").path("host");
    Cli.Run search = java("search", "--format", "opensearch", "--exact-total", "--sort", "seq:desc", "-n", "3",
        "-f", "_source", repo, "snap-2/logs-*", "host:web-03");
    assertEquals(0, search.code(), search.toString());
    assertEquals("", search.err(), "nothing on stderr: " + search);
    List<String> lines = search.out().lines().toList();
    assertEquals(4, lines.size(), search.toString());
    for (int i = 0; i < 3; i++) {
      assertTrue(lines.get(i).contains("\t_id=" + expected.path("ids").get(i).asText() + "\t"), search.toString());
      assertTrue(lines.get(i).contains("\t_source={"), search.toString());
    }
    assertEquals(String.format(Locale.ROOT, "total: %,d hits in 2 indices (4 shards)",
        expected.path("total").asLong()), lines.get(3));
  }

  @Test
  void theJarFindsTheS3BackendInItsLib() throws Exception {
    MinioCliTest.ensureBucket();
    String repo = MinioCliTest.freshRepository();
    Cli.Run taken = java("snapshot", "-q", index.toString(), repo, "day-1");
    assertEquals(0, taken.code(), taken.toString());
    Cli.Run list = java("list", "--long", repo);
    assertEquals(0, list.code(), list.toString());
    assertTrue(list.out().startsWith("day-1 "), list.toString());
    assertTrue(list.out().contains("2,000 docs"), list.toString());
  }

  @Test
  void theLauncherScriptRunsTheBuiltJar() throws Exception {
    Path script = Path.of(System.getProperty("permafrost.cli.jar")).getParent().getParent().getParent()
        .resolve("scripts/permafrost");
    Cli.Run run = run(List.of("bash", script.toString(), "--version"));
    assertEquals(0, run.code(), run.toString());
    assertTrue(run.out().startsWith("permafrost " + System.getProperty("permafrost.cli.version")), run.toString());
  }

  private static Cli.Run java(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", System.getProperty("permafrost.cli.jar")));
    command.addAll(List.of(args));
    return run(command);
  }

  private static Cli.Run run(List<String> command) throws Exception {
    Path out = Files.createTempFile(tmp, "out", ".txt");
    Path err = Files.createTempFile(tmp, "err", ".txt");
    Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) { // a guard against a hung process, not a measure of speed
      process.destroyForcibly();
      throw new AssertionError("still running after 5 minutes: " + command);
    }
    return new Cli.Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
