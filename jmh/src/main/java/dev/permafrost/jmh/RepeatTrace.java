/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.Durations;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.SearchCost;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Command line: a workload repeated through a small cache, as {@link SmallCacheBenchmark} measures it (snapshots
 * mounted in a catalog, the modelled store), one line per repeat: its time, its waves by dependency and by the
 * clock, its requests and bytes, and what the cache did (hits, misses, reads directly from the store, evictions);
 * then, for the slowest repeat, its requests wave by wave and file by file. Where a repeat's time goes when it is
 * far from the others.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.permafrost.jmh.RepeatTrace [scale] [workload] [cacheShare] [repeats] [regionSize] [lines] [rounds] [totalsFrom]
 * </pre>
 *
 * {@code lines}: {@code all} prints every request of the slowest repeat, else only the summary per wave.
 * {@code rounds}: how many times to clear the cache and run cold then the repeats, in one JVM (default 1): a later
 * round's first repeat runs compiled code, so it shows what the cache's state costs apart from the JIT's warm-up.
 * {@code totalsFrom}: if given, every request of the last round's repeats from that one on is counted by thread pool,
 * file and range, and the counts are printed at the end, most first, with the requests a repeat per file extension:
 * what a build asks for again and again that another does not, where one repeat's list is noise.
 */
public final class RepeatTrace {
  private RepeatTrace() {}

