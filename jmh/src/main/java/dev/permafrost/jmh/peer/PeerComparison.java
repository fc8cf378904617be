/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.ByteSizes;
import dev.permafrost.blob.Durations;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.elasticsearch.MappedQueryParser;
import dev.permafrost.sample.DatasetSpec;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.SortField;

/**
 * Permafrost side by side with OpenSearch's searchable snapshots: the same snapshot of the access-log data set, in the
 * same S3 repository (MinIO), read by both through the same Toxiproxy proxy with the same latency, counted by the
 * same counter (the store's own bucket metrics), searched with the same workloads, and every answer of one compared
 * with the other's (a difference fails the run: the peer is also an oracle).
 *
 * <p>OpenSearch indexes the data set (one index a day), snapshots it into the S3 repository and deletes the indices,
 * then restores them as {@code remote_snapshot} indices onto its {@code warm} node (file cache of the cache size).
 * Permafrost mounts the same snapshot's shards ({@link EngineSnapshotRepository}) in a {@link Catalog} over a
 * {@link SharedRegionCache} of the same size. Measured for each, per workload: the time to the first answer after
 * restore or mount, cold searches (right after the caches were emptied and every shard opened again: OpenSearch's
 * warm node restarted on an empty file cache, Permafrost's snapshot mounted again; that opening is measured
 * apart), warm searches,
 * the dashboard repeated with a cache of {@code smallCacheShare} of the data, the store's requests and bytes of each,
 * and the heap a mounted index holds.
 *
 * <p>Needs the test servers' MinIO and Toxiproxy ({@code scripts/test-servers.sh start}, then its {@code env}) and the
 * {@code engine-fixture} module built. Arguments (all optional): {@code days=7 events=20000 runs=3 latencyMs=30
 * cacheShare=1.2 smallCacheShare=0.005 fallbackShares=0.01,0.02,0.05,0.1,0.2,0.5 smallCache=true regionSize=default
 * work=<dir> out=<json>}. Progress goes to stderr, the report to stdout.
 */
public final class PeerComparison {
  static final String BUCKET = "permafrost-peer";
  static final String PROXY = "permafrost-peer-s3";
  static final int PROXY_PORT = 29720; // beside the peer's nodes (PeerCluster), clear of the test fixtures' ranges
  static final String REPOSITORY = "peer";
  static final String SNAPSHOT = "peer-snapshot";

  /** One measured run of one workload on one engine. */
  record Run(String engine, String phase, String workload, double millis, long requests, long bytes) {}

  private final DatasetSpec spec;
  private final int runs;
  private final int latencyMs;
  private final double cacheShare;
  /** Permafrost's region size: {@code default} (the cache's own), {@code auto} (1/2048 of the data) or a size. */
  private final String regionSizeArg;
  private final double smallCacheShare;
  /** Larger small caches to try, in turn, where OpenSearch cannot serve the indices with {@link #smallCacheShare}. */
  private final List<Double> fallbackShares;
  /** Whether to measure the small caches at all (not at a smoke size, where no share of the data is a usable cache). */
  private final boolean smallCache;
  private final Path work;
  private final String s3Endpoint;
  private final String accessKey;
  private final String secretKey;
  private final String toxiproxyUrl;
  private final PeerWorkloads workloads;
  final List<Run> results = new ArrayList<>();
  final Map<String, Object> facts = new LinkedHashMap<>();
  /** OpenSearch's answer to each workload, which every later answer of either engine must equal. */
  private final Map<String, PeerWorkloads.Answer> reference = new LinkedHashMap<>();

