/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.snapshots;

import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotProgress;
import dev.permafrost.snapshot.SnapshotRepository;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Snapshots being taken (one at a time, in the background) and those taken since start-up, with their progress.
 * The snapshot records the timestamp field's range, so searches with a time range can skip it.
 */
@Component
public class SnapshotTasks implements DisposableBean {
  private static final Logger log = LoggerFactory.getLogger(SnapshotTasks.class);
  private final SnapshotRepository repository;
  private final SnapshotSources sources;
  private final String timestampField;
  private final Map<String, Task> tasks = new ConcurrentHashMap<>();
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "permafrost-snapshots");
    t.setDaemon(true);
    return t;
  });

  SnapshotTasks(SnapshotRepository repository, SnapshotSources sources, ServiceProperties properties) {
    this.repository = repository;
    this.sources = sources;
    this.timestampField = properties.search().timestampField();
  }

  /** Where a task is. */
  public enum State { QUEUED, RUNNING, DONE, FAILED }

  /**
   * A snapshot being taken, or taken.
   *
   * @param snapshot its name
   * @param source the source it is taken of
   * @param state where it is
   * @param progress the last progress report (null before the first)
   * @param error why it failed (null unless it did)
   * @param startedAt when it was asked for
   */
  public record Task(String snapshot, String source, State state, SnapshotProgress progress, String error,
      Instant startedAt) {}

  /**
   * Starts taking snapshot {@code snapshot} of source {@code source}, as an increment of snapshot {@code basedOn} if
   * not null ({@link SnapshotOptions#withBasedOn}: the files whose blobs it has are not read again).
   *
   * @throws IllegalArgumentException if the source is unknown or a name is invalid
   * @throws IllegalStateException if a snapshot of that name is being taken already
   */
  public Task start(String source, String snapshot, String basedOn) {
    Path directory = sources.get(source);
    if (directory == null) {
      throw new IllegalArgumentException("no snapshot source named '" + source + "'; known: " + sources.all().keySet()
          + " (permafrost.snapshots.sources)");
    }
    SnapshotRepository.validateName(snapshot);
    if (basedOn != null) {
      SnapshotRepository.validateName(basedOn);
    }
    Task task = new Task(snapshot, source, State.QUEUED, null, null, Instant.now());
    Task previous = tasks.compute(snapshot, (k, old) -> old != null && (old.state() == State.QUEUED
        || old.state() == State.RUNNING) ? old : task);
    if (previous != task) {
      throw new IllegalStateException("snapshot '" + snapshot + "' is being taken already");
    }
    executor.execute(() -> run(task, directory, basedOn));
    return task;
  }

  private void run(Task task, Path directory, String basedOn) {
    String name = task.snapshot();
    tasks.computeIfPresent(name, (k, t) -> withState(t, State.RUNNING, null, null));
    SnapshotProgress.Listener listener = p -> tasks.computeIfPresent(name, (k, t) -> withState(t, State.RUNNING, p, null));
    try (Directory dir = FSDirectory.open(directory)) {
      SnapshotInfo info = repository.createSnapshot(name, dir,
          SnapshotOptions.DEFAULTS.withPointFields(timestampField).withBasedOn(basedOn).withListener(listener));
      tasks.computeIfPresent(name, (k, t) -> withState(t, State.DONE, t.progress(), null));
      log.info("snapshot '{}' of source '{}' taken: {} files, {} bytes", name, task.source(), info.fileCount(),
          info.totalBytes());
    } catch (Exception e) {
      log.warn("snapshot '{}' of source '{}' failed: {}", name, task.source(), e.toString());
      tasks.computeIfPresent(name, (k, t) -> withState(t, State.FAILED, t.progress(), e.getMessage()));
    }
  }

  private static Task withState(Task t, State state, SnapshotProgress progress, String error) {
    return new Task(t.snapshot(), t.source(), state, progress == null ? t.progress() : progress, error, t.startedAt());
  }

  /** The task of {@code snapshot}, or null. */
  public Task get(String snapshot) {
    return tasks.get(snapshot);
  }

  /** Every task since start-up, oldest first. */
  public List<Task> all() {
    List<Task> all = new ArrayList<>(tasks.values());
    all.sort(Comparator.comparing(Task::startedAt));
    return all;
  }

  @Override
  public void destroy() {
    executor.shutdownNow();
  }
}
