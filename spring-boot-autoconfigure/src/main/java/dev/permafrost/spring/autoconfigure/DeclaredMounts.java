/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Glob;
import dev.permafrost.catalog.MountAllResult;
import dev.permafrost.catalog.MountSpec;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * The mounts of {@code permafrost.mounts.<name>.snapshot}, mounted with {@link Catalog#mountAll} when the application
 * starts: a plain snapshot name is mounted under {@code <name>}; a glob mounts every matching snapshot under its own
 * name. A declared snapshot that is missing stops the start naming the property; a glob that matches nothing is
 * logged; a mount that fails is logged and the others go on.
 */
public final class DeclaredMounts implements InitializingBean {
  private static final Logger log = LoggerFactory.getLogger(DeclaredMounts.class);
  private final Catalog catalog;
  private final SnapshotRepository repository;
  private final Map<String, PermafrostProperties.Mount> mounts;
  private MountAllResult result;

  DeclaredMounts(Catalog catalog, SnapshotRepository repository, Map<String, PermafrostProperties.Mount> mounts) {
    this.catalog = catalog;
    this.repository = repository;
    this.mounts = mounts;
  }

  @Override
  public void afterPropertiesSet() throws IOException {
    if (mounts.isEmpty()) {
      result = new MountAllResult(List.of(), Map.of());
      return;
    }
    List<String> snapshots = repository.listSnapshots();
    List<MountSpec> specs = new ArrayList<>();
    for (Map.Entry<String, PermafrostProperties.Mount> e : mounts.entrySet()) {
      String pattern = e.getValue().snapshot();
      Glob glob = Glob.of(pattern);
      if (glob.isPlainName()) {
        if (!snapshots.contains(pattern)) {
          throw new IllegalStateException("permafrost.mounts." + e.getKey() + ".snapshot=" + pattern + ": no such snapshot in "
              + repository.store().describe());
        }
        specs.add(new MountSpec(e.getKey(), pattern, e.getValue().mode(), null));
        continue;
      }
      int before = specs.size();
      for (String s : snapshots) {
        if (glob.matches(s)) {
          specs.add(new MountSpec(s, s, e.getValue().mode(), null));
        }
      }
      if (specs.size() == before) {
        log.warn("permafrost.mounts.{}.snapshot={} matches no snapshot of {}", e.getKey(), pattern,
            repository.store().describe());
      }
    }
    result = catalog.mountAll(repository, specs);
    log.info("mounted {} of the {} snapshots permafrost.mounts declares{}", result.mounted().size(), specs.size(),
        result.failed().isEmpty() ? "" : "; failed: " + result.failed());
  }

  /** What the start-up mounted, and what failed. */
  public MountAllResult result() {
    return result;
  }
}