  PeerComparison(Map<String, String> args) {
    this.spec = DatasetSpec.of(Integer.parseInt(args.getOrDefault("days", "7")),
        Integer.parseInt(args.getOrDefault("events", "20000")));
    this.runs = Integer.parseInt(args.getOrDefault("runs", "3"));
    this.latencyMs = Integer.parseInt(args.getOrDefault("latencyMs", "30"));
    this.cacheShare = Double.parseDouble(args.getOrDefault("cacheShare", "1.2"));
    this.smallCacheShare = Double.parseDouble(args.getOrDefault("smallCacheShare", "0.005"));
    this.smallCache = Boolean.parseBoolean(args.getOrDefault("smallCache", "true"));
    this.regionSizeArg = args.getOrDefault("regionSize", "default");
    this.fallbackShares = new ArrayList<>();
    for (String share : args.getOrDefault("fallbackShares", "0.01,0.02,0.05,0.1,0.2,0.5").split(",")) {
      fallbackShares.add(Double.parseDouble(share));
    }
    this.work = Path.of(args.getOrDefault("work", System.getProperty("java.io.tmpdir") + "/permafrost-peer"));
    this.s3Endpoint = requireEnv("PERMAFROST_S3_ENDPOINT");
    this.accessKey = requireEnv("PERMAFROST_S3_ACCESS_KEY");
    this.secretKey = requireEnv("PERMAFROST_S3_SECRET_KEY");
    this.toxiproxyUrl = requireEnv("PERMAFROST_TOXIPROXY_URL");
    this.workloads = new PeerWorkloads(spec);
  }

