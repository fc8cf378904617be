/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Mounts a data set's snapshots as {@link BlobDirectory} instances over a shared cache, and sizes caches for it. */
public final class BlobIndexes {
  private BlobIndexes() {}

  /** Mounts every daily snapshot of the data set from {@code repository} in a catalog; opens no reader. */
  public static MountedIndices open(Dataset dataset, SnapshotRepository repository, SharedRegionCache cache)
      throws IOException {
    return MountedIndices.mount(repository, dataset.indexNames(), cache);
  }

  /**
   * A region size suited to the data set: a power of two near 1/2048 of its bytes, between 16 KiB and 16 MiB
   * (Elasticsearch's region size), so that a cache of 0.5% of the data still has several regions.
   */
  public static long regionSizeFor(Dataset dataset) {
    return regionSizeFor(dataset.indexBytes());
  }

  /** {@link #regionSizeFor(Dataset)} for data of {@code bytes} bytes. */
  public static long regionSizeFor(long bytes) {
    long target = Math.max(1, bytes / 2048);
    long pow2 = Long.highestOneBit(target);
    return Math.max(16 << 10, Math.min(16 << 20, pow2));
  }

  /**
   * A cache of {@code bytes} bytes in {@code dir} with {@code regionSize} regions (0: the cache's default for its
   * size), not preallocated.
   */
  public static SharedRegionCache cache(Path dir, long bytes, long regionSize) throws IOException {
    long size = Math.max(bytes, 2 * regionSize);
    return SharedRegionCache.builder().path(dir).size(size).regionSize(regionSize).preallocate(false).build();
  }

  /**
   * A region size parameter: {@code auto} ({@link #regionSizeFor}), {@code default} (0: the cache's default for its
   * size, see {@code SharedRegionCache.Builder#regionSize}) or a size ({@code 256kb}).
   */
  public static long regionSize(String param, Dataset dataset) {
    return regionSize(param, dataset.indexBytes());
  }

  /** {@link #regionSize(String, Dataset)} for data of {@code bytes} bytes. */
  public static long regionSize(String param, long bytes) {
    return switch (param) {
      case "auto" -> regionSizeFor(bytes);
      case "default" -> 0;
      default -> ByteSizes.parse(param);
    };
  }
}
