/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.jmh.workload.IndexSet;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Which snapshots of a data set a benchmark mounts: its own ({@code warmSet=none}), or snapshots of the same
 * indices whose warm set ({@link SnapshotOptions#withWarmSearches}) is the workload itself
 * ({@code warmSet=workload}): a dashboard's queries, known when the snapshot is taken; or the same kind of search with
 * other parameters ({@code warmSet=sibling}, {@link Workloads#sibling}): what a warm set chosen before the searches
 * buys them. Those are taken once, in the data set's repository beside the others (the same blobs, a manifest
 * each), and kept.
 */
public final class WarmSets {
  private WarmSets() {}

  /** The names of the snapshots to mount, oldest first; takes the warm ones if they are not there yet. */
  public static List<String> snapshots(Dataset dataset, Workload workload, String warmSet) throws IOException {
    switch (warmSet) {
      case "none" -> {
        return dataset.indexNames();
      }
      case "workload" -> {
        return warmedBy(dataset, workload, workload.name());
      }
      case "sibling" -> {
        return warmedBy(dataset, Workloads.sibling(workload.name(), dataset.spec()), "sibling-" + workload.name());
      }
      default -> throw new IllegalArgumentException("unknown warmSet '" + warmSet + "': none, workload or sibling");
    }
  }

  private static List<String> warmedBy(Dataset dataset, Workload workload, String suffix) throws IOException {
    List<String> names = new ArrayList<>();
    try (BlobStore store = dataset.openStore()) {
      SnapshotRepository repository = SnapshotRepository.open(store);
      Set<String> existing = Set.copyOf(repository.listSnapshots());
      SnapshotOptions options = Dataset.snapshotOptions().withWarmSearches(List.of(searcher -> {
        try (IndexSet one = IndexSet.of(searcher)) {
          workload.run(one);
        }
      }));
      long plainHeap = 0;
      long warmHeap = 0;
      for (String index : dataset.indexNames()) {
        String name = index + "-warm-" + suffix;
        if (!existing.contains(name)) {
          try (Directory dir = FSDirectory.open(dataset.indexPath(index))) {
            repository.createSnapshot(name, dir, options);
          }
        }
        plainHeap += repository.readManifest(index).heapBytes();
        warmHeap += repository.readManifest(name).heapBytes();
        names.add(name);
      }
      System.out.println("# warm set " + suffix + ": manifests hold " + warmHeap + " bytes on heap for "
          + names.size() + " indices, " + plainHeap + " without (" + (warmHeap - plainHeap) / names.size()
          + " more per open index)");
    }
    return names;
  }
}
