/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.SearchObserver;
import dev.permafrost.micrometer.BlobStoreMetrics;
import dev.permafrost.micrometer.CatalogMetrics;
import dev.permafrost.micrometer.SearchObservations;
import dev.permafrost.micrometer.SharedRegionCacheMetrics;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What Permafrost shows when the application has Micrometer or Actuator: meter binders of the cache, the catalog and
 * the store's retry budget (tagged {@code cache|catalog|store=permafrost}), an {@code Observation} per search when
 * there is an {@link ObservationRegistry} (a span with Micrometer Tracing), and a {@code repository} health indicator
 * (one small request; its details never show a local directory's path).
 */
@AutoConfiguration(after = PermafrostAutoConfiguration.class)
public class PermafrostObservabilityAutoConfiguration {
  /** The name the meters are tagged with. */
  public static final String METER_NAME = "permafrost";

  /** Meters, with Micrometer and permafrost-micrometer on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterBinder.class, SharedRegionCacheMetrics.class})
  static class Metrics {
    @Bean
    @ConditionalOnBean(SharedRegionCache.class)
    @ConditionalOnMissingBean
    SharedRegionCacheMetrics permafrostCacheMetrics(SharedRegionCache cache) {
      return new SharedRegionCacheMetrics(cache, METER_NAME, Tags.empty());
    }

    @Bean
    @ConditionalOnBean(Catalog.class)
    @ConditionalOnMissingBean
    CatalogMetrics permafrostCatalogMetrics(Catalog catalog) {
      return new CatalogMetrics(catalog, METER_NAME, Tags.empty());
    }

    @Bean
    @ConditionalOnMissingBean(name = "permafrostStoreMetrics")
    MeterBinder permafrostStoreMetrics(ObjectProvider<BlobStore> store) {
      return registry -> store.ifAvailable(s -> {
        if (StorePolicy.health(s) != null) {
          new BlobStoreMetrics(s, METER_NAME, Tags.empty()).bindTo(registry);
        }
      });
    }

    /** An Observation per search, through the application's registry (none: a no-op one). */
    @Bean
    @ConditionalOnMissingBean(SearchObserver.class)
    SearchObservations permafrostSearchObservations(ObjectProvider<ObservationRegistry> registry) {
      return new SearchObservations(registry.getIfAvailable(() -> ObservationRegistry.NOOP));
    }
  }

  /** The repository's health, with Spring Boot's health support on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "repositoryHealthIndicator")
    HealthIndicator repositoryHealthIndicator(SnapshotRepository repository) {
      return new RepositoryHealthIndicator(repository.store());
    }
  }
}
