/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.sample.Dataset;
import dev.permafrost.sample.DatasetSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Helpers shared by the benchmarks: the data set of a scale, and scratch folders for caches. */
final class BenchmarkData {
  private BenchmarkData() {}

  /** The data set of {@code scale} (see {@link DatasetSpec#parse}), generated on first use. */
  static Dataset dataset(String scale) throws IOException {
    Dataset dataset = Dataset.getOrCreate(DatasetSpec.parse(scale));
    System.out.println("# data set: " + dataset);
    return dataset;
  }

  /** A fresh scratch folder for a cache, under the data folder (same disk as the data). */
  static Path scratch(String what) throws IOException {
    Path base = Dataset.defaultBaseDir().resolve("scratch");
    Files.createDirectories(base);
    return Files.createTempDirectory(base, what + "-");
  }

  /** Deletes a scratch folder. */
  static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
