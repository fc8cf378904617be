/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.examples.service.snapshots.SnapshotSources;
import dev.permafrost.examples.service.snapshots.SnapshotTasks;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Snapshots: {@code GET /snapshots} (the repository's, the tasks since start-up and the sources),
 * {@code GET /snapshots/{name}}, {@code POST /snapshots} (take one of a source, in the background) and
 * {@code GET /snapshots/tasks/{name}} (its progress).
 */
@RestController
@RequestMapping("/snapshots")
class SnapshotsController {
  private final SnapshotRepository repository;
  private final SnapshotTasks tasks;
  private final SnapshotSources sources;
  private final String timestampField;

  SnapshotsController(SnapshotRepository repository, SnapshotTasks tasks, SnapshotSources sources,
      ServiceProperties properties) {
    this.repository = repository;
    this.tasks = tasks;
    this.sources = sources;
    this.timestampField = properties.search().timestampField();
  }

  /**
   * What {@code POST /snapshots} takes: the source to snapshot, the snapshot's name (default: the source's), and an
   * earlier snapshot of the source to take it as an increment of (its files read only where that one lacks them).
   */
  record CreateRequest(String source, String snapshot, String basedOn) {}

  @GetMapping
  Map<String, Object> list() throws IOException {
    return Map.of("repository", repository.store().describe(), "snapshots", repository.listSnapshots(),
        "tasks", tasks.all(), "sources", sources.all().keySet());
  }

  @GetMapping("/{name}")
  Views.Snapshot get(@PathVariable String name) throws IOException {
    return Views.Snapshot.of(repository.snapshotInfo(name), timestampField);
  }

  @PostMapping
  ResponseEntity<SnapshotTasks.Task> create(@RequestBody CreateRequest body) throws IOException {
    if (body == null || body.source() == null || body.source().isBlank()) {
      throw ApiException.badParameter("give the 'source' to snapshot, one of " + sources.all().keySet());
    }
    String name = body.snapshot() == null || body.snapshot().isBlank() ? body.source() : body.snapshot();
    if (repository.listSnapshots().contains(name)) {
      throw new ApiException(HttpStatus.CONFLICT, "Snapshot exists", "the repository has a snapshot named '" + name
          + "' already");
    }
    if (body.basedOn() != null && !repository.listSnapshots().contains(body.basedOn())) {
      throw ApiException.badParameter("'basedOn' names no snapshot of the repository: '" + body.basedOn() + "'");
    }
    SnapshotTasks.Task task;
    try {
      task = tasks.start(body.source(), name, body.basedOn());
    } catch (IllegalArgumentException e) {
      throw ApiException.badParameter(e.getMessage());
    } catch (IllegalStateException e) {
      throw new ApiException(HttpStatus.CONFLICT, "Snapshot in progress", e.getMessage());
    }
    return ResponseEntity.accepted().location(URI.create("/snapshots/tasks/" + name)).body(task);
  }

  @GetMapping("/tasks/{name}")
  SnapshotTasks.Task task(@PathVariable String name) {
    SnapshotTasks.Task task = tasks.get(name);
    if (task == null) {
      throw new ApiException(HttpStatus.NOT_FOUND, "Unknown task", "no snapshot named '" + name
          + "' was asked for since the service started");
    }
    return task;
  }
}
