/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.micrometer.CatalogMetrics;
import dev.permafrost.micrometer.SearchObservations;
import dev.permafrost.micrometer.SharedRegionCacheMetrics;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's beans as an application gets them, built and closed by a real Spring context. */
class PermafrostAutoConfigurationTest {
  @TempDir Path tmp;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws IOException {
    Path repo = tmp.resolve("repository");
    SnapshotRepository snapshots = SnapshotRepository.open(FileSystemBlobStore.open(repo, false));
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, new Random(3), 300, 1);
      for (String name : List.of("logs-2024.02.01", "logs-2024.02.02", "audit-1")) {
        snapshots.createSnapshot(name, local);
      }
    }
    runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ValidationAutoConfiguration.class, PermafrostAutoConfiguration.class,
            PermafrostObservabilityAutoConfiguration.class))
        .withPropertyValues("permafrost.home=" + tmp.resolve("home"), "permafrost.repository.uri=" + repo.toUri(),
            "permafrost.cache.size=16mb");
  }

  @Test
  void buildsTheBeansFromPropertiesAndMountsWhatTheyDeclare() {
    runner.withPropertyValues("permafrost.mounts.audit.snapshot=audit-1", "permafrost.mounts.logs.snapshot=logs-*",
        "permafrost.pool.max-open-readers=7", "permafrost.repository.max-retries=1", "permafrost.repository.retry-budget=9")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(SharedRegionCache.class).hasSingleBean(Catalog.class)
              .hasSingleBean(SnapshotRepository.class).hasSingleBean(BlobStore.class);
          Catalog catalog = context.getBean(Catalog.class);
          assertThat(catalog.list().stream().map(MountInfo::name))
              .containsExactlyInAnyOrder("audit", "logs-2024.02.01", "logs-2024.02.02");
          assertThat(catalog.info("audit").snapshot()).isEqualTo("audit-1");
          StorePolicy policy = StorePolicy.of(context.getBean(BlobStore.class));
          assertThat(policy.maxRetries()).isEqualTo(1);
          assertThat(policy.retryBudget()).isEqualTo(9);
          assertThat(Files.isDirectory(tmp.resolve("home").resolve("cache"))).isTrue();
          assertThat(context).hasSingleBean(SharedRegionCacheMetrics.class).hasSingleBean(CatalogMetrics.class)
              .hasSingleBean(SearchObservations.class).hasBean("repositoryHealthIndicator");
        });
  }

  @Test
  void backsOffWhenTheApplicationDefinesItsOwn() {
    runner.withUserConfiguration(OwnCache.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(SharedRegionCache.class);
      assertThat(context.getBean(SharedRegionCache.class)).isSameAs(context.getBean("ownCache"));
      assertThat(context.getBean(Catalog.class)).isNotNull(); // built over the application's cache
    });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnCache {
    @Bean(destroyMethod = "close")
    SharedRegionCache ownCache() throws IOException {
      return SharedRegionCache.builder().path(Files.createTempDirectory("own-cache")).size(8 << 20).build();
    }
  }

  @Test
  void badPropertiesStopTheStartNamingTheProperty() {
    runner.withPropertyValues("permafrost.cache.size=lots").run(context ->
        assertThat(context).getFailure().hasStackTraceContaining("permafrost.cache.size"));
    runner.withPropertyValues("permafrost.pool.max-open-readers=0").run(context ->
        assertThat(context).getFailure().hasStackTraceContaining("pool.maxOpenReaders").hasStackTraceContaining("rejected value [0]"));
    runner.withPropertyValues("permafrost.pool.max-kept-heap=lots").run(context ->
        assertThat(context).getFailure().hasStackTraceContaining("maxKeptHeap"));
    runner.withPropertyValues("permafrost.mounts.x.snapshot=audit-1", "permafrost.mounts.x.mode=frozen").run(context ->
        assertThat(context).getFailure().hasStackTraceContaining("permafrost.mounts.x.mode"));
    runner.withPropertyValues("permafrost.mounts.x.snapshot=no-such-snapshot").run(context ->
        assertThat(context).getFailure().hasStackTraceContaining("permafrost.mounts.x.snapshot=no-such-snapshot"));
    runner.withPropertyValues("permafrost.repository.uri=s3x://nowhere").run(context ->
        assertThat(context).getFailure().hasStackTraceContaining("permafrost.repository.uri"));
  }

  @Test
  void closesTheCatalogAndTheCacheBeforeTheStore() {
    List<String> closed = new CopyOnWriteArrayList<>();
    AtomicReference<Catalog> catalog = new AtomicReference<>();
    AtomicReference<SharedRegionCache> cache = new AtomicReference<>();
    runner.withBean(BlobStore.class, () -> {
      try {
        return StorePolicy.DEFAULT.apply(new FilterBlobStore(FileSystemBlobStore.open(tmp.resolve("repository"), false)) {
          @Override
          public void close() throws IOException {
            // what was closed when the store closes
            closed.add("store closes; catalog closed: " + closed(() -> catalog.get().search(
                SearchRequest.builder(new MatchAllDocsQuery()).build()))
                + ", cache closed: "
                + closed(() -> BlobDirectory.open(SnapshotRepository.open(this), "x", cache.get())));
            super.close();
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }).run(context -> {
      catalog.set(context.getBean(Catalog.class));
      cache.set(context.getBean(SharedRegionCache.class));
      context.close();
      assertThat(closed).containsExactly("store closes; catalog closed: true, cache closed: true");
      assertThat(Files.exists(tmp.resolve("home").resolve("cache").resolve("permafrost-regions.record")))
          .as("the cache closed cleanly: it wrote down what it holds").isTrue();
    });
  }

  private interface Call {
    void call() throws IOException;
  }

  private static boolean closed(Call call) {
    try {
      call.call();
      return false;
    } catch (IOException | RuntimeException e) {
      return String.valueOf(e.getMessage()).contains("closed");
    }
  }

  @Test
  void withoutActuatorThereIsNoHealthIndicator() {
    runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean("repositoryHealthIndicator").hasSingleBean(Catalog.class));
  }

  @Test
  void thePropertiesHaveMetadataForTheIde() throws IOException {
    try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String property : List.of("permafrost.cache.size", "permafrost.repository.uri", "permafrost.pool.search-timeout",
          "permafrost.mounts", "permafrost.repository.retry-budget")) {
        assertThat(json).contains("\"" + property + "\"");
      }
    }
  }
}
