/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.config;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.micrometer.CatalogMetrics;
import dev.permafrost.micrometer.SharedRegionCacheMetrics;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import io.micrometer.core.instrument.Tags;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shared cache, the repository's blob store and the catalog, built from {@link PermafrostProperties}; the meters
 * of the cache and the catalog; the repository's health. Spring closes them in the reverse order (the catalog
 * first). A setting Permafrost refuses stops start-up with a message that names the property.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(PermafrostProperties.class)
public class PermafrostConfiguration {
  /** The name the cache's and catalog's meters are tagged with. */
  public static final String METER_NAME = "permafrost";

  /** The shared region cache every mounted index reads through. */
  @Bean(destroyMethod = "close")
  public SharedRegionCache sharedRegionCache(PermafrostProperties properties) {
    PermafrostProperties.Cache c = properties.cache();
    SharedRegionCache.Builder builder = SharedRegionCache.builder().path(properties.cachePath()).size(c.size());
    if (c.regionSize() != null) {
      builder.regionSize(dev.permafrost.blob.ByteSizes.parse(c.regionSize()));
    }
    if (c.fetchThreads() != null) {
      builder.fetchThreads(c.fetchThreads());
    }
    try {
      Files.createDirectories(properties.cachePath());
      return builder.build();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot build the cache of permafrost.cache.path=" + properties.cachePath()
          + ", permafrost.cache.size=" + c.size() + (c.regionSize() == null ? "" : ", permafrost.cache.region-size="
          + c.regionSize()) + ": " + e.getMessage(), e);
    }
  }

  /** The blob store of {@code permafrost.repository.uri}, with the store policy of the repository properties. */
  @Bean(destroyMethod = "close")
  public BlobStore repositoryStore(PermafrostProperties properties) {
    URI configured = properties.repositoryUri();
    try {
      URI uri = RepositoryUri.withPolicy(configured, properties.repository());
      if ("file".equals(uri.getScheme()) && uri.getPath() != null) {
        Files.createDirectories(java.nio.file.Path.of(uri.getPath()));
      }
      return BlobStores.open(uri);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot open the repository of permafrost.repository.uri="
          + BlobStores.redact(configured) + ": " + e.getMessage(), e);
    }
  }

  /** The snapshot repository (its store already carries the policy). */
  @Bean
  public SnapshotRepository snapshotRepository(BlobStore repositoryStore) {
    return SnapshotRepository.open(repositoryStore);
  }

  /** The catalog of mounted snapshots and its reader pool. */
  @Bean(destroyMethod = "close")
  public Catalog catalog(SharedRegionCache cache, PermafrostProperties properties) {
    PermafrostProperties.Pool pool = properties.pool();
    Catalog.Builder builder = Catalog.builder(cache)
        .maxOpenReaders(pool.maxOpenReaders())
        .idleTimeout(pool.idleTimeout())
        .acquireTimeout(pool.acquireTimeout())
        .unmountTimeout(pool.unmountTimeout())
        .fullCopyDirectory(properties.fullCopyPath())
        .fullCopyMaxBytesPerSec(properties.fullCopy().maxBytesPerSec());
    if (pool.maxReaderHeap() != null) {
      builder.maxReaderHeap(pool.maxReaderHeap());
    }
    if (pool.searchThreads() != null) {
      builder.searchThreads(pool.searchThreads());
    }
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

  /** Meters of the cache: {@code cache.gets}, {@code cache.puts}, ... tagged {@code cache=permafrost}. */
  @Bean
  public SharedRegionCacheMetrics sharedRegionCacheMetrics(SharedRegionCache cache) {
    return new SharedRegionCacheMetrics(cache, METER_NAME, Tags.empty());
  }

  /** Meters of the catalog: {@code permafrost.catalog.*} tagged {@code catalog=permafrost}. */
  @Bean
  public CatalogMetrics catalogMetrics(Catalog catalog) {
    return new CatalogMetrics(catalog, METER_NAME, Tags.empty());
  }

  /** Whether the repository's store answers: {@code /actuator/health/repository}. */
  @Bean
  public HealthIndicator repositoryHealthIndicator(SnapshotRepository repository) {
    return new RepositoryHealthIndicator(repository.store());
  }
}