  public static void main(String[] args) throws Exception {
    String scale = args.length > 0 ? args[0] : "smoke";
    String name = args.length > 1 ? args[1] : "dashboard";
    double share = args.length > 2 ? Double.parseDouble(args[2]) : 0.005;
    int repeats = args.length > 3 ? Integer.parseInt(args[3]) : 20;
    String regionParam = args.length > 4 ? args[4] : "default";
    boolean allLines = args.length > 5 && args[5].equals("all");
    int rounds = args.length > 6 ? Integer.parseInt(args[6]) : 1;
    int totalsFrom = args.length > 7 ? Integer.parseInt(args[7]) : Integer.MAX_VALUE;
    Map<String, Integer> totals = new TreeMap<>();
    int totalled = 0;
    Dataset dataset = BenchmarkData.dataset(scale);
    Workload workload = Workloads.byName(name, dataset.spec());
    Path cacheDir = BenchmarkData.scratch("repeat-trace-cache");
    Map<String, String> files = fileNames(dataset);
    try (LatencyModelBlobStore store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(dataset.openStore()),
            LatencyModel.of(30, 80));
        SharedRegionCache cache = BlobIndexes.cache(cacheDir, (long) (share * dataset.indexBytes()),
            BlobIndexes.regionSize(regionParam, dataset));
        MountedIndices indices = MountedIndices.mount(SnapshotRepository.open(store), dataset.indexNames(), cache)) {
      System.out.println("# " + scale + " " + name + ", cache " + cache.sizeInBytes() + " bytes ("
          + share * 100 + "% of " + dataset.indexBytes() + "), regions of " + cache.stats().regionSize());
      System.out.println("run        ms  waves clock  reqs      MB   hits misses direct  hit%  evicted  inUse");
      List<String> slowest = List.of();
      long slowestMillis = -1;
      int slowestRun = -1;
      for (int round = 1; round <= rounds; round++) {
      if (round > 1) {
        slowestMillis = -1; // the slowest repeat of the last round is shown
        cache.clear();
        System.out.println("# round " + round + ": the cache cleared");
      }
      for (int run = 0; run <= repeats; run++) {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        CacheStats before = cache.stats();
        store.stats().reset();
        store.trace(lines::add);
        long start = System.nanoTime();
        workload.run(indices);
        long millis = (System.nanoTime() - start) / 1_000_000;
        store.trace(null);
        CacheStats after = cache.stats();
        RequestStats.Snapshot requests = store.stats().snapshot();
        SearchCost cost = indices.lastCost();
        long hits = after.total().hits() - before.total().hits();
        long misses = after.total().misses() - before.total().misses();
        long direct = after.total().directReads() - before.total().directReads();
        System.out.printf(Locale.ROOT, "%-6s %6d %6d %5d %5d %7.1f %6d %6d %6d %5.1f %8d %6d%n",
            run == 0 ? "cold" : String.valueOf(run), millis, cost == null ? -1 : cost.waves(), requests.roundTripWaves(),
            requests.requests(), requests.bytesRead() / 1e6, hits, misses, direct,
            hits + misses + direct == 0 ? 0 : 100.0 * hits / (hits + misses + direct),
            after.evictions() - before.evictions(), after.regionsInUse());
        if (round == rounds && run >= totalsFrom && run > 0) {
          totalled++;
          for (String line : lines) {
            totals.merge(request(line, files), 1, Integer::sum);
          }
        }
        if (run > 0 && millis > slowestMillis) {
          slowestMillis = millis;
          slowestRun = run;
          slowest = List.copyOf(lines);
        }
      }
      }
      System.out.println("# the slowest repeat of the last round, " + slowestRun + " ("
          + Durations.format(Duration.ofMillis(slowestMillis)) + "), by clock wave:");
      printByWave(slowest, files, allLines);
      if (totalled > 0) {
        printTotals(totals, totalled, totalsFrom);
      }
    } finally {
      BenchmarkData.delete(cacheDir);
    }
  }

  /**
   * Prints traced requests ({@link LatencyModelBlobStore#trace} lines) with blob names replaced by {@code files}'
   * short names: each line if {@code allLines}, then per clock wave, thread pool and file extension the requests and
   * their bytes.
   */
  public static void printByWave(List<String> lines, Map<String, String> files, boolean allLines) {
    TreeMap<String, long[]> byWave = new TreeMap<>();
    for (String line : lines) {
      String named = line;
      for (var e : files.entrySet()) {
        named = named.replace(e.getKey(), e.getValue());
      }
      if (allLines) {
        System.out.println(named);
      }
      String[] parts = named.trim().split("\\s+");
      String wave = String.format(Locale.ROOT, "%3s", parts[1]);
      String thread = parts[2].replaceAll("-?\\d+$", "");
      String file = parts[3];
      String ext = file.contains(".") ? file.substring(file.lastIndexOf('.')) : file;
      long length = Long.parseLong(parts[parts.length - 1].replaceAll("[^0-9]", ""));
      long[] c = byWave.computeIfAbsent(wave + " " + String.format(Locale.ROOT, "%-28s", thread) + " " + ext,
          k -> new long[2]);
      c[0]++;
      c[1] += length;
    }
    byWave.forEach((k, c) -> System.out.printf(Locale.ROOT, "wave %s %5d requests %10d bytes%n", k, c[0], c[1]));
  }

  /** A traced request as "pool file [offset, +length)", the blob named by {@code files}, the wave and thread dropped. */
  private static String request(String line, Map<String, String> files) {
    String named = line;
    for (var e : files.entrySet()) {
      named = named.replace(e.getKey(), e.getValue());
    }
    String[] parts = named.trim().split("\\s+");
    StringBuilder key = new StringBuilder(parts[2].replaceAll("-?\\d+$", ""));
    for (int i = 3; i < parts.length; i++) {
      key.append(' ').append(parts[i]);
    }
    return key.toString();
  }

  /** The requests of {@code repeats} repeats from {@code from} on: each with its count, most first, then per extension. */
  private static void printTotals(Map<String, Integer> totals, int repeats, int from) {
    System.out.println("# the requests of the last round's " + repeats + " repeats from repeat " + from
        + " on, by pool, file and range, most first:");
    totals.entrySet().stream()
        .sorted((a, b) -> a.getValue().equals(b.getValue()) ? a.getKey().compareTo(b.getKey()) : b.getValue() - a.getValue())
        .forEach(e -> System.out.printf(Locale.ROOT, "%5d  %s%n", e.getValue(), e.getKey()));
    TreeMap<String, Integer> byExtension = new TreeMap<>();
    totals.forEach((request, count) -> {
      String file = request.split(" ")[1];
      byExtension.merge(file.contains(".") ? file.substring(file.lastIndexOf('.')) : file, count, Integer::sum);
    });
    byExtension.forEach((ext, count) -> System.out.printf(Locale.ROOT, "%-8s %7.2f requests a repeat%n", ext,
        (double) count / repeats));
  }

  /** Each blob of the data set's snapshots by a short name: the index's day and the file ("05/_6.dvd"). */
  static Map<String, String> fileNames(Dataset dataset) throws IOException {
    Map<String, String> files = new HashMap<>();
    SnapshotRepository repo = SnapshotRepository.open(dataset.openStore());
    for (String snapshot : dataset.indexNames()) {
      for (FileEntry f : repo.readManifest(snapshot).files()) {
        if (f.blobName() != null) {
          files.put(f.blobName(), snapshot.substring(snapshot.length() - 2) + "/" + f.name());
        }
      }
    }
    return files;
  }
}
