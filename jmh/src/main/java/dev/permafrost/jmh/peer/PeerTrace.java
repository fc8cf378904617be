/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.jmh.RepeatTrace;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.sample.DatasetSpec;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.store.SharedRegionCache;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.search.SortField;

/**
 * Command line: Permafrost's cold searches over the peer harness's snapshot, with every store request they make, wave
 * by wave and file by file: where the requests that {@link PeerComparison} counts go. It reads the snapshot a run of
 * {@link PeerComparison} left in the test servers' MinIO (run that first, with the same {@code days} and
 * {@code events}, and leave the servers up), straight from MinIO under a modelled latency ({@link LatencyModel}: 30 ms
 * to the first byte), and does not start OpenSearch.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.permafrost.jmh.peer.PeerTrace days=7 events=2000000 [workloads=needle,dashboard,discover] [runs=2] [all=true]
 * </pre>
 *
 * Each workload runs {@code runs} times cold (the cache emptied, the snapshot mounted again and every reader opened
 * before each, as {@link PeerComparison} makes a search cold); one line a run (time on this machine, waves by
 * dependency and by the clock, requests, MB), then the last run's requests by clock wave, thread pool and file kind,
 * and with {@code all} every request, each blob named by its index, shard and file.
 */
public final class PeerTrace {
  private PeerTrace() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = PeerComparison.options(args);
    DatasetSpec spec = DatasetSpec.of(Integer.parseInt(options.getOrDefault("days", "7")),
        Integer.parseInt(options.getOrDefault("events", "20000")));
    List<String> workloadNames = List.of(options.getOrDefault("workloads", String.join(",", PeerWorkloads.NAMES))
        .split(","));
    int runs = Integer.parseInt(options.getOrDefault("runs", "2"));
    boolean all = Boolean.parseBoolean(options.getOrDefault("all", "false"));
    PeerWorkloads workloads = new PeerWorkloads(spec);
    URI uri = URI.create("s3://" + PeerComparison.BUCKET + "?endpoint=" + PeerComparison.requireEnv("PERMAFROST_S3_ENDPOINT")
        + "&access_key=" + PeerComparison.requireEnv("PERMAFROST_S3_ACCESS_KEY") + "&secret_key=" + PeerComparison.requireEnv("PERMAFROST_S3_SECRET_KEY"));
    Path cacheDir = Files.createTempDirectory("permafrost-peer-trace");
    try (LatencyModelBlobStore store = new LatencyModelBlobStore(BlobStores.open(uri), LatencyModel.of(30, 80));
        SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir)
            .size(Long.parseLong(options.getOrDefault("cacheBytes", Long.toString(8L << 30)))).build()) {
      EngineSnapshotRepository repository = EngineSnapshotRepository.open(store, spec.id());
      String snapshot = repository.snapshots().getLast();
      Map<String, String> files = fileNames(repository, snapshot);
      System.out.println("# " + repository.indices(snapshot).size() + " indices of snapshot " + snapshot + "; cache "
          + cache.sizeInBytes() + " bytes, regions of " + cache.stats().regionSize());
      for (String workload : workloadNames) {
        List<String> last = List.of();
        System.out.println("# " + workload);
        System.out.println("run        ms  waves  reqs      MB");
        for (int run = 1; run <= runs; run++) {
          cache.clear();
          Catalog catalog = Catalog.builder(cache).maxOpenReaders(1000).build();
          try {
            SortField newest = PeerComparison.mountAll(repository, snapshot, catalog);
            for (MountInfo index : catalog.list()) {
              try (Lease lease = catalog.acquire(index.name())) {
                lease.reader();
              }
            }
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            store.stats().reset();
            store.trace(lines::add);
            long start = System.nanoTime();
            workloads.permafrost(catalog, workload, newest);
            long millis = (System.nanoTime() - start) / 1_000_000;
            store.trace(null);
            RequestStats.Snapshot requests = store.stats().snapshot();
            System.out.printf(Locale.ROOT, "%-6d %6d %6d %5d %7.1f%n", run, millis, requests.roundTripWaves(),
                requests.requests() + requests.metadataRequests(), requests.bytesRead() / 1e6);
            last = new ArrayList<>(lines);
          } finally {
            catalog.close();
          }
        }
        RepeatTrace.printByWave(last, files, all);
      }
    } finally {
      PeerCluster.deleteRecursively(cacheDir);
    }
  }

  /** Each blob of the snapshot's shards by its index's last characters, shard and file ("07/0/_a.dvd"). */
  private static Map<String, String> fileNames(EngineSnapshotRepository repository, String snapshot)
      throws Exception {
    Map<String, String> files = new HashMap<>();
    for (String index : repository.indices(snapshot)) {
      int shards = repository.indexMetadata(snapshot, index).shards();
      for (int shard = 0; shard < shards; shard++) {
        String name = EngineSnapshotRepository.shard(snapshot, index, shard);
        for (FileEntry f : repository.parseManifest(name, repository.readManifestBytes(name)).files()) {
          if (f.blobName() != null) {
            files.put(f.blobName(), index.substring(Math.max(0, index.length() - 2)) + "/" + shard + "/" + f.name());
          }
        }
      }
    }
    return files;
  }
}
