/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchCost;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.jmh.engine.LogsdbDashboard;
import dev.permafrost.jmh.engine.LogsdbData;
import dev.permafrost.jmh.engine.LogsdbDataWriter;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.search.Query;

/**
 * Command line: the dashboard over the engine logsdb data set ({@link LogsdbData}), as {@link EngineLogsdbBenchmark}
 * runs it, with its store requests wave by wave: where a cold search over an engine's snapshot, or a repeat through a
 * small cache, spends its round trips.
 *
 * <pre>
 * java --add-modules jdk.incubator.vector -cp jmh/target/benchmarks.jar dev.permafrost.jmh.EngineTrace [docs] [cache] [repeats] [all]
 * </pre>
 *
 * {@code cache}: {@code cold} (the default: the cache, twice the data, emptied and the index mounted again before each
 * run; {@code repeats} cold runs, the first only warms the JVM) or a share of the data such as {@code 0.005} (one cold
 * run, then {@code repeats} repeats on the same mount). One line per run: time (this machine's, not a result), waves
 * by dependency and by the clock, requests, MB, and the cache's hits, misses and direct reads; then the last cold run's
 * requests (or the slowest repeat's) by clock wave, thread pool and file, with every request if {@code all}: each
 * blob is named by the shard's file ({@code _0_ES819TSDB_0.dvd}). Every run's answer is checked against the node's.
 */
public final class EngineTrace {
  private EngineTrace() {}

  public static void main(String[] args) throws Exception {
    int docs = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 2_000_000;
    String cache = args.length > 1 ? args[1] : "cold";
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    boolean allLines = args.length > 3 && args[3].equals("all");
    boolean cold = cache.equals("cold");
    LogsdbData data = LogsdbDataWriter.getOrCreate(docs);
    long bytes = data.repositoryBytes();
    DashboardWorkload work = (DashboardWorkload) Workloads.byName("dashboard", data.spec());
    Path cacheDir = BenchmarkData.scratch("engine-trace-cache");
    try (LatencyModelBlobStore store = new LatencyModelBlobStore(
            StorePolicy.DEFAULT.apply(FileSystemBlobStore.open(data.repository(), false)), LatencyModel.of(30, 80));
        SharedRegionCache regions = BlobIndexes.cache(cacheDir,
            cold ? 2 * bytes + (64 << 20) : (long) (Double.parseDouble(cache) * bytes),
            BlobIndexes.regionSize(cold ? "auto" : "default", bytes))) {
      EngineSnapshotRepository repository = EngineSnapshotRepository.open(store);
      Map<String, String> files = fileNames(repository);
      System.out.println("# " + data + ", " + bytes + " bytes; cache " + regions.sizeInBytes() + " bytes, regions of "
          + regions.stats().regionSize());
      System.out.println("run        ms  waves clock  reqs      MB   hits misses direct");
      Query query;
      Map<String, TreeMap<Long, String>> compound;
      try (MountedIndices first = mount(repository, regions);
          Lease lease = first.catalog().acquire(first.names().get(0))) {
        query = LogsdbDashboard.query(work, lease.reader());
        compound = compoundEntries(lease.reader(), files);
        System.out.println("# @timestamp's range read from its "
            + (LogsdbDashboard.hasTimestampPoints(lease.reader()) ? "points" : "doc values") + "; " + query);
      }
      MountedIndices indices = null;
      List<String> shown = List.of();
      long shownMillis = -1;
      String shownRun = "";
      try {
        for (int run = 0; run <= repeats; run++) {
          if (cold || indices == null) {
            if (indices != null) {
              indices.close();
            }
            regions.clear();
            indices = mount(repository, regions);
            regions.clear(); // what mounting's check of the formats read: the search opens its reader from the store
          }
          List<String> lines = Collections.synchronizedList(new ArrayList<>());
          CacheStats.Counts before = regions.stats().total();
          store.stats().reset();
          store.trace(lines::add);
          long start = System.nanoTime();
          DashboardWorkload.Result result = indices.collect(query, work.collectorManager());
          long millis = (System.nanoTime() - start) / 1_000_000;
          store.trace(null);
          DashboardAnswer.checkNode(result, data.nodeAnswer());
          CacheStats.Counts after = regions.stats().total();
          RequestStats.Snapshot requests = store.stats().snapshot();
          SearchCost cost = indices.lastCost();
          String name = cold || run == 0 ? "cold" : String.valueOf(run);
          System.out.printf(Locale.ROOT, "%-6s %6d %6d %5d %5d %7.1f %6d %6d %6d%n", name, millis, cost.waves(),
              requests.roundTripWaves(), requests.requests() + requests.metadataRequests(), requests.bytesRead() / 1e6,
              after.hits() - before.hits(), after.misses() - before.misses(), after.directReads() - before.directReads());
          if (cold ? run == repeats : run > 0 && millis > shownMillis) {
            shown = lines.stream().map(line -> inCompound(line, compound)).toList();
            shownMillis = millis;
            shownRun = name + " " + run;
          }
        }
      } finally {
        if (indices != null) {
          indices.close();
        }
      }
      System.out.println("# run " + shownRun + ", its requests by clock wave (" + shown.size() + "):");
      RepeatTrace.printByWave(shown, files, allLines);
    } finally {
      BenchmarkData.delete(cacheDir);
    }
  }

