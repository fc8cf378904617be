/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.snapshots;

import dev.permafrost.examples.service.config.ServiceProperties;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.springframework.stereotype.Component;

/**
 * The local index directories the service may snapshot, by name: those of {@code permafrost.snapshots.sources}, and
 * the sample's daily indices. A request names one of these, never a path, so clients cannot read arbitrary files.
 */
@Component
public class SnapshotSources {
  private final Map<String, Path> sources = new ConcurrentSkipListMap<>();

  SnapshotSources(ServiceProperties properties) {
    sources.putAll(properties.snapshots().sources());
  }

  /** Adds (or replaces) a source. */
  public void add(String name, Path directory) {
    sources.put(name, directory);
  }

  /** The directory of {@code name}, or null. */
  public Path get(String name) {
    return sources.get(name);
  }

  /** Every source, by name. */
  public Map<String, Path> all() {
    return new TreeMap<>(sources);
  }
}
