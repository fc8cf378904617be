/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FaultInjectingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CatalogStats;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.Waits;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The binders on a real cache and catalog over a filesystem repository: every meter reads what the stats say. */
class MetricsTest {
  @TempDir Path tmp;
  private BlobStore store;
  private SharedRegionCache cache;
  private Catalog catalog;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void setUp() throws IOException {
    Random random = new Random(7);
    try (Directory dir = FSDirectory.open(tmp.resolve("index"));
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
      for (int i = 0; i < 20_000; i++) {
        Document doc = new Document();
        doc.add(new LongPoint("@timestamp", 1_700_000_000_000L + i * 1000L));
        doc.add(new StringField("status", random.nextInt(10) == 0 ? "404" : "200", Field.Store.NO));
        byte[] payload = new byte[64];
        random.nextBytes(payload);
        doc.add(new StoredField("payload", payload));
        writer.addDocument(doc);
      }
      writer.forceMerge(1);
    }
    store = FileSystemBlobStore.open(tmp.resolve("repository"), false);
    SnapshotRepository repo = SnapshotRepository.open(store);
    try (Directory dir = FSDirectory.open(tmp.resolve("index"))) {
      // nothing kept whole in the manifest, so searches fetch from the store
      repo.createSnapshot("logs", dir, SnapshotOptions.DEFAULTS.withKeepWholeLimits(0, 0).withWarmBytesPerFile(0)
          .withPointFields("@timestamp"));
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size("16mb").build();
    catalog = Catalog.builder(cache).build();
    catalog.mount("logs", repo, "logs");
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
    cache.close();
    store.close();
  }

  @Test
  void cacheMetersFollowTheCacheStatsByMicrometersConventions() throws Exception {
    new SharedRegionCacheMetrics(cache, "permafrost", Tags.of("app", "test"), Duration.ZERO).bindTo(registry);
    assertEquals(0, counter("cache.gets", "result", "hit"));
    assertEquals(0, counter("cache.puts"));

    search(); // cold
    // a fetch the search did not wait for may still be on its way: the stats and the meters read after it must agree
    Waits.awaitNoFetch(cache);
    CacheStats cold = cache.stats();
    assertTrue(cold.total().fetches() > 0, "a cold search fetches: " + cold.total());
    assertEquals(cold.total().fetches(), counter("cache.puts"));
    assertEquals(cold.total().misses(), counter("cache.gets", "result", "miss"));
    assertEquals(cold.total().bytesFetched(), counter("permafrost.cache.fetched"));
    assertEquals(cold.total().directReads(), counter("permafrost.cache.direct.reads"));
    assertEquals(cold.regionsInUse(), gauge("cache.size"));
    assertTrue(gauge("cache.size") > 0);
    assertEquals(cold.sizeInBytes(), gauge("permafrost.cache.capacity"));

    search(); // warm
    Waits.awaitNoFetch(cache);
    CacheStats warm = cache.stats();
    assertTrue(warm.total().hits() > cold.total().hits(), "a warm search hits: " + warm.total());
    assertEquals(warm.total().hits(), counter("cache.gets", "result", "hit"));
    assertEquals(warm.total().fetches(), counter("cache.puts"), "a warm search fetches nothing more");
    assertEquals(warm.total().bytesReadFromCache(), counter("permafrost.cache.read", "source", "cache"));
    assertEquals(warm.total().bytesReadFromWarmSet(), counter("permafrost.cache.read", "source", "warm_set"));
    assertEquals(0, gauge("permafrost.cache.fills.in.flight"));
    assertEquals(warm.evictions(), counter("cache.evictions"));
    assertEquals("test", registry.get("cache.puts").tag("cache", "permafrost").functionCounter().getId().getTag("app"));
  }

  @Test
  void oneReadingOfTheStatsServesEveryMeterUntilItIsTooOld() throws IOException {
    new SharedRegionCacheMetrics(cache, "permafrost", Tags.empty(), Duration.ofDays(1)).bindTo(registry);
    assertEquals(0, counter("cache.puts"));
    search();
    assertTrue(cache.stats().total().fetches() > 0);
    assertEquals(0, counter("cache.puts"), "the reading taken at the first scrape is kept for a day");
  }

  @Test
  void storeMetersFollowItsPolicysHealth() throws IOException {
    Files.write(tmp.resolve("repository").resolve("probe"), new byte[10]);
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(store, 3).failRate(1);
    BlobStore policed = StorePolicy.builder().maxRetries(1).retryDelay(Duration.ofMillis(1))
        .retryMaxDelay(Duration.ofMillis(1)).retryBudget(2).build().apply(faulty);
    new BlobStoreMetrics(policed, "flaky", Tags.empty()).bindTo(registry);
    assertEquals(0, registry.get("permafrost.store.failing").tag("store", "flaky").gauge().value());
    assertEquals(2, registry.get("permafrost.store.retry.tokens").gauge().value());
    for (int i = 0; i < 4; i++) {
      assertThrows(IOException.class, () -> policed.read("probe", 0, 10).close());
    }
    // two retries spent the budget of two; the next two calls were refused theirs
    assertEquals(1, registry.get("permafrost.store.failing").gauge().value());
    assertEquals(0, registry.get("permafrost.store.retry.tokens").gauge().value());
    assertEquals(2, registry.get("permafrost.store.retry.budget").gauge().value());
    assertEquals(2, registry.get("permafrost.store.retries").functionCounter().count());
    assertEquals(2, registry.get("permafrost.store.retries.refused").functionCounter().count());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new BlobStoreMetrics(store, "raw", Tags.empty()));
    assertTrue(e.getMessage().contains("no store policy"), e.getMessage());
  }

