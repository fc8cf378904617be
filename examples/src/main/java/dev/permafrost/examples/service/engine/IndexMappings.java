/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.engine;

import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.sample.AccessLogDocuments;
import java.io.IOException;
import java.nio.file.Files;
import org.springframework.stereotype.Component;

/**
 * The mapping each mounted index is searched by, whatever door the search comes through: an engine's shard by the
 * mapping its snapshot recorded, any other index (the service's own snapshots) by the one
 * {@code permafrost.search.mapping} declares (the sample data's by default).
 */
@Component
public class IndexMappings {
  private final EngineIndices engineIndices;
  private final IndexMapping declared;

  IndexMappings(EngineIndices engineIndices, ServiceProperties properties) {
    this.engineIndices = engineIndices;
    this.declared = declaredMapping(properties.search());
  }

  private static IndexMapping declaredMapping(ServiceProperties.Search settings) {
    try {
      return IndexMapping.declared(settings.mapping() != null ? Files.readString(settings.mapping())
          : AccessLogDocuments.engineIndexBody());
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException("permafrost.search.mapping=" + settings.mapping() + " cannot be read as a JSON"
          + " mapping: " + e.getMessage(), e);
    }
  }

  /** The mapping declared for the service's own snapshots. */
  public IndexMapping declared() {
    return declared;
  }

  /** The mapping of the index mounted as {@code name}: its engine's recorded one, else the declared one. */
  public IndexMapping of(String name) {
    IndexMapping recorded = engineIndices.mappingOf(name);
    return recorded != null ? recorded : declared;
  }

  /** Whether {@code name} is an engine's shard (its hits have an {@code _id}, maybe no stored {@code _source}). */
  public boolean isEngineShard(String name) {
    return engineIndices.mappingOf(name) != null;
  }
}
