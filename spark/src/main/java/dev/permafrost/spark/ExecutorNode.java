/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.snapshot.SnapshotSource;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one executor JVM holds for every Permafrost read: one {@link SharedRegionCache} (per cache directory; in
 * practice one) and, per repository, its store and a {@link Catalog} (reader pool) in which each snapshot is mounted
 * on its first read. Created on first use, shared by every task of the JVM, and closed when the executor stops (by
 * {@link PermafrostPlugin} if it is configured, else by a JVM shutdown hook).
 */
final class ExecutorNode implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(ExecutorNode.class);
  private static final Map<Path, ExecutorNode> NODES = new ConcurrentHashMap<>();
  private static volatile boolean hookAdded;

  private final SharedRegionCache cache;
  private final Map<URI, Repository> repositories = new ConcurrentHashMap<>();

  private ExecutorNode(SharedRegionCache cache) {
    this.cache = cache;
  }

  /** The node of the cache directory the options give, created (with its cache) on first use. */
  static ExecutorNode get(SourceOptions options) throws IOException {
    Path path = cachePath(options);
    try {
      return NODES.computeIfAbsent(path, p -> {
        try {
          addShutdownHook();
          SharedRegionCache cache = SharedRegionCache.builder().path(p).size(options.cacheSize).build();
          log.info("permafrost: cache of {} at {} for this executor", options.cacheSize, p);
          return new ExecutorNode(cache);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw new IOException("cannot create the executor's cache at " + path + " (options 'cache.path' and"
          + " 'cache.size'): " + e.getCause().getMessage(), e.getCause());
    }
  }

  static Path cachePath(SourceOptions options) {
    if (options.cachePath != null && !options.cachePath.isBlank()) {
      return Path.of(options.cachePath).toAbsolutePath();
    }
    String env = System.getenv(SourceOptions.CACHE_PATH_ENV);
    if (env != null && !env.isBlank()) {
      return Path.of(env).toAbsolutePath();
    }
    return Path.of(SparkFiles.getRootDirectory(), "permafrost-cache").toAbsolutePath();
  }

  private static synchronized void addShutdownHook() {
    if (!hookAdded) {
      Runtime.getRuntime().addShutdownHook(new Thread(ExecutorNode::closeAll, "permafrost-close-caches"));
      hookAdded = true;
    }
  }

  /** Closes every node of this JVM (readers, stores, caches); a later read creates them again. */
  static void closeAll() {
    for (Path path : new ArrayList<>(NODES.keySet())) {
      ExecutorNode node = NODES.remove(path);
      if (node != null) {
        try {
          node.close();
        } catch (IOException | RuntimeException e) {
          log.warn("permafrost: closing the cache at {} failed: {}", path, e.toString());
        }
      }
    }
  }

  /** The nodes of this JVM now (for tests and metrics). */
  static List<ExecutorNode> all() {
    return List.copyOf(NODES.values());
  }

  SharedRegionCache cache() {
    return cache;
  }

  /** Leases the reader of {@code snapshot} of {@code options}' repository, mounting it on first use. */
  Lease acquire(SourceOptions options, String snapshot) throws IOException {
    Repository repo = repositories.computeIfAbsent(options.repository, uri -> new Repository(uri, options));
    return repo.acquire(snapshot, cache);
  }

  /**
   * The mapping of the index whose shard {@code unit} is, if {@code options}' repository is an engine's (for a
   * {@code _source} rebuilt from doc values where the index stores none), else null. Call after {@link #acquire}.
   */
  IndexMapping engineMapping(SourceOptions options, String unit) throws IOException {
    Repository repo = repositories.get(options.repository);
    if (repo == null || !(repo.repository instanceof EngineSnapshotRepository engine)) {
      return null;
    }
    String[] parts = unit.split("/");
    return engine.indexMetadata(parts[0], parts[1]).mapping();
  }

  /** Bytes this JVM's cache has fetched from stores for {@code index} (fills and direct reads). */
  long bytesFetched(String index) {
    CacheStats.Counts c = cache.stats().perIndex().get(index);
    return c == null ? 0 : c.bytesFetched() + c.bytesReadDirect();
  }

  @Override
  public void close() throws IOException {
    for (Repository r : repositories.values()) {
      r.close();
    }
    repositories.clear();
    cache.close();
  }

  /** One repository's store, and the catalog its snapshots are mounted in. */
  private static final class Repository implements Closeable {
    private final URI uri;
    private final String description;
    private volatile BlobStore store;
    private volatile SnapshotSource repository;
    private final SourceOptions options;
    private volatile Catalog catalog;
    private final Map<String, Boolean> mounted = new ConcurrentHashMap<>();

    Repository(URI uri, SourceOptions options) {
      this.uri = uri;
      this.description = options.describeRepository();
      this.options = options;
    }

    private synchronized void open(SharedRegionCache cache) throws IOException {
      if (catalog == null) {
        try {
          store = BlobStores.open(uri);
        } catch (IOException | RuntimeException e) {
          throw new IOException("cannot open the repository " + description + " (option 'repository'): "
              + e.getMessage(), e);
        }
        repository = ScanSource.of(options, store).source();
        catalog = Catalog.builder(cache).build();
      }
    }

    Lease acquire(String snapshot, SharedRegionCache cache) throws IOException {
      open(cache);
      try {
        mounted.computeIfAbsent(snapshot, s -> {
          try {
            catalog.mount(ScanSource.mountName(s), repository, s);
            return Boolean.TRUE;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      } catch (UncheckedIOException e) {
        throw new IOException("cannot mount snapshot '" + snapshot + "' of " + description + ": "
            + e.getCause().getMessage(), e.getCause());
      }
      return catalog.acquire(ScanSource.mountName(snapshot));
    }

    @Override
    public synchronized void close() throws IOException {
      if (catalog != null) {
        catalog.close();
        store.close();
      }
    }
  }
}
