/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.jmh.cache.AccessTrace;
import dev.permafrost.jmh.cache.PolicySimulator;
import dev.permafrost.jmh.cache.ProductPolicy;
import dev.permafrost.jmh.cache.TraceRecordingDirectory;
import dev.permafrost.sample.Dataset;
import dev.permafrost.sample.DatasetSpec;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.workload.IndexSet;
import dev.permafrost.jmh.workload.Workloads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;

/**
 * Chooses the cache's eviction policy: records the region accesses of each workload (through
 * {@link TraceRecordingDirectory} over the local indices; Lucene reads the same bytes through any directory),
 * builds scenario traces from them, and replays each against the product ({@link ProductPolicy}: a real cache,
 * checked against its own counts) and every modelled policy at caches of 0.5% and 5% of the data, by hit ratio and
 * requests to the store. Traces carry no dependencies between reads, so round-trip waves are not simulated: the
 * benchmarks measure them ({@link SmallCacheBenchmark}).
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.permafrost.jmh.PolicyReport [scale] [regionSize|auto] [out.md]
 * </pre>
 *
 * Scenarios are built from each workload run's first touches of its regions (its re-reads, hits in any cache
 * that holds its working set, are left out): {@code dashboard x5} (a dashboard refreshed, the small-cache benchmark's case); {@code mixed}
 * (five rounds of needle, discover, discover, dashboard: a hot set of small queries and a recurring scan);
 * {@code scan pollution} (discover and needle three times, one dashboard, then discover and needle three times:
 * does one big aggregation flush the hot set?).
 */
public final class PolicyReport {
  private PolicyReport() {}

  public static void main(String[] args) throws IOException {
    Dataset dataset = Dataset.getOrCreate(DatasetSpec.parse(args.length > 0 ? args[0] : "smoke"));
    long regionSize = args.length > 1 && !args[1].equals("auto") ? Long.parseLong(args[1]) : BlobIndexes.regionSizeFor(dataset);
    Map<String, AccessTrace> traces = record(dataset, regionSize);
    // Each run's repeated reads of its own regions hit in any cache holding its working set: leave them out, so
    // that the ratios show what eviction decides, the reuse across runs.
    // Regions the warm set holds whole are served without any cache, by the product alone: left out for all.
    Map<String, AccessTrace> perRun = new LinkedHashMap<>();
    long warmSetHeld = 0;
    for (var e : traces.entrySet()) {
      AccessTrace first = e.getValue().firstTouches();
      AccessTrace kept = first.without(ProductPolicy.heldByWarmSet(dataset, first));
      warmSetHeld += first.size() - kept.size();
      perRun.put(e.getKey(), kept);
    }
    Map<String, AccessTrace> scenarios = scenarios(perRun, regionSize);

    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "Data set %s: %d bytes, regions of %d bytes (%d regions of data).%n%n",
        dataset.spec().id(), dataset.indexBytes(), regionSize, dataset.indexBytes() / regionSize));
    for (var e : traces.entrySet()) {
      out.append(String.format(Locale.ROOT, "- trace `%s`: %d accesses to %d distinct regions%n",
          e.getKey(), e.getValue().size(), e.getValue().distinctRegions()));
    }
    out.append("\nScenarios replay each run's first touch of each region (a run's re-reads of its own regions are left out).\n");
    out.append("Left out for every policy: " + warmSetHeld + " first touches of regions the warm set holds whole (the product\n");
    out.append("serves them with no cache and no request).\n");
    out.append("The product replays each access as a one-byte point read through a real cache of that size, every region in a\n");
    out.append("whole slot of the region size (see ProductPolicy); the others are models. Columns: `regions`, the cache's\n");
    out.append("capacity in regions; `accesses`, the scenario's length; `ceiling`, the best hit ratio any cache can reach\n");
    out.append("(every access but a region's first hits); each policy's cell: hit ratio / requests to the store (one per miss).\n");
    out.append("\n| scenario | cache | regions | accesses | ceiling |");
    List<String> names = new ArrayList<>();
    names.add(ProductPolicy.NAME);
    PolicySimulator.POLICIES.forEach(p -> names.add(p.name()));
    names.add(PolicySimulator.OPTIMAL);
    names.forEach(n -> out.append(' ').append(n).append(" |"));
    out.append('\n').append("|---".repeat(5 + names.size())).append("|\n");
    for (var e : scenarios.entrySet()) {
      for (double share : new double[] {0.005, 0.05}) {
        int capacity = (int) Math.max(1, share * dataset.indexBytes() / regionSize);
        List<PolicySimulator.Outcome> outcomes = PolicySimulator.runAll(e.getValue(), capacity,
            List.of(ProductPolicy.factory(dataset, e.getValue())));
        out.append(String.format(Locale.ROOT, "| %s | %.1f%% | %d | %d | %.3f |",
            e.getKey(), share * 100, capacity, outcomes.getFirst().accesses(), outcomes.getFirst().ceiling()));
        for (PolicySimulator.Outcome o : outcomes) {
          out.append(String.format(Locale.ROOT, " %.3f / %d |", o.hitRatio(), o.requests()));
        }
        out.append('\n');
      }
    }
    System.out.print(out);
    if (args.length > 2) {
      Files.writeString(Path.of(args[2]), out);
    }
  }

  /** One trace per workload, each recorded on freshly opened readers (reader opening is not recorded). */
  static Map<String, AccessTrace> record(Dataset dataset, long regionSize) throws IOException {
    Map<String, AccessTrace> traces = new LinkedHashMap<>();
    for (String workload : Workloads.NAMES) {
      List<Directory> dirs = new ArrayList<>();
      List<TraceRecordingDirectory> recorders = new ArrayList<>();
      for (String name : dataset.indexNames()) {
        TraceRecordingDirectory dir = new TraceRecordingDirectory(new MMapDirectory(dataset.indexPath(name)), name + "/");
        recorders.add(dir);
        dirs.add(dir);
      }
      AccessTrace trace = new AccessTrace(regionSize);
      try (IndexSet set = IndexSet.open(dirs, 1)) {
        recorders.forEach(r -> r.record(trace));
        Workloads.byName(workload, dataset.spec()).run(set);
      }
      traces.put(workload, trace);
    }
    return traces;
  }

  static Map<String, AccessTrace> scenarios(Map<String, AccessTrace> t, long regionSize) {
    Map<String, AccessTrace> s = new LinkedHashMap<>();
    s.put("dashboard x5", t.get("dashboard").repeat(5));
    AccessTrace mixed = new AccessTrace(regionSize);
    for (int i = 0; i < 5; i++) {
      mixed.addAll(t.get("needle"));
      mixed.addAll(t.get("discover"));
      mixed.addAll(t.get("discover"));
      mixed.addAll(t.get("dashboard"));
    }
    s.put("mixed", mixed);
    AccessTrace pollution = new AccessTrace(regionSize);
    for (int i = 0; i < 3; i++) {
      pollution.addAll(t.get("discover"));
      pollution.addAll(t.get("needle"));
    }
    pollution.addAll(t.get("dashboard"));
    for (int i = 0; i < 3; i++) {
      pollution.addAll(t.get("discover"));
      pollution.addAll(t.get("needle"));
    }
    s.put("scan pollution", pollution);
    return s;
  }
}
