/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.catalog.Glob;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.SnapshotSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.document.LongPoint;

/**
 * Which snapshots of a repository a read covers, on the driver: the names and globs of the {@code snapshots} option
 * matched against the repository's list, and the manifests' facts that let a time range skip a snapshot without
 * opening it.
 */
final class SnapshotSelection {
  /** Manifests read at once on the driver (for time pruning and partition sizes): a GET each, mostly waiting. */
  private static final int MANIFEST_READERS = 32;

  private SnapshotSelection() {}

  /**
   * A selected snapshot and what its manifest records.
   *
   * @param name the snapshot's name
   * @param numDocs its live documents
   * @param sizeInBytes the bytes of its files (-1 if not read)
   * @param minMillis the smallest value of the timestamp field, or null if the manifest has no range for it
   * @param maxMillis the largest, or null
   */
  record Snapshot(String name, long numDocs, long sizeInBytes, Long minMillis, Long maxMillis) {
    /** Whether it may hold a timestamp within {@code [from, to]} (unknown means it may). */
    boolean overlaps(long from, long to) {
      return minMillis == null || maxMillis == null || (from <= maxMillis && to >= minMillis);
    }
  }

  /**
   * The names matching {@code patterns}, sorted.
   *
   * @throws IllegalArgumentException if a plain name (not a glob) is not in the repository
   */
  static List<String> names(SnapshotRepository repo, List<String> patterns, String repoName) throws IOException {
    List<String> all = repo.listSnapshots();
    return Glob.select(patterns, all, p -> new IllegalArgumentException("option 'snapshots' names '" + p + "', which is"
        + " not a snapshot of " + repoName + " (it has " + all.size() + " snapshots"
        + (all.isEmpty() ? "" : ", such as '" + all.get(0) + "'") + ")"));
  }

  /** Reads the manifests of {@code names} (one request each, several at once). */
  static List<Snapshot> describe(SnapshotSource repo, List<String> names, String timestampField) throws IOException {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(MANIFEST_READERS, names.size())), r -> {
      Thread t = new Thread(r, "permafrost-manifests");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<Snapshot>> futures = new ArrayList<>();
      for (String name : names) {
        futures.add(pool.submit(() -> summary(repo.parseManifest(name, repo.readManifestBytes(name)).info(), timestampField)));
      }
      List<Snapshot> snapshots = new ArrayList<>(names.size());
      for (Future<Snapshot> f : futures) {
        snapshots.add(f.get());
      }
      return snapshots;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading manifests");
    } finally {
      pool.shutdownNow();
    }
  }

  private static Snapshot summary(SnapshotInfo info, String timestampField) {
    PointRange range = info.pointRanges().get(timestampField);
    if (range == null || range.numDimensions() != 1 || range.bytesPerDimension() != Long.BYTES) {
      return new Snapshot(info.name(), info.numDocs(), info.totalBytes(), null, null);
    }
    return new Snapshot(info.name(), info.numDocs(), info.totalBytes(), LongPoint.decodeDimension(range.minPackedValue(), 0),
        LongPoint.decodeDimension(range.maxPackedValue(), 0));
  }
}