  static String requireEnv(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(name + " is not set: start the test servers (scripts/test-servers.sh start) and"
          + " export what scripts/test-servers.sh env prints");
    }
    return v;
  }

  /** The command line's {@code name=value} arguments, in order. */
  static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("arguments are name=value, got '" + a + "'");
      }
      options.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return options;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    PeerComparison comparison = new PeerComparison(options);
    int status = 0;
    try {
      comparison.run();
    } catch (Exception e) {
      status = 1;
      comparison.facts.put("failed", e.toString());
      e.printStackTrace();
    } finally {
      System.out.println(comparison.report()); // what was measured, also when a later part failed
      if (options.containsKey("out")) {
        Files.writeString(Path.of(options.get("out")), comparison.json());
      }
    }
    System.exit(status);
  }

  private static void log(String format, Object... args) {
    System.err.printf(Locale.ROOT, "peer: " + format + "%n", args);
  }

  /** Runs everything; throws if the engines' answers ever differ. */
  void run() throws Exception {
    PeerCluster.deleteRecursively(work);
    Files.createDirectories(work);
    createBucket();
    StoreCounter counter = new StoreCounter(s3Endpoint);
    String upstream = URI.create(s3Endpoint).getAuthority();
    try (Toxiproxy proxy = new Toxiproxy(toxiproxyUrl, PROXY, PROXY_PORT, upstream);
        PeerCluster cluster = new PeerCluster(work.resolve("opensearch"), proxy.listen, accessKey, secretKey)) {
      proxy.latency(0);
      cluster.start(1L << 30); // resized below, once the snapshot's size is known
      Rest os = cluster.rest;
      facts.put("opensearch", os.get("/").path("version").path("number").asText());
      facts.put("data", spec.days() + " daily indices x " + spec.eventsPerDay() + " events");
      os.put("/_snapshot/" + REPOSITORY, "{\"type\":\"s3\",\"settings\":{\"bucket\":\"" + BUCKET
          + "\",\"base_path\":\"" + spec.id() + "\"}}");
      if (os.status("/_snapshot/" + REPOSITORY + "/" + SNAPSHOT) == 200) {
        facts.put("indexingSeconds", "none: the snapshot of this data set was in the repository already");
      } else {
        double indexing = PeerData.index(os, spec);
        facts.put("indexingSeconds", Math.round(indexing));
        os.put("/_snapshot/" + REPOSITORY + "/" + SNAPSHOT + "?wait_for_completion=true",
            "{\"indices\":\"" + pattern() + "\",\"include_global_state\":false}");
        os.delete("/" + pattern());
      }
      long snapshotBytes = os.get("/_snapshot/" + REPOSITORY + "/" + SNAPSHOT + "/_status").path("snapshots").get(0)
          .path("stats").path("total").path("size_in_bytes").asLong();
      facts.put("snapshotBytes", snapshotBytes);
      long cacheBytes = (long) (snapshotBytes * cacheShare);
      facts.put("cacheBytes", cacheBytes);
      log("snapshot of %d bytes; cache %d", snapshotBytes, cacheBytes);

      cluster.restartWarm(cacheBytes);
      proxy.latency(latencyMs);
      facts.put("latencyMs", latencyMs);
      openSearch(cluster, counter, cacheBytes);
      List<Long> smallCaches = smallCache ? openSearchSmallCache(cluster, counter, snapshotBytes) : List.of();
      // Permafrost's regions: the cache's own default for its size (0), or as the benchmarks size them (auto: about
      // 1/2048 of the data, 16 KiB to 16 MiB; what the comparisons before 2026-11-27 used), or a size
      long regionSize = switch (regionSizeArg) {
        case "default" -> 0;
        case "auto" -> Math.max(16 << 10, Math.min(16 << 20, Long.highestOneBit(Math.max(1, snapshotBytes / 2048))));
        default -> ByteSizes.parse(regionSizeArg);
      };
      facts.put("permafrostRegionBytes", regionSize); // 0: each cache's default for its size
      permafrost(counter, cacheBytes, smallCaches, regionSize);
    }
  }

  private String pattern() {
    return spec.indexName(0).replaceAll("[0-9.]+$", "") + "*";
  }

  private void createBucket() throws IOException, InterruptedException {
    Process curl = new ProcessBuilder("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--aws-sigv4",
        "aws:amz:us-east-1:s3", "--user", accessKey + ":" + secretKey, "-X", "PUT", s3Endpoint + "/" + BUCKET)
        .redirectErrorStream(true).start();
    String status = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    curl.waitFor(30, TimeUnit.SECONDS);
    if (!status.equals("200") && !status.equals("409")) {
      throw new IOException("creating the bucket " + BUCKET + " at " + s3Endpoint + " answered " + status);
    }
  }

  private void check(String engine, String workload, PeerWorkloads.Answer answer) {
    PeerWorkloads.Answer expected = reference.putIfAbsent(workload, answer);
    if (expected != null) {
      String difference = expected.differenceFrom(answer);
      if (difference != null) {
        throw new IllegalStateException("OpenSearch and " + engine + " disagree on the " + workload + ": " + difference);
      }
    }
  }

  // ---- OpenSearch ----

  private void openSearch(PeerCluster cluster, StoreCounter counter, long cacheBytes) throws Exception {
    Rest os = cluster.rest;
    long heapBefore = warmHeapAfterGc(cluster);
    StoreCounter.Counts before = counter.now();
    long start = System.nanoTime();
    os.post("/_snapshot/" + REPOSITORY + "/" + SNAPSHOT + "/_restore?wait_for_completion=true",
        "{\"indices\":\"" + pattern() + "\",\"storage_type\":\"remote_snapshot\",\"include_global_state\":false}");
    String unassigned = cluster.awaitGreen(URLEncoder.encode(pattern(), StandardCharsets.UTF_8), 600);
    if (unassigned != null) {
      throw new IllegalStateException("OpenSearch could not serve the restored indices: " + unassigned);
    }
    PeerWorkloads.Answer first = workloads.openSearch(os, pattern(), "needle", true);
    long firstNanos = System.nanoTime() - start;
    double firstMillis = firstNanos / 1e6;
    StoreCounter.Counts firstCounts = counter.now().minus(before);
    results.add(new Run("OpenSearch", "first answer", "needle", firstMillis, firstCounts.requests(), firstCounts.bytes()));
    check("OpenSearch", "needle", first);
    log("OpenSearch: first answer after %s", Durations.formatNanos(firstNanos));
    long heapAfter = warmHeapAfterGc(cluster);
    facts.put("openSearchHeapPerIndex", (heapAfter - heapBefore) / spec.days());
    for (String w : PeerWorkloads.NAMES) {
      for (int r = 0; r < runs; r++) {
        coldWarmNode(cluster, cacheBytes, counter);
        measure("OpenSearch", "cold", w, counter, () -> workloads.openSearch(os, pattern(), w, true));
      }
      measure("OpenSearch", "warm-up", w, counter, () -> workloads.openSearch(os, pattern(), w, true));
      for (int r = 0; r < runs; r++) {
        measure("OpenSearch", "warm", w, counter, () -> workloads.openSearch(os, pattern(), w, true));
      }
      for (int r = 0; r < runs; r++) {
        measure("OpenSearch", "warm, no request cache", w, counter, () -> workloads.openSearch(os, pattern(), w, false));
      }
    }
  }

  /**
   * Makes OpenSearch's next search cold: a new warm node with an empty file cache, the shards recovered onto it
   * (readers open, what opening read cached). Clearing the file cache ({@code _cache/clear?file=true}) evicts only
   * what no open input references, which left the whole working set of these searches cached.
   */
  private void coldWarmNode(PeerCluster cluster, long fileCacheBytes, StoreCounter counter) throws Exception {
    cluster.restartWarm(fileCacheBytes);
    StoreCounter.Counts before = counter.now();
    long start = System.nanoTime(); // from the node's joining: its shards' recovery, not its JVM's start
    String unassigned = cluster.awaitGreen("_all", 600);
    if (unassigned != null) {
      throw new IOException("OpenSearch could not serve the indices again: " + unassigned);
    }
    StoreCounter.Counts used = counter.now().minus(before);
    results.add(new Run("OpenSearch", "cold open", "all", (System.nanoTime() - start) / 1e6, used.requests(),
        used.bytes()));
  }



  /**
   * The dashboard with a small file cache: {@link #smallCacheShare} of the data, and where OpenSearch cannot serve the
   * indices with that (its file cache must hold the blocks a shard opens), the next of {@link #fallbackShares} it can;
   * each size tried is restored afresh onto a warm node with that cache. Returns the sizes Permafrost runs with too:
   * the small share, and the one OpenSearch ran with if it is another.
   */
  private List<Long> openSearchSmallCache(PeerCluster cluster, StoreCounter counter, long snapshotBytes)
      throws Exception {
    Rest os = cluster.rest;
    List<Double> shares = new ArrayList<>();
    shares.add(smallCacheShare);
    shares.addAll(fallbackShares);
    List<Long> sizes = new ArrayList<>();
    sizes.add(sizeOf(snapshotBytes, smallCacheShare));
    Map<String, String> refused = new LinkedHashMap<>();
    for (double share : shares) {
      long bytes = sizeOf(snapshotBytes, share);
      os.delete("/" + pattern());
      cluster.restartWarm(bytes);
      os.post("/_snapshot/" + REPOSITORY + "/" + SNAPSHOT + "/_restore?wait_for_completion=true",
          "{\"indices\":\"" + pattern() + "\",\"storage_type\":\"remote_snapshot\",\"include_global_state\":false}");
      String unassigned = cluster.awaitGreen(URLEncoder.encode(pattern(), StandardCharsets.UTF_8), 120);
      if (unassigned != null) {
        refused.put(bytes + " bytes (" + share + " of the data)", unassigned);
        log("OpenSearch cannot serve the indices with a file cache of %d bytes: %s", bytes, unassigned);
        continue;
      }
      String phase = "small cache " + bytes;
      try {
        for (int r = 0; r < runs; r++) {
          if (r > 0) {
            coldWarmNode(cluster, bytes, counter);
          }
          measure("OpenSearch", phase + ", cold", "dashboard", counter,
              () -> workloads.openSearch(os, pattern(), "dashboard", true));
          measure("OpenSearch", phase + ", repeat", "dashboard", counter,
              () -> workloads.openSearch(os, pattern(), "dashboard", true));
          measure("OpenSearch", phase + ", repeat, no request cache", "dashboard", counter,
              () -> workloads.openSearch(os, pattern(), "dashboard", false));
        }
      } catch (IOException e) {
        // a file cache too small for what one search holds at once fails the search
        results.removeIf(run -> run.phase().startsWith(phase + ","));
        refused.put(bytes + " bytes (" + share + " of the data)", "the dashboard failed: " + e.getMessage());
        log("OpenSearch's dashboard fails with a file cache of %d bytes: %s", bytes, e.getMessage());
        continue;
      }
      if (bytes != sizes.get(0)) {
        sizes.add(bytes);
      }
      break;
    }
    facts.put("openSearchSmallCacheRefused", refused);
    facts.put("smallCacheBytes", sizes);
    return sizes;
  }

  private static long sizeOf(long snapshotBytes, double share) {
    return Math.max(1L << 20, (long) (snapshotBytes * share));
  }

  /** The warm node's heap in use after a full collection, as its JVM reports it. */
  private static long warmHeapAfterGc(PeerCluster cluster) throws Exception {
    Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(cluster.warmPid()), "GC.run").redirectErrorStream(true).start();
    jcmd.getInputStream().readAllBytes();
    jcmd.waitFor(60, TimeUnit.SECONDS);
    JsonNode nodes = cluster.rest.get("/_nodes/warm/stats/jvm").path("nodes");
    return nodes.elements().next().path("jvm").path("mem").path("heap_used_in_bytes").asLong();
  }

  // ---- Permafrost ----

  private void permafrost(StoreCounter counter, long cacheBytes, List<Long> smallCaches, long regionSize)
      throws Exception {
    // the bucket's root: OpenSearch's hashed shard paths are there, outside the repository's base path
    URI uri = URI.create("s3://" + BUCKET + "?endpoint=http://127.0.0.1:" + PROXY_PORT
        + "&access_key=" + accessKey + "&secret_key=" + secretKey);
    try (BlobStore store = BlobStores.open(uri);
        SharedRegionCache cache = cache(work.resolve("cache"), cacheBytes, regionSize)) {
      Catalog catalog = Catalog.builder(cache).maxOpenReaders(1000).build();
      try {
        long heapBefore = heapAfterGc();
        StoreCounter.Counts before = counter.now();
        long start = System.nanoTime();
        SortField newest = mount(store, catalog);
        long mountNanos = System.nanoTime() - start;
        long heapMounted = heapAfterGc(); // not timed
        long searchStart = System.nanoTime();
        PeerWorkloads.Answer first = workloads.permafrost(catalog, "needle", newest);
        long firstNanos = mountNanos + System.nanoTime() - searchStart;
        double firstMillis = firstNanos / 1e6;
        StoreCounter.Counts firstCounts = counter.now().minus(before);
        results.add(new Run("Permafrost", "first answer", "needle", firstMillis, firstCounts.requests(),
            firstCounts.bytes()));
        check("Permafrost", "needle", first);
        log("Permafrost: first answer after %s", Durations.formatNanos(firstNanos));
        long heapOpen = heapAfterGc();
        facts.put("permafrostHeapPerIndexMounted", (heapMounted - heapBefore) / spec.days());
        facts.put("permafrostHeapPerIndexOpen", (heapOpen - heapBefore) / spec.days());
        for (String w : PeerWorkloads.NAMES) {
          for (int r = 0; r < runs; r++) {
            catalog = coldCatalog(catalog, cache, store, counter);
            Catalog c = catalog;
            measure("Permafrost", "cold", w, counter, () -> workloads.permafrost(c, w, newest));
          }
          Catalog c = catalog;
          measure("Permafrost", "warm-up", w, counter, () -> workloads.permafrost(c, w, newest));
          for (int r = 0; r < runs; r++) {
            measure("Permafrost", "warm", w, counter, () -> workloads.permafrost(c, w, newest));
          }
        }
      } finally {
        catalog.close();
      }
    }
    for (long bytes : smallCaches) {
      try (BlobStore store = BlobStores.open(uri);
          SharedRegionCache cache = cache(work.resolve("small-cache-" + bytes), bytes, regionSize)) {
        Catalog catalog = Catalog.builder(cache).maxOpenReaders(1000).build();
        try {
          SortField newest = mount(store, catalog);
          String phase = "small cache " + bytes;
          for (int r = 0; r < runs; r++) {
            catalog = coldCatalog(catalog, cache, store, counter);
            Catalog c = catalog;
            for (String run : List.of(", cold", ", repeat")) {
              CacheStats.Counts before = cache.stats().total();
              measure("Permafrost", phase + run, "dashboard", counter,
                  () -> workloads.permafrost(c, "dashboard", newest));
              logCache(phase + run, cache, before);
            }
          }
        } finally {
          catalog.close();
        }
      }
    }
  }

  /**
   * Makes Permafrost's next search cold, as {@link #coldWarmNode} makes OpenSearch's: the cache emptied, the
   * snapshot mounted afresh and every shard's reader opened (what opening reads cached), none of it measured.
   */
  private Catalog coldCatalog(Catalog old, SharedRegionCache cache, BlobStore store, StoreCounter counter)
      throws IOException {
    old.close();
    cache.clear();
    StoreCounter.Counts before = counter.now();
    long start = System.nanoTime();
    Catalog catalog = Catalog.builder(cache).maxOpenReaders(1000).build();
    mount(store, catalog);
    for (MountInfo index : catalog.list()) {
      try (Lease lease = catalog.acquire(index.name())) {
        lease.reader(); // opened
      }
    }
    StoreCounter.Counts used = counter.now().minus(before);
    results.add(new Run("Permafrost", "cold open", "all", (System.nanoTime() - start) / 1e6, used.requests(),
        used.bytes()));
    return catalog;
  }

  /**
   * What the cache did in a measure ({@code before}: its counts when it began) and holds after it: how a small cache's
   * requests split between fills and direct reads, and whether anything is still in flight or kept between runs.
   */
  private static void logCache(String phase, SharedRegionCache cache, CacheStats.Counts before) {
    CacheStats stats = cache.stats();
    CacheStats.Counts c = stats.total();
    log("Permafrost %s: hits %d, misses %d, fetches %d (%d bytes), direct reads %d (%d bytes); after it %d of %d "
        + "regions in use, %d evictions so far, %d fills in flight", phase, c.hits() - before.hits(),
        c.misses() - before.misses(), c.fetches() - before.fetches(), c.bytesFetched() - before.bytesFetched(),
        c.directReads() - before.directReads(), c.bytesReadDirect() - before.bytesReadDirect(), stats.regionsInUse(),
        stats.regions(), stats.evictions(), stats.fillsInFlight());
  }

  private static SharedRegionCache cache(Path dir, long bytes, long regionSize) throws IOException {
    return SharedRegionCache.builder().path(dir).size(Math.max(bytes, 2 * regionSize)).regionSize(regionSize).build();
  }

  /** Mounts every shard of the snapshot's indices; the sort field by the mapping. */
  private SortField mount(BlobStore store, Catalog catalog) throws IOException {
    EngineSnapshotRepository repo = EngineSnapshotRepository.open(store, spec.id());
    return mountAll(repo, repo.snapshots().getLast(), catalog);
  }

  /** Mounts every shard of {@code snapshot}'s indices under the index's name; the newest-first sort by the mapping. */
  static SortField mountAll(EngineSnapshotRepository repo, String snapshot, Catalog catalog) throws IOException {
    MappedQueryParser parser = null;
    for (String index : repo.indices(snapshot)) {
      repo.mount(catalog, index, snapshot, index);
      if (parser == null) {
        parser = new MappedQueryParser(repo.indexMetadata(snapshot, index).mapping());
      }
    }
    return parser.sortField("@timestamp", true);
  }

  private static long heapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  // ---- measuring ----

  private interface Search {
    PeerWorkloads.Answer run() throws IOException;
  }

  private void measure(String engine, String phase, String workload, StoreCounter counter, Search search)
      throws IOException {
    StoreCounter.Counts before = counter.now();
    long start = System.nanoTime();
    PeerWorkloads.Answer answer = search.run();
    double millis = (System.nanoTime() - start) / 1e6;
    StoreCounter.Counts used = counter.now().minus(before);
    check(engine, workload, answer);
    if (!phase.equals("warm-up")) {
      results.add(new Run(engine, phase, workload, millis, used.requests(), used.bytes()));
    }
  }

  // ---- reporting ----

  /** The median of the runs of (engine, phase, workload): {millis, requests, bytes}, or null if none. */
  double[] median(String engine, String phase, String workload) {
    List<Run> matching = results.stream()
        .filter(r -> r.engine().equals(engine) && r.phase().equals(phase) && r.workload().equals(workload)).toList();
    if (matching.isEmpty()) {
      return null;
    }
    double[] millis = matching.stream().mapToDouble(Run::millis).sorted().toArray();
    double[] requests = matching.stream().mapToDouble(Run::requests).sorted().toArray();
    double[] bytes = matching.stream().mapToDouble(Run::bytes).sorted().toArray();
    return new double[] {mid(millis), mid(requests), mid(bytes)};
  }

  private static double mid(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  String report() {
    StringBuilder sb = new StringBuilder();
    sb.append("Facts: ").append(facts).append("\n\n");
    sb.append("| measure | workload | OpenSearch ms / requests / MB | Permafrost ms / requests / MB | Permafrost / OpenSearch (time, requests) |\n");
    sb.append("|---|---|---|---|---|\n");
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"first answer after restore / mount", "needle"});
    rows.add(new String[] {"cold: opening every shard (not in the search rows)", "all"});
    for (String w : PeerWorkloads.NAMES) {
      rows.add(new String[] {"cold", w});
    }
    for (String w : PeerWorkloads.NAMES) {
      rows.add(new String[] {"warm", w});
    }
    rows.add(new String[] {"warm, no request cache", "dashboard"});
    @SuppressWarnings("unchecked")
    List<Long> smallCaches = (List<Long>) facts.getOrDefault("smallCacheBytes", List.of());
    for (long bytes : smallCaches) {
      rows.add(new String[] {"small cache " + bytes + ", cold", "dashboard"});
      rows.add(new String[] {"small cache " + bytes + ", repeat", "dashboard"});
      rows.add(new String[] {"small cache " + bytes + ", repeat, no request cache", "dashboard"});
    }
    for (String[] row : rows) {
      String phase = row[0].startsWith("first") ? "first answer" : row[0].startsWith("cold: opening") ? "cold open"
          : row[0];
      double[] os = median("OpenSearch", phase, row[1]);
      double[] pf = median("Permafrost", phase, row[1]);
      sb.append("| ").append(row[0]).append(" | ").append(row[1]).append(" | ").append(cell(os)).append(" | ")
          .append(cell(pf)).append(" | ").append(ratio(pf, os)).append(" |\n");
    }
    return sb.toString();
  }

  private static String cell(double[] m) {
    return m == null ? "-" : String.format(Locale.ROOT, "%.1f / %.0f / %.2f", m[0], m[1], m[2] / 1e6);
  }

  private static String ratio(double[] pf, double[] os) {
    if (pf == null || os == null) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.2fx, %s", pf[0] / os[0], os[1] == 0 ? (pf[1] == 0 ? "0 = 0" : "-")
        : String.format(Locale.ROOT, "%.2fx", pf[1] / os[1]));
  }

  String json() {
    ObjectNode root = Rest.JSON.createObjectNode();
    root.set("facts", Rest.JSON.valueToTree(facts));
    root.set("runs", Rest.JSON.valueToTree(results));
    return root.toPrettyString();
  }

  /** For tests: the answers both engines agreed on. */
  Map<String, PeerWorkloads.Answer> agreedAnswers() {
    return reference;
  }
}
