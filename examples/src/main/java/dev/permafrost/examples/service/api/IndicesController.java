/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.MountMode;
import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.examples.service.mounts.SavedMounts;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Mounting: {@code GET /indices}, {@code GET|PUT|DELETE /indices/{name}}. */
@RestController
@RequestMapping("/indices")
class IndicesController {
  private final Catalog catalog;
  private final SnapshotRepository repository;
  private final String timestampField;
  private final SavedMounts savedMounts;

  IndicesController(Catalog catalog, SnapshotRepository repository, ServiceProperties properties,
      SavedMounts savedMounts) {
    this.savedMounts = savedMounts;
    this.catalog = catalog;
    this.repository = repository;
    this.timestampField = properties.search().timestampField();
  }

  /** What {@code PUT /indices/{name}} takes: the snapshot (default: the index's name) and the mount mode. */
  record MountRequest(String snapshot, String mode) {}

  @GetMapping
  List<Views.Index> list() {
    return catalog.list().stream().map(m -> Views.Index.of(m, timestampField)).toList();
  }

  @GetMapping("/{name}")
  Views.Index get(@PathVariable String name) {
    return Views.Index.of(info(name), timestampField);
  }

  @PutMapping("/{name}")
  ResponseEntity<Views.Index> mount(@PathVariable String name, @RequestBody(required = false) MountRequest body)
      throws IOException {
    String snapshot = body == null || body.snapshot() == null || body.snapshot().isBlank() ? name : body.snapshot();
    MountMode mode = mode(body == null ? null : body.mode());
    if (catalog.list().stream().anyMatch(m -> m.name().equals(name))) {
      throw new ApiException(HttpStatus.CONFLICT, "Already mounted",
          "an index named '" + name + "' is mounted already; unmount it first");
    }
    MountInfo info;
    try {
      info = catalog.mount(name, repository, snapshot, mode);
    } catch (IllegalArgumentException e) { // a malformed name, or mounted meanwhile
      throw ApiException.badParameter(e.getMessage());
    }
    savedMounts.save();
    return ResponseEntity.status(HttpStatus.CREATED).body(Views.Index.of(info, timestampField));
  }

  @DeleteMapping("/{name}")
  Map<String, Object> unmount(@PathVariable String name) throws IOException {
    info(name);
    catalog.unmount(name);
    savedMounts.save();
    return Map.of("unmounted", name);
  }

  private MountInfo info(String name) {
    try {
      return catalog.info(name);
    } catch (IllegalArgumentException e) {
      throw ApiException.unknownIndex(name);
    }
  }

  private static MountMode mode(String text) {
    if (text == null || text.isBlank()) {
      return MountMode.SHARED_CACHE;
    }
    try {
      return MountMode.valueOf(text.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw ApiException.badParameter("'mode' must be shared_cache or full_copy, got '" + text + "'");
    }
  }
}