  @Test
  void refusesANegativeMaxAge() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SharedRegionCacheMetrics(cache, "permafrost", Tags.empty(), Duration.ofSeconds(-1)));
    assertTrue(e.getMessage().contains("statsMaxAge"), e.getMessage());
  }

  @Test
  void catalogMetersFollowTheCatalogStats() throws IOException {
    new CatalogMetrics(catalog, "main", Tags.empty()).bindTo(registry);
    assertEquals(1, gauge("permafrost.catalog.mounted", "catalog", "main"));
    assertEquals(0, gauge("permafrost.catalog.readers.open", "catalog", "main"));
    assertEquals(0, counter("permafrost.catalog.reader.opens", "catalog", "main"));

    try (Lease lease = catalog.acquire("logs")) {
      assertTrue(lease.searcher().count(new MatchAllDocsQuery()) > 0);
      assertEquals(1, gauge("permafrost.catalog.readers.open", "catalog", "main"));
    }
    catalog.search(SearchRequest.builder(LongPoint.newRangeQuery("@timestamp", 0, 1)).indices("logs").build());
    catalog.search(SearchRequest.builder(new MatchAllDocsQuery()).indices("logs").build());
    CatalogStats stats = catalog.stats();
    assertEquals(1, stats.readerOpens());
    assertEquals(stats.readerOpens(), counter("permafrost.catalog.reader.opens", "catalog", "main"));
    assertEquals(2, counter("permafrost.catalog.searches", "catalog", "main"));
    assertEquals(1, counter("permafrost.catalog.indices", "result", "skipped"));
    assertEquals(1, counter("permafrost.catalog.indices", "result", "searched"));
    assertEquals(0, counter("permafrost.catalog.indices", "result", "failed"));
    assertEquals(stats.leaseWaitNanos() / 1e9, counter("permafrost.catalog.lease.wait", "catalog", "main"), 1e-9);
    assertTrue(gauge("permafrost.catalog.readers.heap", "catalog", "main") > 0);

    catalog.unmount("logs");
    assertEquals(0, gauge("permafrost.catalog.mounted", "catalog", "main"));
    assertEquals(stats.readerCloses() + 1, counter("permafrost.catalog.reader.closes", "reason", "other")
        + counter("permafrost.catalog.reader.closes", "reason", "idle")
        + counter("permafrost.catalog.reader.closes", "reason", "room"));
  }

  private void search() throws IOException {
    try (Lease lease = catalog.acquire("logs")) {
      assertTrue(lease.searcher().count(new TermQuery(new Term("status", "404"))) > 0);
      var top = lease.searcher().search(new MatchAllDocsQuery(), 50);
      for (var sd : top.scoreDocs) {
        assertNotNull(lease.reader().storedFields().document(sd.doc).getBinaryValue("payload"));
      }
    }
  }

  private double counter(String name, String... tags) {
    FunctionCounter c = registry.get(name).tags(tags).functionCounter();
    return c.count();
  }

  private double gauge(String name, String... tags) {
    Gauge g = registry.get(name).tags(tags).gauge();
    return g.value();
  }
}
