/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.engine;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.Durations;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Glob;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.IndexMetadata;
import dev.permafrost.elasticsearch.dsl.IndicesApi;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.snapshot.SnapshotException;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.CorruptIndexException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * With {@code permafrost.engine-repository.uri} set, mounts at start-up the shards of an Elasticsearch or OpenSearch
 * snapshot ({@code <index>.<shard>}), and knows the mapping each shard's index recorded. An index
 * written in formats that cannot be read (an Elasticsearch vector index, or a logsdb or time_series index created by
 * 9.4 or later) is left out with a warning that names it and its formats; the others are served (logsdb and
 * time_series indices of 8.19 and 9.1 to 9.3 among them).
 */
@Component
@Order(1)
public class EngineIndices implements ApplicationRunner {
  private static final Logger log = LoggerFactory.getLogger(EngineIndices.class);
  private final ServiceProperties.EngineRepository settings;
  private final Catalog catalog;
  /** Each mounted shard's index mapping, by the shard's name. */
  private final Map<String, IndexMapping> mappings = new ConcurrentHashMap<>();
  /** Each index with a mounted shard, by name, in the snapshot's order. */
  private final Map<String, SearchApi.Index> indices = Collections.synchronizedMap(new LinkedHashMap<>());
  /** Each index left out because it cannot be read, in the snapshot's order. */
  private final List<IndicesApi.Unreadable> unreadable = Collections.synchronizedList(new ArrayList<>());
  private volatile BlobStore store;

  EngineIndices(ServiceProperties properties, Catalog catalog) {
    this.settings = properties.engineRepository();
    this.catalog = catalog;
  }

  @Override
  public void run(ApplicationArguments args) throws IOException {
    if (settings.uri() == null || settings.uri().isBlank()) {
      return;
    }
    long start = System.nanoTime();
    store = BlobStores.open(URI.create(settings.uri()));
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(store);
    List<String> snapshots = repository.snapshots();
    String snapshot = settings.snapshot() != null ? settings.snapshot() : snapshots.isEmpty() ? null : snapshots.getLast();
    if (snapshot == null) {
      throw new IllegalStateException("permafrost.engine-repository.uri=" + BlobStores.redact(URI.create(settings.uri()))
          + " has no completed snapshot to mount");
    }
    int shards = 0;
    List<String> refused = new ArrayList<>();
    for (String index : repository.indices(snapshot)) {
      if (!chosen(index)) {
        continue;
      }
      IndexMetadata metadata = repository.indexMetadata(snapshot, index);
      try {
        List<String> names = new ArrayList<>();
        for (MountInfo shard : repository.mount(catalog, index, snapshot, index)) {
          mappings.put(shard.name(), metadata.mapping());
          names.add(shard.name());
          shards++;
        }
        indices.put(index, new SearchApi.Index(index, names, metadata.mapping(), metadata.settings()));
      } catch (SnapshotException.UnsupportedFormat | CorruptIndexException e) {
        // an index in formats this reader cannot read (an Elasticsearch vector index, a time_series index of 9.5, a
        // file of a format version past this build's), or with a damaged file, is refused at its mount, none of its
        // shards mounted: the service serves the others and says which it left out, and why
        log.warn("not mounted: {}", e.getMessage());
        refused.add(index);
        unreadable.add(new IndicesApi.Unreadable(index, metadata.shards(), e.getMessage()));
      }
    }
    log.info("mounted {} shards of snapshot '{}' of the engine repository {} in {}{}", shards, snapshot,
        store.describe(), Durations.formatNanos(System.nanoTime() - start),
        refused.isEmpty() ? "" : "; left out, in formats this reader cannot read: " + refused);
  }

  private boolean chosen(String index) {
    if (settings.indices().isEmpty()) {
      return true;
    }
    for (String pattern : settings.indices()) {
      if (Glob.of(pattern).matches(index)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The engine's indices with mounted shards, by name, for the Elasticsearch-compatible API: each with its shards'
   * mounted names and its mapping.
   */
  public Map<String, SearchApi.Index> indices() {
    synchronized (indices) {
      return new LinkedHashMap<>(indices);
    }
  }

  /**
   * The engine's indices left out at start-up because they cannot be read (formats this reader does not read, a
   * damaged file), each with why: the Elasticsearch-compatible API shows them red.
   */
  public List<IndicesApi.Unreadable> unreadable() {
    synchronized (unreadable) {
      return List.copyOf(unreadable);
    }
  }

  /** The index mapping of the engine shard mounted as {@code name}, or null if it is not one. */
  public IndexMapping mappingOf(String name) {
    return mappings.get(name);
  }

  /** Unmounts the shards, then closes their store (the catalog closes after this, being needed by it). */
  @PreDestroy
  void close() throws IOException {
    for (String name : mappings.keySet()) {
      try {
        catalog.unmount(name);
      } catch (IOException | RuntimeException e) {
        log.warn("cannot unmount '{}' at shutdown: {}", name, e.getMessage());
      }
    }
    if (store != null) {
      store.close();
    }
  }
}
