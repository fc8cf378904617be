/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.sample;

import dev.permafrost.blob.Durations;
import java.nio.file.Path;

/**
 * Command line: generates (or finds) an access-log data set and prints where it is.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.permafrost.sample.DatasetGenerator [scale] [base-dir]
 * </pre>
 *
 * where {@code scale} is as in {@link DatasetSpec#parse(String)} (default {@code smoke}) and {@code base-dir}
 * defaults to {@link Dataset#defaultBaseDir()}.
 */
public final class DatasetGenerator {
  private DatasetGenerator() {}

  public static void main(String[] args) throws Exception {
    DatasetSpec spec = DatasetSpec.parse(args.length > 0 ? args[0] : "smoke");
    Path base = args.length > 1 ? Path.of(args[1]) : Dataset.defaultBaseDir();
    long start = System.nanoTime();
    Dataset dataset = Dataset.getOrCreate(base, spec);
    System.out.printf(
        "%s%nready in %s: %d events, %d index bytes (%.1f MiB)%n",
        dataset,
        Durations.formatNanos(System.nanoTime() - start),
        (long) spec.days() * spec.eventsPerDay(),
        dataset.indexBytes(),
        dataset.indexBytes() / 1048576.0);
  }
}
