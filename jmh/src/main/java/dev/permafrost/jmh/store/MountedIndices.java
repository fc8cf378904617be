/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.SearchCost;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.jmh.workload.Indices;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;

/**
 * Snapshots mounted in a {@link Catalog} with its default settings, searched through its multi-index search: readers
 * are opened by the search that needs them, indices are searched concurrently, and the hits' stored fields are
 * fetched by the catalog. Closing unmounts nothing explicitly: it closes the catalog, which closes its readers.
 */
public final class MountedIndices implements Indices {
  private final Catalog catalog;
  private final String[] names;
  /** The cost of the last search through {@link #collect} or {@link #top}, for tracing. */
  private volatile SearchCost lastCost;

  private MountedIndices(Catalog catalog, String[] names) {
    this.catalog = catalog;
    this.names = names;
  }

  /** Mounts each named snapshot of {@code repository} under its own name (reads each manifest, opens nothing). */
  public static MountedIndices mount(SnapshotRepository repository, List<String> snapshots, SharedRegionCache cache)
      throws IOException {
    return mount(repository, snapshots, Catalog.builder(cache));
  }

  /** As {@link #mount(SnapshotRepository, List, SharedRegionCache)}, in a catalog built by {@code builder}. */
  public static MountedIndices mount(SnapshotRepository repository, List<String> snapshots, Catalog.Builder builder)
      throws IOException {
    // The benchmarks measure reads, not Lucene's query cache: off for every searcher, local ones too (IndexSet).
    IndexSearcher.setDefaultQueryCache(null);
    Catalog catalog = builder.build();
    boolean success = false;
    try {
      for (String name : snapshots) {
        catalog.mount(name, repository, name);
      }
      success = true;
      return new MountedIndices(catalog, snapshots.toArray(String[]::new));
    } finally {
      if (!success) {
        catalog.close();
      }
    }
  }

  /**
   * Mounts every shard of an engine's {@code index} in {@code snapshot} (each as {@code <index>.<shard>}, see
   * {@link EngineSnapshotRepository#mount}) in a catalog built by {@code builder}; mounting opens each shard once to
   * check its formats, through the catalog's cache.
   */
  public static MountedIndices mountEngine(EngineSnapshotRepository repository, String snapshot, String index,
      Catalog.Builder builder) throws IOException {
    IndexSearcher.setDefaultQueryCache(null);
    Catalog catalog = builder.build();
    boolean success = false;
    try {
      List<String> names = new ArrayList<>();
      for (MountInfo shard : repository.mount(catalog, index, snapshot, index)) {
        names.add(shard.name());
      }
      success = true;
      return new MountedIndices(catalog, names.toArray(String[]::new));
    } finally {
      if (!success) {
        catalog.close();
      }
    }
  }

  /** The names the indices are mounted under (an engine index's: one per shard). */
  public List<String> names() {
    return List.of(names);
  }

  /** What the last search cost (its dependency waves among them), or null before the first. */
  public SearchCost lastCost() {
    return lastCost;
  }

  public Catalog catalog() {
    return catalog;
  }

  @Override
  public <C extends Collector, T> T collect(Query query, CollectorManager<C, T> manager) throws IOException {
    var response = catalog.search(SearchRequest.builder(query).indices(names).build(), manager);
    lastCost = response.cost();
    return response.result();
  }

  @Override
  public Hits top(Query query, Sort sort, int size, String field) throws IOException {
    SearchResponse response = catalog.search(
        SearchRequest.builder(query).indices(names).sort(sort).size(size).fields(field).exactTotalHits(true).build());
    lastCost = response.cost();
    List<String> values = new ArrayList<>(response.hits().size());
    for (SearchResponse.Hit hit : response.hits()) {
      values.add(hit.document().get(field));
    }
    return new Hits(response.totalHits().value(), List.copyOf(values));
  }

  @Override
  public void close() {
    catalog.close();
  }
}
