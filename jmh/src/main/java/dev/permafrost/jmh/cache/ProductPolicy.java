/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongPredicate;
import org.apache.lucene.store.FileTypeHint;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * The shipped policy, run through the product (as Caffeine's simulator runs Caffeine itself): each access of a trace
 * is a one-byte read of that region of that file through a real {@link BlobDirectory} over a real
 * {@link SharedRegionCache} of the simulated capacity, mounted on the data set's own repository. Whatever the cache
 * decides (sampled eviction, admission, the frequency sketch, the cost weights) is what is measured.
 *
 * <p>Like for like with the models: every region takes a whole slot of the region size (no smaller tail regions or
 * smaller last slots, which would let the product hold more regions than the models' capacity), and each access
 * is a point read (index structure hints), whose fill never carries on into the next region (which would bring a
 * region the trace has not asked for yet, a prefetch the models cannot make). So no row can beat Belady's optimum
 * or the compulsory-miss ceiling.
 *
 * <p>It checks itself on every access: the read must consult the cache exactly once (one hit, miss or direct read
 * in the directory's counts), or not at all where the warm set holds the bytes; and at the end, the hits it
 * reported must equal the cache's. A drift means the replay no longer measures the product, and fails loudly with
 * {@link IllegalStateException}.
 *
 * <p>Every access is a read a reader waits for: traces do not say which reads a query prefetched, so the cost
 * weighting shows only between regions fetched one way or the other inside the product, not here.
 */
public final class ProductPolicy implements EvictionPolicy, Closeable {
  /** The name under which the product is reported. */
  public static final String NAME = "Permafrost (product)";

  private final AccessTrace trace;
  private final Path cacheDir;
  private final SharedRegionCache cache;
  private final Map<String, BlobDirectory> directories = new HashMap<>();
  private final long regionSize;
  private long cacheHits;
  private long warmSetHits;
  private final long cacheHitsAtStart;
  private long requests;

  private ProductPolicy(Dataset dataset, AccessTrace trace, int capacity) throws IOException {
    this.trace = trace;
    this.regionSize = trace.regionSize();
    this.cacheDir = Files.createTempDirectory("permafrost-product-policy");
    this.cache = fixedSlots(cacheDir, capacity * regionSize, regionSize);
    SnapshotRepository repository = SnapshotRepository.open(dataset.openStore());
    for (String name : dataset.indexNames()) {
      directories.put(name, BlobDirectory.open(repository, name, cache));
    }
    cacheHitsAtStart = cache.stats().total().hits();
  }

  /** The point reads of a replay: index structure, whose fills stop at their region's end. */
  private static final IOContext POINT_READ = IOContext.DEFAULT.withHints(FileTypeHint.INDEX);

  /** A cache of {@code bytes} in which every region, a file's tail and last one included, takes a whole slot. */
  private static SharedRegionCache fixedSlots(Path dir, long bytes, long regionSize) throws IOException {
    return SharedRegionCache.builder().path(dir).size(Math.max(bytes, 2 * regionSize)).regionSize(regionSize)
        .fullRegionsOnly(true).preallocate(false).build();
  }

  /**
   * Which accesses of {@code trace} (files named {@code "<index>/<file>"}) read a region whose every byte the
   * warm set holds (a file the manifest keeps whole, or warm ranges covering it): the product serves them without its
   * cache, every time, so a like-for-like replay leaves them out for every policy (kept in, the product would count
   * hits that the compulsory-miss ceiling says no cache can have).
   */
  public static LongPredicate heldByWarmSet(Dataset dataset, AccessTrace trace) throws IOException {
    SnapshotRepository repository = SnapshotRepository.open(dataset.openStore());
    Map<String, SnapshotManifest> manifests = new HashMap<>();
    for (String name : dataset.indexNames()) {
      manifests.put(name, repository.readManifest(name));
    }
    long regionSize = trace.regionSize();
    return key -> {
      String file = trace.fileOf(key);
      int slash = file.indexOf('/');
      FileEntry entry = manifests.get(file.substring(0, slash)).file(file.substring(slash + 1));
      long region = key & ((1L << 40) - 1);
      return firstOutsideWarmSet(entry, region * regionSize, Math.min(entry.length(), (region + 1) * regionSize)) < 0;
    };
  }

  /** Makes the product policy for traces of {@code dataset}'s indices (files named {@code "<index>/<file>"}). */
  public static Factory factory(Dataset dataset, AccessTrace trace) {
    return Factory.of(NAME, capacity -> {
      try {
        return new ProductPolicy(dataset, trace, capacity);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean access(long key) {
    String file = trace.fileOf(key);
    int slash = file.indexOf('/');
    BlobDirectory dir = directories.get(file.substring(0, slash));
    String name = file.substring(slash + 1);
    long region = key & ((1L << 40) - 1);
    try {
      FileEntry entry = dir.manifest().file(name);
      long position = firstOutsideWarmSet(entry, region * regionSize, Math.min(entry.length(), (region + 1) * regionSize));
      if (position < 0) {
        warmSetHits++; // the warm set holds every byte of it: served with no request
        return true;
      }
      CacheStats.Counts before = dir.stats();
      try (IndexInput in = dir.openInput(name, POINT_READ)) { // a fresh input: no window to reuse
        in.seek(position);
        in.readByte();
      }
      CacheStats.Counts after = dir.stats();
      long hit = after.hits() - before.hits();
      long missed = after.misses() - before.misses() + after.directReads() - before.directReads();
      if (hit + missed != 1) {
        throw new IllegalStateException("drift: reading byte " + position + " of " + file + " consulted the cache "
            + (hit + missed) + " times (" + hit + " hits, " + missed + " misses), not once");
      }
      cacheHits += hit;
      requests += missed;
      return hit == 1;
    } catch (IOException e) {
      throw new UncheckedIOException("reading region " + region + " of " + file, e);
    }
  }

  /** The first position of [from, to) that is not in the warm set (a file kept whole or a warm range), or -1. */
  private static long firstOutsideWarmSet(FileEntry entry, long from, long to) {
    if (entry.isKeptWhole()) {
      return -1;
    }
    long p = from;
    boolean moved = true;
    while (moved && p < to) {
      moved = false;
      for (FileEntry.WarmRange hot : entry.warmRanges()) {
        if (p >= hot.offset() && p < hot.offset() + hot.bytes().length) {
          p = hot.offset() + hot.bytes().length;
          moved = true;
        }
      }
    }
    return p < to ? p : -1;
  }

  /** Misses and direct reads: what went to the store (a format-2 snapshot's blob also loads its chunk table, not counted). */
  public long requests() {
    return requests;
  }

  /** Accesses served by the warm set, which never reach the cache. */
  public long warmSetHits() {
    return warmSetHits;
  }

  @Override
  public void close() throws IOException {
    long productHits = cache.stats().total().hits() - cacheHitsAtStart;
    try {
      for (BlobDirectory d : directories.values()) {
        d.close();
      }
      cache.close();
    } finally {
      deleteTree(cacheDir);
    }
    if (productHits != cacheHits) {
      throw new IllegalStateException("drift: the replay counted " + cacheHits + " cache hits, the cache " + productHits);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
