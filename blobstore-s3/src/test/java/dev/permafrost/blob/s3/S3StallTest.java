/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.StoreHealth;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.catalog.SearchTimeoutException;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import eu.rekawek.toxiproxy.model.Toxic;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded failure against a real S3 server (MinIO) behind Toxiproxy, with the default store policy and the SDK's
 * socket time-out at 3s, as a user runs it: when the server stops answering in the middle of its responses, 20
 * concurrent searches each end by their deadline (a catalog search's {@code timeout}, or for plain
 * {@link BlobDirectory} readers the cache's default bound of 30s) with an error naming what timed out, never a wrong
 * hit; once the fault is gone the same mount answers every query right. A server whose every response is cut short
 * spends the store's retry budget, after which each read makes one attempt; successes refill the budget.
 *
 * <p>The only times asserted are the deadlines themselves, plus a margin for a busy CI machine: they catch waits
 * that are not bounded, and say nothing about speed. Needs MinIO and Toxiproxy ({@code scripts/test-servers.sh}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3StallTest {
  private static final String SNAPSHOT = "stalls";
  private static final int SEARCHES = 20;
  /** What a busy machine may add to a deadline before the waiter notices: thread wake-ups, GC, 2 cores for 20 threads. */
  private static final long MARGIN_NANOS = TimeUnit.SECONDS.toNanos(10);
  /** The settings the issue measured with: the default policy, the SDK's socket time-out at 3s. */
  private static final String SETTINGS = "read_timeout=3s";

  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final List<Query> queries = new ArrayList<>();
  private final List<TopDocs> expected = new ArrayList<>();
  private Path tmp;
  private Directory local;
  private BlobStore direct;
  private Proxy proxy;
  private String listen;
  private String prefix;
  private ExecutorService threads;

  @BeforeAll
  void setUp(@TempDir Path tmp) throws Exception {
    this.tmp = tmp;
    URI toxiproxyUrl = URI.create(requireEnv("PERMAFROST_TOXIPROXY_URL"));
    ToxiproxyClient toxiproxy = new ToxiproxyClient(toxiproxyUrl.getHost(), toxiproxyUrl.getPort());
    prefix = "stalls-" + UUID.randomUUID();
    local = FSDirectory.open(tmp.resolve("index"));
    RandomIndexes.build(local, new Random(seed), 6000, 4);
    direct = S3TestStores.builder().prefix(prefix).build();
    // nothing kept in the manifest: every search reads its terms and postings from the store
    SnapshotRepository.open(direct).createSnapshot(SNAPSHOT, local,
        SnapshotOptions.DEFAULTS.withKeepWholeLimits(0, 0).withWarmBytesPerFile(0));
    URI minio = URI.create(S3TestStores.endpoint());
    proxy = toxiproxy.createProxy("permafrost-s3-stalls-" + UUID.randomUUID().toString().substring(0, 8), "127.0.0.1:0",
        minio.getHost() + ":" + minio.getPort());
    listen = proxy.getListen();
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      for (int i = 0; i < SEARCHES; i++) {
        Query q = new TermQuery(new Term("body", RandomIndexes.WORDS[i % RandomIndexes.WORDS.length]));
        queries.add(q);
        expected.add(searcher.search(q, 10));
      }
    }
    threads = Executors.newFixedThreadPool(SEARCHES);
    System.out.printf(Locale.ROOT, "seed %d, through %s%n", seed, listen);
  }

  @AfterAll
  void tearDown() throws Exception {
    if (threads != null) {
      threads.shutdownNow();
    }
    if (proxy != null) {
      removeToxics();
    }
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
    if (proxy != null) {
      proxy.delete();
    }
    if (direct != null) {
      for (BlobMetadata b : direct.list("")) {
        direct.delete(b.name());
      }
      direct.close();
    }
    if (local != null) {
      local.close();
    }
  }

  @BeforeEach
  void noFault() throws IOException {
    removeToxics();
  }

  private BlobStore openThroughProxy(String extraSettings) throws IOException {
    BlobStore store = BlobStores.open(URI.create("s3://" + S3TestStores.BUCKET + "/" + prefix + "?endpoint="
        + encode("http://" + listen) + "&access_key=" + encode(S3TestStores.accessKey()) + "&secret_key="
        + encode(S3TestStores.secretKey()) + "&" + SETTINGS + extraSettings));
    toClose.add(store);
    return store;
  }

  private SharedRegionCache smallCache(String name) throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve(name)).size(256 << 10).regionSize(16 << 10)
        .tailRegionSize(4 << 10).build();
    toClose.add(cache);
    return cache;
  }

  /** One search's outcome: its hits, or its failure, and how long it took. */
  private record Outcome(TopDocs top, Throwable error, long nanos) {}

  private interface Search {
    TopDocs run(int i) throws Exception;
  }

  private List<Outcome> runAll(Search search) throws Exception {
    List<Future<Outcome>> futures = new ArrayList<>();
    for (int i = 0; i < SEARCHES; i++) {
      int n = i;
      futures.add(threads.submit(() -> {
        long start = System.nanoTime();
        try {
          return new Outcome(search.run(n), null, System.nanoTime() - start);
        } catch (Throwable t) {
          return new Outcome(null, t, System.nanoTime() - start);
        }
      }));
    }
    List<Outcome> outcomes = new ArrayList<>();
    for (Future<Outcome> f : futures) {
      outcomes.add(f.get(5, TimeUnit.MINUTES)); // liveness only
    }
    return outcomes;
  }

  private void assertRightOrFailed(List<Outcome> outcomes, long boundNanos, String bound) {
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome o = outcomes.get(i);
      assertTrue(o.nanos() <= boundNanos + MARGIN_NANOS, "search " + i + " took " + seconds(o.nanos()) + ", past " + bound
          + (o.error() == null ? "" : ": " + o.error()));
      if (o.error() == null) {
        assertSameHits(expected.get(i), o.top(), "search " + i);
      } else {
        assertTrue(timedOutOrFailed(o.error()), "search " + i + " failed with something else than a store failure: " + o.error());
      }
    }
  }

  private static void assertSameHits(TopDocs want, TopDocs got, String what) {
    assertEquals(want.totalHits.value(), got.totalHits.value(), what);
    assertEquals(want.scoreDocs.length, got.scoreDocs.length, what);
    for (int i = 0; i < want.scoreDocs.length; i++) {
      assertEquals(want.scoreDocs[i].doc, got.scoreDocs[i].doc, what + " hit " + i);
    }
  }

  /** Whether the error comes from the store: a time-out, or a failure naming the store's blobs. */
  private static boolean timedOutOrFailed(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof BlobStoreTimeoutException || t instanceof SearchTimeoutException
          || String.valueOf(t.getMessage()).contains("blobs/")) {
        return true;
      }
    }
    return false;
  }

  @Test
  void plainReadersEndWithinTheDefaultBoundWhenTheServerStallsMidResponse() throws Exception {
    BlobStore store = openThroughProxy("");
    SharedRegionCache cache = smallCache("plain");
    assertEquals(SharedRegionCache.DEFAULT_MAX_READ_WAIT, Duration.ofSeconds(30));
    BlobDirectory dir = BlobDirectory.open(SnapshotRepository.open(store), SNAPSHOT, cache);
    toClose.add(dir);
    DirectoryReader reader = DirectoryReader.open(dir);
    toClose.add(reader);
    IndexSearcher searcher = new IndexSearcher(reader);

    // responses slowed to a trickle, then stopped dead: the searches are in the middle of their responses
    proxy.toxics().bandwidth("trickle", ToxicDirection.DOWNSTREAM, 1);
    proxy.toxics().timeout("silence", ToxicDirection.DOWNSTREAM, 0);
    List<Outcome> stalled = runAll(i -> searcher.search(queries.get(i), 10));
    assertRightOrFailed(stalled, SharedRegionCache.DEFAULT_MAX_READ_WAIT.toNanos(), "the default bound of 30s");
    assertTrue(stalled.stream().anyMatch(o -> o.error() != null), "the stall was met");

    removeToxics();
    awaitNoFills(cache);
    List<Outcome> after = runAll(i -> searcher.search(queries.get(i), 10));
    for (int i = 0; i < after.size(); i++) {
      assertTrue(after.get(i).error() == null, "after the fault: " + after.get(i).error());
      assertSameHits(expected.get(i), after.get(i).top(), "search " + i + " after the fault");
    }
  }

  @Test
  void catalogSearchesEndByTheirTimeoutWhenTheServerStallsMidResponse() throws Exception {
    BlobStore store = openThroughProxy("");
    SharedRegionCache cache = smallCache("catalog");
    Catalog catalog = Catalog.builder(cache).build();
    toClose.add(catalog);
    catalog.mount(SNAPSHOT, SnapshotRepository.open(store), SNAPSHOT);
    Duration timeout = Duration.ofSeconds(5);

    proxy.toxics().bandwidth("trickle", ToxicDirection.DOWNSTREAM, 1);
    proxy.toxics().timeout("silence", ToxicDirection.DOWNSTREAM, 0);
    List<Outcome> stalled = runAll(i -> {
      SearchResponse r = catalog.search(SearchRequest.builder(queries.get(i)).indices(SNAPSHOT).size(10).timeout(timeout)
          .build());
      if (r.timedOut()) {
        throw new IOException("timed out, partial results not asked for, yet a response came: " + r);
      }
      return topDocs(r);
    });
    assertRightOrFailed(stalled, timeout.toNanos(), "the search's timeout of 5s");
    for (Outcome o : stalled) {
      if (o.error() != null) {
        boolean named = o.error() instanceof SearchTimeoutException t
            ? t.getMessage().contains("5s") && t.indices().equals(List.of(SNAPSHOT))
            : String.valueOf(o.error().getMessage()).contains("'" + SNAPSHOT + "'");
        assertTrue(named, "the error names the deadline and the index: " + o.error());
      }
    }
    assertTrue(stalled.stream().anyMatch(o -> o.error() != null), "the stall was met");

    removeToxics();
    awaitNoFills(cache);
    List<Outcome> after = runAll(i -> topDocs(catalog.search(SearchRequest.builder(queries.get(i)).indices(SNAPSHOT).size(10)
        .timeout(Duration.ofMinutes(1)).build())));
    for (int i = 0; i < after.size(); i++) {
      assertTrue(after.get(i).error() == null, "after the fault: " + after.get(i).error());
      assertSameHits(expected.get(i), after.get(i).top(), "search " + i + " after the fault");
    }
  }

  @Test
  void aStoreWhoseEveryResponseIsCutShortFailsFastOnceItsBudgetIsSpent() throws Exception {
    BlobStore store = openThroughProxy("&" + StorePolicy.RETRY_BUDGET + "=10");
    String blob = direct.list("blobs/").stream().max(Comparator.comparingLong(BlobMetadata::length)).orElseThrow().name();
    // every connection is closed after 2 KB: each response (of 32 KB) ends early
    proxy.toxics().limitData("cut", ToxicDirection.DOWNSTREAM, 2048);
    int reads = 0;
    while (!StorePolicy.health(store).failing()) {
      assertTrue(++reads <= 20, "the budget of 10 was never spent: " + StorePolicy.health(store));
      assertFalse(read(store, blob), "a cut response is never a success");
    }
    for (int i = 0; i < 5; i++) {
      StoreHealth before = StorePolicy.health(store);
      IOException e = readFailure(store, blob);
      StoreHealth after = StorePolicy.health(store);
      assertEquals(before.retries(), after.retries(), "a failing store's read makes one attempt, no retry: " + e);
      assertEquals(before.retriesRefused() + 1, after.retriesRefused());
      assertTrue(e.getMessage().contains("failing since"), e.getMessage());
    }

    removeToxics();
    for (int i = 0; i < 5; i++) {
      assertTrue(read(store, blob), "the store answers again");
    }
    StoreHealth healed = StorePolicy.health(store);
    assertFalse(healed.failing(), "five successes refill half of a budget of 10: " + healed);
    assertTrue(healed.retryTokens() >= 5, healed.toString());
  }

  /** The response of a search over one index, as Lucene's TopDocs: its total and its hits' documents. */
  private static TopDocs topDocs(SearchResponse r) {
    return new TopDocs(r.totalHits(), r.hits().stream().map(h -> new ScoreDoc(h.doc(), h.score())).toArray(ScoreDoc[]::new));
  }

  /** Reads 32 KB of {@code blob}; false if the read failed. */
  private static boolean read(BlobStore store, String blob) {
    try (InputStream in = store.read(blob, 0, 32 << 10)) {
      return in.readAllBytes().length == 32 << 10;
    } catch (IOException e) {
      return false;
    }
  }

  private static IOException readFailure(BlobStore store, String blob) {
    try (InputStream in = store.read(blob, 0, 32 << 10)) {
      in.readAllBytes();
    } catch (IOException e) {
      return e;
    }
    throw new AssertionError("the read succeeded through a proxy that cuts every response");
  }

  private void removeToxics() throws IOException {
    for (Toxic toxic : proxy.toxics().getAll()) {
      toxic.remove();
    }
  }

  private static void awaitNoFills(SharedRegionCache cache) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (cache.stats().fillsInFlight() > 0) {
      if (System.nanoTime() > deadline) {
        fail("fetches still running two minutes after the fault was removed: " + cache.stats().fillsInFlight());
      }
      Thread.sleep(20);
    }
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
  }

  private static String requireEnv(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      fail(name + " is not set: start the servers with scripts/test-servers.sh start and eval \"$(scripts/test-servers.sh env)\"");
    }
    return value;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
