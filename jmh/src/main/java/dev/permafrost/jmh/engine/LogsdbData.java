/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.sample.DatasetSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * An Elasticsearch 9.3.3 logsdb index of {@code docs} access-log documents (one day of {@code sample-data}'s generator,
 * {@link DatasetSpec#of DatasetSpec.of(1, docs)}), one shard force-merged to one segment, in snapshot {@value #SNAPSHOT}
 * of an {@code fs} repository a real node wrote, with that node's answer to the dashboard's search request
 * ({@link #nodeAnswer()}). It lives in {@code <bench data>/es93-logsdb-<docs>-seed42/}, under
 * {@code $PERMAFROST_BENCH_DATA} as the other data sets: generated on first use ({@code LogsdbDataWriter.getOrCreate}) and reused
 * after; delete the folder to write it again.
 *
 * @param dir the data set's folder
 * @param spec the access-log data it holds (one day)
 */
public record LogsdbData(Path dir, DatasetSpec spec) {
  /** The index the node wrote, one shard. */
  public static final String INDEX = "logs-nginx";
  /** The snapshot that holds it. */
  public static final String SNAPSHOT = "snap";
  static final String REPO = "repo";
  static final String NODE_ANSWER = "node-answer.json";
  static final String GENERATION = "generation.json";
  static final String DONE = "DONE";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where the data set of {@code docs} documents lives under {@code base} (whether written or not). */
  public static LogsdbData at(Path base, int docs) {
    if (docs < 1) {
      throw new IllegalArgumentException("the logsdb data set needs at least one document, got " + docs);
    }
    DatasetSpec spec = DatasetSpec.of(1, docs);
    return new LogsdbData(base.resolve("es93-logsdb-" + docs + "-seed" + spec.seed()), spec);
  }

  /** The {@code fs} repository the node wrote. */
  public Path repository() {
    return dir.resolve(REPO);
  }

  /** The node's answer to the dashboard's search request (size 0, exact total), as it sent it. */
  public JsonNode nodeAnswer() throws IOException {
    return JSON.readTree(dir.resolve(NODE_ANSWER).toFile());
  }

  /** What writing it took: seconds indexing, force-merging, snapshotting, and the repository's bytes. */
  public JsonNode generation() throws IOException {
    return JSON.readTree(dir.resolve(GENERATION).toFile());
  }

  /** The bytes of the repository's files (the index's files and the repository's metadata). */
  public long repositoryBytes() throws IOException {
    return bytesUnder(repository());
  }

  static long bytesUnder(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      long bytes = 0;
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        bytes += Files.size(f);
      }
      return bytes;
    }
  }

  @Override
  public String toString() {
    return "es93-logsdb " + spec.eventsPerDay() + " documents at " + dir;
  }
}
