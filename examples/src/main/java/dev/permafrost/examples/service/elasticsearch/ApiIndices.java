/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.elasticsearch;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.dsl.IndicesApi;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.examples.service.engine.EngineIndices;
import dev.permafrost.examples.service.engine.IndexMappings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * The indices the Elasticsearch-compatible API sees, as they are at each request: an engine snapshot's indices by
 * their own names (each over its mounted shards, with the mapping the snapshot recorded), then every other mounted
 * index under its mount name, with the mapping {@code permafrost.search.mapping} declares for the service's own
 * snapshots (the sample data's by default).
 */
@Component
class ApiIndices implements SearchApi.Indices {
  private final Catalog catalog;
  private final EngineIndices engineIndices;
  private final IndexMapping declared;

  ApiIndices(Catalog catalog, EngineIndices engineIndices, IndexMappings mappings) {
    this.catalog = catalog;
    this.engineIndices = engineIndices;
    this.declared = mappings.declared();
  }

  @Override
  public Map<String, SearchApi.Index> current() {
    Map<String, SearchApi.Index> all = new LinkedHashMap<>(engineIndices.indices());
    Set<String> shards = new HashSet<>();
    all.values().forEach(i -> shards.addAll(i.shards()));
    for (MountInfo mounted : catalog.list()) {
      if (!shards.contains(mounted.name()) && !all.containsKey(mounted.name())) {
        all.put(mounted.name(), new SearchApi.Index(mounted.name(), List.of(mounted.name()), declared,
            ownSettings(mounted)));
      }
    }
    return all;
  }

  /** The engine's indices left out because they cannot be read. */
  List<IndicesApi.Unreadable> unreadable() {
    return engineIndices.unreadable();
  }

  /**
   * What {@code GET /{index}} shows as the settings of one of the service's own snapshots, which records none: one
   * shard, no replica, its name, and a uuid drawn from its mount name and snapshot (the same at every start).
   */
  private static Map<String, String> ownSettings(MountInfo mounted) {
    UUID uuid = UUID.nameUUIDFromBytes((mounted.name() + "\n" + mounted.snapshot()).getBytes(StandardCharsets.UTF_8));
    byte[] bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits()).array();
    return Map.of("index.number_of_shards", "1", "index.number_of_replicas", "0",
        "index.provided_name", mounted.name(), "index.uuid", Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
  }
}
