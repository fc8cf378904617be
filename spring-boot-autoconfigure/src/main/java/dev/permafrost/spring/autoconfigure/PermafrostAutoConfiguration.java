/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.ByteSizes;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.SearchObserver;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Permafrost's beans from {@link PermafrostProperties}, each backing off when the application defines its own: the
 * repository's {@link BlobStore} (with the store policy of {@code permafrost.repository.*}), the
 * {@link SnapshotRepository}, the {@link SharedRegionCache} and the {@link Catalog}, and the mounts declared under
 * {@code permafrost.mounts}, mounted at start-up. At shutdown they close in the right order: the catalog (its
 * readers), then the cache (writing down what it holds for the next start), then the store.
 */
@AutoConfiguration
@EnableConfigurationProperties(PermafrostProperties.class)
public class PermafrostAutoConfiguration {
  /** The repository's blob store: {@code permafrost.repository.uri}, with the policy properties in its query. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public BlobStore permafrostRepositoryStore(PermafrostProperties properties) {
    URI configured = properties.repositoryUri();
    try {
      URI uri = RepositoryUri.withPolicy(configured, properties.repository());
      if ("file".equals(uri.getScheme()) && uri.getPath() != null) {
        Files.createDirectories(Path.of(uri.getPath()));
      }
      return BlobStores.open(uri);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot open the repository of permafrost.repository.uri="
          + BlobStores.redact(configured) + ": " + e.getMessage(), e);
    }
  }

  /** The snapshot repository over the store (which carries its policy). */
  @Bean
  @ConditionalOnMissingBean
  public SnapshotRepository permafrostSnapshotRepository(BlobStore store) {
    return SnapshotRepository.open(store);
  }

  /**
   * The shared region cache every mounted index reads through. It takes the store as a parameter so that it closes
   * before the store does.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public SharedRegionCache permafrostCache(PermafrostProperties properties, BlobStore storeClosedAfter) {
    PermafrostProperties.Cache c = properties.cache();
    SharedRegionCache.Builder builder = SharedRegionCache.builder().path(properties.cachePath()).size(c.size());
    try {
      if (c.regionSize() != null) {
        builder.regionSize(ByteSizes.parse(c.regionSize()));
      }
      if (c.fetchThreads() != null) {
        builder.fetchThreads(c.fetchThreads());
      }
      if (c.maxReadWait() != null) {
        builder.maxReadWait(c.maxReadWait());
      }
      Files.createDirectories(properties.cachePath());
      return builder.build();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot build the cache of permafrost.cache.path=" + properties.cachePath()
          + ", permafrost.cache.size=" + c.size() + (c.regionSize() == null ? "" : ", permafrost.cache.region-size="
          + c.regionSize()) + (c.maxReadWait() == null ? "" : ", permafrost.cache.max-read-wait=" + c.maxReadWait())
          + ": " + e.getMessage(), e);
    }
  }

  /** The catalog of mounted snapshots: its reader pool and its searches (told to a {@link SearchObserver} bean, if any). */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Catalog permafrostCatalog(SharedRegionCache cache, PermafrostProperties properties,
      ObjectProvider<SearchObserver> observer) {
    PermafrostProperties.Pool pool = properties.pool();
    Catalog.Builder builder = Catalog.builder(cache)
        .maxOpenReaders(pool.maxOpenReaders())
        .idleTimeout(pool.idleTimeout())
        .acquireTimeout(pool.acquireTimeout())
        .unmountTimeout(pool.unmountTimeout())
        .fullCopyDirectory(properties.fullCopyPath())
        .fullCopyMaxBytesPerSec(properties.fullCopy().maxBytesPerSec());
    try {
      if (pool.maxReaderHeap() != null) {
        builder.maxReaderHeap(pool.maxReaderHeap());
      }
      if (pool.maxKeptHeap() != null) {
        builder.maxKeptHeap(pool.maxKeptHeap());
      }
      if (pool.searchThreads() != null) {
        builder.searchThreads(pool.searchThreads());
      }
      if (pool.searchTimeout() != null) {
        builder.searchTimeout(pool.searchTimeout());
      }
      if (pool.slowSearchThreshold() != null) {
        builder.slowSearchThreshold(pool.slowSearchThreshold());
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("permafrost.pool: " + e.getMessage(), e);
    }
    observer.ifAvailable(builder::searchObserver);
    try {
      Files.createDirectories(properties.fullCopyPath());
      return builder.build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot use permafrost.full-copy.path=" + properties.fullCopyPath() + ": "
          + e.getMessage(), e);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("cannot use permafrost.full-copy.path=" + properties.fullCopyPath() + ": "
          + e.getMessage(), e);
    }
  }

  /** Mounts what {@code permafrost.mounts} declares, once the catalog is built. */
  @Bean
  public DeclaredMounts permafrostDeclaredMounts(Catalog catalog, SnapshotRepository repository,
      PermafrostProperties properties) {
    return new DeclaredMounts(catalog, repository, properties.mounts());
  }
}
