/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobInputStream;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import eu.rekawek.toxiproxy.model.Toxic;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Searches a snapshot in MinIO through Toxiproxy while the network misbehaves: added latency, low bandwidth,
 * connection resets, responses cut short, and a server that stops answering.
 *
 * <p>The index is built locally, snapshotted into MinIO directly, and mounted through a proxy on a region cache of
 * 256 KiB, about a third of the index, so that searches keep fetching. Under each fault, with the cache cleared
 * first, every search must return exactly what the local index returns, or fail with an {@link IOException} naming
 * the store and the blob (a time-out when the server stops answering); latency and low bandwidth must not fail any
 * search. Once the fault is removed, every search runs again on the same cache and must be right: nothing wrong was
 * cached. A failure may reach the caller wrapped by Lucene (in an {@link UncheckedIOException} or a plain {@link
 * RuntimeException}) where Lucene's API cannot throw an IOException; the wrapped IOException is the one checked.
 *
 * <p>Every phase mounts the snapshot afresh on that cache, through a store policy of its own and so with a retry
 * budget of its own: a fault of an earlier test cannot leave a healthy phase without retries. The faults a search may
 * fail under (resets, cut responses, silence) are met with the short deadlines and quick retries of the policy
 * {@link BlobStores#open(URI)} reads from the store's URI, so that a fault costs seconds; the phases that must be
 * right (no fault, latency, low bandwidth, and after each fault) run under deadlines many times any delay the proxy
 * adds, so that a slow response from MinIO on a busy machine is not mistaken for a fault.
 *
 * <p>The searches of a round run at once, each on its own thread. A counter between the store's policy and the
 * S3 backend sees every attempt and every failure the network causes, retried or not, and shows that resets and
 * cut responses really were met. Log lines per fault (in the test's output file) say how many requests and
 * searches failed. {@code -Dtests.seed=} replays an index.
 *
 * <p>Needs the MinIO and the Toxiproxy started by {@code scripts/test-servers.sh start} (or {@code scripts/test}),
 * which export {@code PERMAFROST_S3_*} and {@code PERMAFROST_TOXIPROXY_URL}. Without them it fails; it never skips.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3FaultToleranceTest {
  private static final String TOXIPROXY_URL = "PERMAFROST_TOXIPROXY_URL";
  private static final String SNAPSHOT = "faults";
  private static final int DOCS = 6000;
  private static final int COMMITS = 4;
  private static final int TOP_N = 10;
  /**
   * The store's policy through the proxy under the faults a search may fail under: deadlines of 1s plus the length at
   * 16kb/s, and up to 3 quick retries within 5s, so that a fault costs seconds. The client's socket time-out is far
   * longer: the policy's deadlines, not the socket, must end the wait for a server that stopped answering.
   */
  private static final String SETTINGS = "request_timeout=1s&min_read_throughput=16kb&max_retries=3&retry_delay=50ms"
      + "&retry_max_delay=200ms&retry_time_limit=5s&connect_timeout=2s&read_timeout=30s";
  /**
   * The policy of the phases that must be right: deadlines of 10s plus the length at 16kb/s (over 30 times the most
   * latency the proxy adds, and the bandwidth it leaves is four times that throughput), and up to 3 retries within
   * 20s. A read of these phases fails only if MinIO takes over 10s on every attempt for 20s, which a busy 2-core
   * machine does not make it do; the searches' liveness guard is still far above the longest call.
   */
  private static final StorePolicy RIGHT = StorePolicy.builder().requestTimeout(Duration.ofSeconds(10))
      .minReadThroughput(16 << 10).maxRetries(3).retryDelay(Duration.ofMillis(50)).retryMaxDelay(Duration.ofMillis(200))
      .retryTimeLimit(Duration.ofSeconds(20)).build();
  /**
   * A liveness guard for each round of searches, far above the longest a read may take under either policy (the
   * retry time limit plus one deadline); it catches hangs and says nothing about speed.
   */
  private static final Duration LIVENESS = Duration.ofSeconds(90);

  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final List<Search> searches = searches();
  private final List<Result> expected = new ArrayList<>();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  private Directory local;
  private BlobStore direct;
  private boolean snapshotted;
  private String storeName;
  private List<String> blobNames;
  private Proxy proxy;
  private CountingStore backend;
  /** The policy {@link BlobStores#open(URI)} read from {@link #SETTINGS}. */
  private StorePolicy faultPolicy;
  private SharedRegionCache cache;
  private ExecutorService searchThreads;
  /** The first failure of a search under the current fault, for the log. */
  private volatile String firstFailedSearch;

  @BeforeAll
  void setUp(@TempDir Path tmp) throws Exception {
    URI toxiproxyUrl = toxiproxyUrl();
    ToxiproxyClient toxiproxy = new ToxiproxyClient(toxiproxyUrl.getHost(), toxiproxyUrl.getPort());
    try {
      toxiproxy.version();
    } catch (IOException e) {
      fail("no Toxiproxy answers at " + toxiproxyUrl + " (" + TOXIPROXY_URL + "): " + e + ". Start it with"
          + " scripts/servers/toxiproxy.sh start, or all the servers with scripts/test-servers.sh start", e);
    }
    String prefix = "faults-" + UUID.randomUUID();
    storeName = "s3://" + S3TestStores.BUCKET + "/" + prefix;

    local = FSDirectory.open(tmp.resolve("index"));
    RandomIndexes.build(local, new Random(seed), DOCS, COMMITS);
    direct = S3TestStores.builder().prefix(prefix).build();
    SnapshotRepository.open(direct).createSnapshot(SNAPSHOT, local);
    snapshotted = true;
    blobNames = direct.list("").stream().map(BlobMetadata::name).toList();

    URI minio = URI.create(S3TestStores.endpoint());
    String name = "permafrost-s3-faults-" + UUID.randomUUID().toString().substring(0, 8);
    proxy = toxiproxy.createProxy(name, "127.0.0.1:0", minio.getHost() + ":" + minio.getPort());
    String listen = proxy.getListen(); // the port Toxiproxy picked

    BlobStore opened = BlobStores.open(URI.create(storeName + "?endpoint=" + encode("http://" + listen)
        + "&access_key=" + encode(S3TestStores.accessKey()) + "&secret_key=" + encode(S3TestStores.secretKey())
        + "&" + SETTINGS));
    toClose.add(opened);
    // A counter between the policy and the S3 backend, where it sees every attempt and every failure the network
    // causes, retried or not: each phase's policy (see mount) is put around it. Closing `opened` closes that
    // backend, which is all there is to close.
    faultPolicy = StorePolicy.of(opened);
    assertEquals(Duration.ofSeconds(1), faultPolicy.requestTimeout(), "the policy read from " + SETTINGS);
    backend = new CountingStore(FilterBlobStore.unwrap(opened));

    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(256 << 10).regionSize(16 << 10)
        .tailRegionSize(4 << 10).build();
    toClose.add(cache);

    long indexBytes = 0;
    for (String file : local.listAll()) {
      indexBytes += local.fileLength(file);
    }
    assertTrue(indexBytes > 2 * cache.sizeInBytes(),
        "the index (" + indexBytes + " bytes) must be well over the cache's size (" + cache.sizeInBytes() + " bytes)");
    try (DirectoryReader reference = DirectoryReader.open(local)) {
      IndexSearcher searcher = new IndexSearcher(reference);
      for (Search search : searches) {
        expected.add(search.run(searcher));
      }
    }
    searchThreads = Executors.newFixedThreadPool(searches.size(), r -> {
      Thread t = new Thread(r, "fault-test-search");
      t.setDaemon(true);
      return t;
    });
    System.out.printf(Locale.ROOT, "seed %d: index of %d bytes in %s, cache of %d bytes, through %s%n", seed,
        indexBytes, storeName, cache.sizeInBytes(), listen);
  }

  @AfterAll
  void tearDown() throws Exception {
    if (searchThreads != null) {
      searchThreads.shutdownNow();
    }
    List<Step> steps = new ArrayList<>();
    for (AutoCloseable c : toClose.reversed()) {
      steps.add(c::close);
    }
    if (proxy != null) {
      steps.add(proxy::delete);
    }
    if (snapshotted) {
      steps.add(() -> SnapshotRepository.open(direct).deleteSnapshot(SNAPSHOT));
    }
    if (direct != null) {
      steps.add(direct::close);
    }
    if (local != null) {
      steps.add(local::close);
    }
    Exception failure = null;
    for (Step step : steps) {
      try {
        step.run();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** A step of the clean-up. */
  private interface Step {
    void run() throws Exception;
  }

  @BeforeEach
  void noFault() throws Exception {
    removeToxics();
    awaitNoFills();
    try (Mount mount = mount(RIGHT)) {
      check("without faults", run(mount), Expect.RIGHT_RESULTS);
    }
  }

  @Test
  void latencyGivesTheLocalResults() throws Exception {
    underFault("latency 200ms ± 100ms", Expect.RIGHT_RESULTS, 1,
        () -> proxy.toxics().latency("latency", ToxicDirection.DOWNSTREAM, 200).setJitter(100), () -> {});
  }

  @Test
  void lowBandwidthGivesTheLocalResults() throws Exception {
    // 64 KB/s per connection, four times min_read_throughput (16kb/s): slow, but within every deadline.
    underFault("bandwidth 64 KB/s", Expect.RIGHT_RESULTS, 1,
        () -> proxy.toxics().bandwidth("bandwidth", ToxicDirection.DOWNSTREAM, 64), () -> {});
  }

  @Test
  void connectionResetsGiveTheLocalResultsOrAnError() throws Exception {
    // Toxicity is drawn per connection, when it opens and whenever the toxic is updated; a connection that drew
    // the toxic drops its next chunk and is reset, and one that did not stays healthy. Setting the toxicity again
    // every 50ms redraws it for every open connection, so that resets keep coming while the pool is reused, and
    // five rounds of searches make it next to certain that some request meets one.
    ScheduledExecutorService redraw = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "fault-test-redraw");
      t.setDaemon(true);
      return t;
    });
    try {
      Phase phase = underFault("connection resets (toxicity 0.3)", Expect.RIGHT_RESULTS_OR_ERRORS, 5, () -> {
        Toxic resets = proxy.toxics().resetPeer("resets", ToxicDirection.DOWNSTREAM, 0); // created at toxicity 1
        resets.setToxicity(0.3f);
        redraw.scheduleWithFixedDelay(() -> {
          try {
            resets.setToxicity(0.3f);
          } catch (IOException e) {
            // removed at the end of the rounds
          }
        }, 50, 50, TimeUnit.MILLISECONDS);
      }, redraw::shutdownNow);
      assertExercised(phase);
    } finally {
      redraw.shutdownNow();
    }
  }

  @Test
  void responsesCutShortGiveTheLocalResultsOrAnError() throws Exception {
    // Every connection is closed once 20000 bytes went down it, headers included: every connection the searches
    // use is cut, a read resumes on the next one, and the policy's four attempts usually suffice.
    Phase phase = underFault("responses cut after 20000 bytes", Expect.RIGHT_RESULTS_OR_ERRORS, 1,
        () -> proxy.toxics().limitData("cut", ToxicDirection.DOWNSTREAM, 20_000), () -> {});
    assertExercised(phase);
  }

  @Test
  void aServerThatStopsAnsweringTimesOut() throws Exception {
    // Requests reach MinIO but no response byte comes back, and no connection is closed.
    Phase phase = underFault("server stops answering", Expect.RIGHT_RESULTS_OR_TIMEOUTS, 1,
        () -> proxy.toxics().timeout("silence", ToxicDirection.DOWNSTREAM, 0), () -> {});
    assertTrue(phase.failedSearches > 0, "seed " + seed + ": no search noticed that the server stopped answering");
  }

  // ------------------------------------------------------------------------------------------------ machinery

  /** What each search must do. */
  private enum Expect {
    /** Return the local index's result. */
    RIGHT_RESULTS,
    /** Return the local index's result, or fail with an IOException naming the store and a blob. */
    RIGHT_RESULTS_OR_ERRORS,
    /** As {@link #RIGHT_RESULTS_OR_ERRORS}, and a failure must be a time-out. */
    RIGHT_RESULTS_OR_TIMEOUTS
  }

  /** Adds toxics to the proxy. */
  private interface Fault {
    void add() throws IOException;
  }

  /** What the rounds of searches under a fault saw. */
  private record Phase(int failedSearches, long backendRequests, long backendFailures, long backendBytes) {}

  /**
   * The snapshot mounted on the shared cache through {@code policy} put around the counting backend: a retry budget
   * of its own, and the cache's regions shared with every other mount (a blob is cached by store and name).
   */
  private Mount mount(StorePolicy policy) throws IOException {
    BlobStore store = policy.apply(backend); // its decorators hold nothing to close; the backend is closed at the end
    BlobDirectory dir = BlobDirectory.open(SnapshotRepository.open(store), SNAPSHOT, cache);
    try {
      return new Mount(dir, DirectoryReader.open(dir));
    } catch (IOException | RuntimeException e) {
      dir.close();
      throw e;
    }
  }

  /** A mount of the snapshot, and a searcher on it. */
  private final class Mount implements AutoCloseable {
    final BlobDirectory dir;
    final DirectoryReader reader;
    final IndexSearcher searcher;

    Mount(BlobDirectory dir, DirectoryReader reader) {
      this.dir = dir;
      this.reader = reader;
      this.searcher = new IndexSearcher(reader);
    }

    /** Closes the reader and the directory once no fetch of the searches is left; the cached regions stay. */
    @Override
    public void close() throws Exception {
      try {
        awaitNoFills();
      } finally {
        try {
          reader.close();
        } finally {
          dir.close();
        }
      }
    }
  }

  /**
   * Runs {@code rounds} rounds of every search under the fault, each on a cleared cache, and checks them; removes
   * the fault ({@code stop} first); then runs every search again on the same cache, which must all be right. The
   * searches under the fault run on a mount of their own, through the short deadlines of {@link #SETTINGS} unless
   * they must be right; those after it on another, through {@link #RIGHT}.
   */
  private Phase underFault(String fault, Expect expect, int rounds, Fault add, Runnable stop) throws Exception {
    awaitNoFills();
    cache.clear();
    Phase phase;
    long faultNanos;
    try (Mount mount = mount(expect == Expect.RIGHT_RESULTS ? RIGHT : faultPolicy)) { // mounted before the fault
      long requests = backend.requests.get();
      long failures = backend.failures.get();
      long bytes = backend.bytes.get();
      backend.firstFailure.set(null);
      firstFailedSearch = null;
      int failedSearches = 0;
      long start = System.nanoTime();
      try {
        add.add();
        for (int round = 1; round <= rounds; round++) {
          if (round > 1) {
            awaitNoFills();
            cache.clear();
          }
          failedSearches += check(fault + (rounds > 1 ? ", round " + round : ""), run(mount), expect);
        }
      } finally {
        stop.run();
        removeToxics();
      }
      faultNanos = System.nanoTime() - start;
      phase = new Phase(failedSearches, backend.requests.get() - requests, backend.failures.get() - failures,
          backend.bytes.get() - bytes);
    }
    assertTrue(phase.backendRequests > 0, "seed " + seed + ": no search under " + fault + " read from the store");
    long start = System.nanoTime();
    CacheStats.Counts before;
    CacheStats.Counts after;
    try (Mount mount = mount(RIGHT)) {
      before = cache.stats().total();
      check("after " + fault + " was removed", run(mount), Expect.RIGHT_RESULTS);
      after = cache.stats().total();
    }
    System.out.printf(Locale.ROOT, "%s: %d of %d searches failed; %d store requests of which %d failed, %d bytes"
            + " received (%.1fs); after it, all right (%.1fs, %d bytes fetched again)%n", fault, phase.failedSearches,
        rounds * searches.size(), phase.backendRequests, phase.backendFailures, phase.backendBytes, faultNanos / 1e9,
        (System.nanoTime() - start) / 1e9,
        after.bytesFetched() + after.bytesReadDirect() - before.bytesFetched() - before.bytesReadDirect());
    if (backend.firstFailure.get() != null) {
      System.out.println("  first store failure: " + abbreviate(backend.firstFailure.get()));
    }
    if (firstFailedSearch != null) {
      System.out.println("  first failed search: " + abbreviate(firstFailedSearch));
    }
    return phase;
  }

  private void assertExercised(Phase phase) {
    assertTrue(phase.backendFailures > 0 || phase.failedSearches > 0, "seed " + seed + ": the fault was never hit: "
        + phase.backendRequests + " store requests, none failed, and every search passed");
  }

  /** Runs every search at once (a stalled one must not hold up the others), within the liveness guard. */
  private List<Outcome> run(Mount mount) {
    return assertTimeoutPreemptively(LIVENESS, () -> {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (Search search : searches) {
        futures.add(searchThreads.submit(() -> {
          try {
            return new Outcome(search.run(mount.searcher), null);
          } catch (Throwable t) {
            return new Outcome(null, t);
          }
        }));
      }
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> f : futures) {
        outcomes.add(f.get());
      }
      return outcomes;
    }, () -> "seed " + seed + ": the searches did not finish within " + LIVENESS + " (a hang?)");
  }

  /** Checks each outcome against the local index's result; returns how many searches failed. */
  private int check(String phase, List<Outcome> outcomes, Expect expect) {
    int failed = 0;
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome outcome = outcomes.get(i);
      String what = "seed " + seed + ", " + phase + ", search " + searches.get(i).name();
      if (outcome.error() == null) {
        assertEquals(expected.get(i), outcome.result(), what + ": the mounted snapshot's result differs from the local index's");
        continue;
      }
      failed++;
      Throwable error = outcome.error();
      if (expect == Expect.RIGHT_RESULTS) {
        fail(what + " failed", error);
      }
      if ((error instanceof UncheckedIOException || error.getClass() == RuntimeException.class)
          && error.getCause() instanceof IOException cause) {
        // Lucene wraps the IOException where its API cannot throw one: in an UncheckedIOException (a TermQuery's
        // ScorerSupplier.cost()) or a plain RuntimeException (doc values read through DirectReader).
        error = cause;
      }
      if (!(error instanceof IOException)) {
        fail(what + " failed with " + error.getClass().getName() + ", not an IOException", error);
      }
      String message = String.valueOf(error.getMessage());
      if (!message.contains(storeName)) {
        fail(what + " failed with a message that does not name the store " + storeName + ": " + message, error);
      }
      if (blobNames.stream().noneMatch(message::contains)) {
        fail(what + " failed with a message that names none of the snapshot's blobs: " + message, error);
      }
      if (expect == Expect.RIGHT_RESULTS_OR_TIMEOUTS && !timedOut(error)) {
        fail(what + " failed, but not with a time-out: " + message, error);
      }
      if (firstFailedSearch == null) {
        firstFailedSearch = error.toString();
      }
    }
    return failed;
  }

  /** Whether a {@link BlobStoreTimeoutException} is in the cause chain, or a message in it says it timed out. */
  private static boolean timedOut(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof BlobStoreTimeoutException || String.valueOf(t.getMessage()).contains("timed out")) {
        return true;
      }
    }
    return false;
  }

  private void removeToxics() throws IOException {
    for (Toxic toxic : proxy.toxics().getAll()) {
      toxic.remove();
    }
  }

  /**
   * Waits for fetches still running (prefetches of the last round) so that clear() really empties the cache and a
   * mount closes with nothing of its own in flight. Every fetch ends within its policy's deadlines (at most about 30s
   * with {@link #RIGHT}); the 90s bound only turns a hang into a failure.
   */
  private void awaitNoFills() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (cache.stats().fillsInFlight() > 0) {
      if (System.nanoTime() - deadline > 0) {
        fail("seed " + seed + ": " + cache.stats().fillsInFlight() + " fetches still in flight after 90s (a hang?)");
      }
      Thread.sleep(20);
    }
  }

  private static URI toxiproxyUrl() {
    String url = System.getenv(TOXIPROXY_URL);
    if (url == null || url.isBlank()) {
      fail(TOXIPROXY_URL + " is not set: the S3 fault tests need the local Toxiproxy (and MinIO). Start the servers"
          + " with scripts/test-servers.sh start and eval \"$(scripts/test-servers.sh env)\", or run scripts/test");
    }
    URI uri = URI.create(url);
    if (uri.getHost() == null || uri.getPort() < 0) {
      fail(TOXIPROXY_URL + " must be http://host:port, got " + url);
    }
    return uri;
  }

  private static String abbreviate(String s) {
    return s.length() <= 600 ? s : s.substring(0, 600) + "...";
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  // -------------------------------------------------------------------------------------------------- searches

  private static List<Search> searches() {
    long from = RandomIndexes.BASE_TIME + 1000L * 1000;
    return List.of(
        new Search("body:alpha", new TermQuery(new Term("body", "alpha")), null),
        new Search("body:kilo", new TermQuery(new Term("body", "kilo")), null),
        new Search("+body:echo #status_s:404", new BooleanQuery.Builder()
            .add(new TermQuery(new Term("body", "echo")), BooleanClause.Occur.MUST)
            .add(new TermQuery(new Term("status_s", "404")), BooleanClause.Occur.FILTER)
            .build(), null),
        new Search("@timestamp range", LongPoint.newRangeQuery("@timestamp", from, from + 600_000), null),
        new Search("country:charlie by @timestamp desc", new TermQuery(new Term("country", "charlie")),
            new Sort(new SortField("@timestamp", SortField.Type.LONG, true))),
        new Search("*:* by status_s, @timestamp", new MatchAllDocsQuery(),
            new Sort(new SortField("status_s", SortField.Type.STRING), new SortField("@timestamp", SortField.Type.LONG))));
  }

  /** A query, with its sort or null for relevance, whose top hits are compared. */
  private record Search(String name, Query query, Sort sort) {
    Result run(IndexSearcher searcher) throws IOException {
      TopDocs top = sort == null ? searcher.search(query, TOP_N) : searcher.search(query, TOP_N, sort);
      StoredFields stored = searcher.storedFields();
      List<Hit> hits = new ArrayList<>();
      for (ScoreDoc sd : top.scoreDocs) {
        List<Object> sortValues = sd instanceof FieldDoc fd
            ? Arrays.stream(fd.fields).map(v -> v instanceof BytesRef b ? b.utf8ToString() : v).toList()
            : List.of();
        Document doc = stored.document(sd.doc);
        hits.add(new Hit(sd.doc, sd.score, sortValues, doc.get("id"), doc.get("body"),
            doc.getField("bytes").numericValue().intValue()));
      }
      return new Result(top.totalHits, hits);
    }
  }

  private record Result(TotalHits totalHits, List<Hit> hits) {}

  private record Hit(int doc, float score, List<Object> sortValues, String id, String body, int bytes) {}

  private record Outcome(Result result, Throwable error) {}

  /**
   * Counts the requests that reach the S3 backend and those that fail there (an exception, or a stream that
   * breaks or ends short), each attempt of a retried read included.
   */
  private static final class CountingStore extends FilterBlobStore {
    final AtomicLong requests = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    final AtomicReference<String> firstFailure = new AtomicReference<>();

    CountingStore(BlobStore in) {
      super(in);
    }

    private void failed(Exception e) {
      failures.incrementAndGet();
      firstFailure.compareAndSet(null, String.valueOf(e));
    }

    @Override
    public InputStream read(String blobName) throws IOException {
      requests.incrementAndGet();
      try {
        return new CountingStream(in.read(blobName), -1);
      } catch (IOException | RuntimeException e) {
        failed(e);
        throw e;
      }
    }

    @Override
    public InputStream read(String blobName, long offset, long length) throws IOException {
      requests.incrementAndGet();
      try {
        return new CountingStream(in.read(blobName, offset, length), length);
      } catch (IOException | RuntimeException e) {
        failed(e);
        throw e;
      }
    }

    @Override
    public long length(String blobName) throws IOException {
      requests.incrementAndGet();
      try {
        return in.length(blobName);
      } catch (IOException | RuntimeException e) {
        failed(e);
        throw e;
      }
    }

    @Override
    public List<BlobMetadata> list(String prefix) throws IOException {
      requests.incrementAndGet();
      try {
        return in.list(prefix);
      } catch (IOException | RuntimeException e) {
        failed(e);
        throw e;
      }
    }

    /** A response stream that counts its first failure: an exception, or its end before {@code length} bytes. */
    private final class CountingStream extends FilterBlobInputStream {
      private final long length;
      private long delivered;
      private boolean broken;

      CountingStream(InputStream in, long length) {
        super(in);
        this.length = length;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n;
        try {
          n = in.read(b, off, len);
        } catch (IOException | RuntimeException e) {
          if (!broken) {
            broken = true;
            failed(e);
          }
          throw e;
        }
        if (n > 0) {
          delivered += n;
          bytes.addAndGet(n);
        } else if (n < 0 && length >= 0 && delivered < length && !broken) {
          broken = true;
          failed(new IOException("response ended after " + delivered + " of " + length + " bytes"));
        }
        return n;
      }
    }
  }
}
