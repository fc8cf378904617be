/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import dev.permafrost.sample.Dataset;
import dev.permafrost.jmh.workload.IndexSet;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;

/** Opens a data set's local indices (the copies the snapshots were taken from) through a stock Lucene directory. */
public final class LocalIndexes {
  /** The local directory implementations compared against. */
  public enum Kind {
    MMAP,
    NIOFS
  }

  private LocalIndexes() {}

  /** Opens every daily index of the data set with the given directory implementation. */
  public static IndexSet open(Dataset dataset, Kind kind) throws IOException {
    List<Directory> dirs = new ArrayList<>();
    for (String name : dataset.indexNames()) {
      dirs.add(switch (kind) {
        case MMAP -> new MMapDirectory(dataset.indexPath(name));
        case NIOFS -> new NIOFSDirectory(dataset.indexPath(name));
      });
    }
    return IndexSet.open(dirs);
  }
}