  private static MountedIndices mount(EngineSnapshotRepository repository, SharedRegionCache regions)
      throws IOException {
    return MountedIndices.mountEngine(repository, LogsdbData.SNAPSHOT, LogsdbData.INDEX, Catalog.builder(regions));
  }

  /**
   * The entries of each compound file of {@code reader}'s segments ({@code .cfe}, Lucene 9.0's compound format, which
   * the engine's codecs keep), by the compound file's blob: each entry's start in it to its name.
   */
  static Map<String, TreeMap<Long, String>> compoundEntries(IndexReader reader, Map<String, String> files)
      throws IOException {
    Map<String, TreeMap<Long, String>> entries = new HashMap<>();
    for (LeafReaderContext leaf : reader.leaves()) {
      if (!(FilterLeafReader.unwrap(leaf.reader()) instanceof SegmentReader segment)
          || !segment.getSegmentInfo().info.getUseCompoundFile()) {
        continue;
      }
      SegmentInfo info = segment.getSegmentInfo().info;
      String cfs = IndexFileNames.segmentFileName(info.name, "", "cfs");
      String blob = files.entrySet().stream().filter(e -> e.getValue().endsWith("/" + cfs)).map(Map.Entry::getKey)
          .findFirst().orElse(null);
      if (blob == null) {
        continue;
      }
      TreeMap<Long, String> byStart = new TreeMap<>();
      try (IndexInput in = info.dir.openInput(IndexFileNames.segmentFileName(info.name, "", "cfe"), IOContext.READONCE)) {
        CodecUtil.checkIndexHeader(in, "Lucene90CompoundEntries", 0, 0, info.getId(), "");
        for (int i = in.readVInt(); i > 0; i--) {
          String suffix = in.readString();
          long offset = in.readLong();
          in.readLong(); // its length: the next entry's start (or the footer) ends it
          byStart.put(offset, info.name + suffix);
        }
      }
      entries.put(blob, byStart);
    }
    return entries;
  }

  /**
   * A traced request with a compound file's blob named by the entry its range starts in, and how many entries after it
   * the range reaches into ({@code _0.cfs:_0_ES819TSDB_0.dvd+1}): what the request was for.
   */
  static String inCompound(String line, Map<String, TreeMap<Long, String>> compound) {
    for (var e : compound.entrySet()) {
      int at = line.indexOf(e.getKey());
      if (at < 0) {
        continue;
      }
      String range = line.substring(line.lastIndexOf('[') + 1, line.lastIndexOf(')'));
      long start = Long.parseLong(range.substring(0, range.indexOf(',')).trim());
      long end = start + Long.parseLong(range.substring(range.indexOf('+') + 1).trim());
      var first = e.getValue().floorEntry(start);
      int more = e.getValue().subMap(start, false, end, false).size();
      String entry = (first == null ? "(header)" : first.getValue()) + (more > 0 ? "+" + more : "");
      return line.substring(0, at) + e.getKey() + ":" + entry + line.substring(at + e.getKey().length());
    }
    return line;
  }

  /** Each blob of the index's shards by the file it holds, as the shard's snapshot names it ("0/_0.dvd"). */
  static Map<String, String> fileNames(EngineSnapshotRepository repository) throws Exception {
    Map<String, String> files = new HashMap<>();
    int shards = repository.indexMetadata(LogsdbData.SNAPSHOT, LogsdbData.INDEX).shards();
    for (int shard = 0; shard < shards; shard++) {
      String name = EngineSnapshotRepository.shard(LogsdbData.SNAPSHOT, LogsdbData.INDEX, shard);
      for (FileEntry f : repository.parseManifest(name, repository.readManifestBytes(name)).files()) {
        if (f.blobName() != null) {
          files.put(f.blobName(), shard + "/" + f.name());
        }
      }
    }
    return files;
  }
}
