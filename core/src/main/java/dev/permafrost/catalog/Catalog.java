/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.blob.Durations;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotSource;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots mounted by name, opened only while searches need them: what lets one JVM hold thousands of mounted
 * indices.
 *
 * <p>{@link #mount} reads the snapshot's manifest (one request) and keeps a summary of a few KB: where the manifest
 * is and the facts it records (document counts, size, point ranges, user data). {@link #acquire} leases a reader,
 * opening it on first use (once, however many searches ask at once; the manifest is read again through the shared
 * cache, so a recently used index reopens without a request). Idle readers close after a time-out, and the pool keeps
 * under a bound on open readers (and their estimated heap), closing the least recently used idle ones first; closing a
 * reader is not unmounting: its cached regions stay until evicted. {@link #unmount} waits for leases and frees the
 * index's cached regions at once. {@link #search} searches many indices in one call, skipping those whose recorded
 * ranges cannot match.
 *
 * <pre>{@code
 * try (Catalog catalog = Catalog.builder(cache).maxOpenReaders(200).build()) {
 *   catalog.mount("logs-2024.02.15", repo, "logs-2024.02.15");
 *   try (Lease lease = catalog.acquire("logs-2024.02.15")) {
 *     TopDocs top = lease.searcher().search(query, 10);
 *   }
 * }
 * }</pre>
 *
 * <p>Thread-safe. Closing the catalog closes its readers (not the cache, nor the repositories).
 */
public final class Catalog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Catalog.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");

  private final SharedRegionCache cache;
  private final ReaderPool pool;
  private final KeptOpenings keptOpenings;
  private final Duration acquireTimeout;
  private final Duration unmountTimeout;
  private final int mountThreads;
  /** Searches taking at least this long are logged; -1: none. */
  private final long slowSearchMillis;
  /** Null when none was given. */
  private final SearchObserver observer;
  private final MultiIndexSearch searcher;
  /** Null when no full-copy directory was given. */
  private final FullCopier copier;
  private final ConcurrentSkipListMap<String, MountedIndex> mounts = new ConcurrentSkipListMap<>();
  private volatile boolean closed;

  private Catalog(Builder b) throws IOException {
    this.copier = b.fullCopyDirectory == null ? null : new FullCopier(b.fullCopyDirectory, b.fullCopyMaxBytesPerSec,
        b.fullCopyRetryDelay.toMillis());
    this.cache = b.cache;
    this.pool = new ReaderPool(b.maxOpenReaders, b.maxReaderHeapBytes, b.idleTimeout.toNanos());
    this.keptOpenings = new KeptOpenings(b.maxKeptHeapBytes);
    this.acquireTimeout = b.acquireTimeout;
    this.unmountTimeout = b.unmountTimeout;
    this.searcher = new MultiIndexSearch(this::resolve, b.searchThreads, b.acquireTimeout.toNanos(), b.searchTimeout);
    this.mountThreads = b.mountThreads;
    this.slowSearchMillis = b.slowSearchThreshold == null ? -1 : b.slowSearchThreshold.toMillis();
    this.observer = b.searchObserver;
  }

  /** Starts building a catalog over {@code cache}, which every mounted index reads through. */
  public static Builder builder(SharedRegionCache cache) {
    return new Builder(Objects.requireNonNull(cache, "cache"));
  }

  /** Mounts snapshot {@code snapshot} of {@code repository} under {@code name}, read through the shared cache. */
  public MountInfo mount(String name, SnapshotSource repository, String snapshot) throws IOException {
    return mount(name, repository, snapshot, MountMode.SHARED_CACHE);
  }

  /**
   * Mounts snapshot {@code snapshot} of {@code repository} under {@code name}: reads its manifest (one request; its
   * bytes stay in the shared cache) and nothing else, unless the repository checks more at mount
   * ({@link SnapshotSource#checkAndKeep}: an engine's shard is opened once, through the shared cache, so that a format
   * this build cannot read fails here and not at a search, and what opening it reads is kept with the mount, so that
   * it opens later with no request even on an emptied cache).
   *
   * @throws IllegalArgumentException if the name is malformed or already mounted
   * @throws dev.permafrost.snapshot.SnapshotException if the manifest cannot be read (naming it), or
   *     {@link dev.permafrost.snapshot.SnapshotException.UnsupportedFormat} if the repository finds a format this
   *     build cannot read
   */
  public MountInfo mount(String name, SnapshotSource repository, String snapshot, MountMode mode) throws IOException {
    return mount(new MountSpec(name, snapshot, mode, null), repository, true);
  }

  /**
   * Mounts many snapshots of {@code repository} at once, at most {@code mountThreads} at a time: each as
   * {@link #mount} would, its manifest read through the shared cache when the spec names it (no request while the
   * cache holds it: re-mounting {@link #mountSpecs()} after a clean restart of cache and catalog costs none). A spec
   * that fails (a snapshot gone, a name taken, a store error) is reported and the others go on.
   */
  public MountAllResult mountAll(SnapshotSource repository, Collection<MountSpec> specs) throws IOException {
    ensureOpen();
    Objects.requireNonNull(repository, "repository");
    List<MountSpec> list = List.copyOf(specs);
    List<Future<MountInfo>> futures = new ArrayList<>(list.size());
    ExecutorService mounters = Executors.newFixedThreadPool(
        Math.max(1, Math.min(mountThreads, list.size())), r -> {
          Thread t = new Thread(r, "permafrost-mount");
          t.setDaemon(true);
          return t;
        });
    try {
      for (MountSpec spec : list) {
        futures.add(mounters.submit(() -> mount(spec, repository, false)));
      }
      List<MountInfo> mounted = new ArrayList<>();
      Map<String, String> failed = new LinkedHashMap<>();
      for (int i = 0; i < list.size(); i++) {
        try {
          mounted.add(futures.get(i).get());
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          failed.put(list.get(i).name(), String.valueOf(cause.getMessage()));
          log.warn("mounting '{}' (snapshot '{}') failed: {}", list.get(i).name(), list.get(i).snapshot(), cause.toString());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while mounting " + list.size() + " snapshots");
        }
      }
      log.info("mounted {} of {} snapshots of {}{}", mounted.size(), list.size(), repository.store().describe(),
          failed.isEmpty() ? "" : "; " + failed.size() + " failed");
      return new MountAllResult(List.copyOf(mounted), Collections.unmodifiableMap(failed));
    } finally {
      mounters.shutdownNow();
    }
  }

  /**
   * What is mounted now, as specs naming each index's manifest: keep them (see {@link MountSpec#toLine()}) and give
   * them to {@link #mountAll} to mount the same after a restart, with no request while the cache holds the manifests.
   */
  public List<MountSpec> mountSpecs() {
    List<MountSpec> specs = new ArrayList<>(mounts.size());
    for (MountedIndex index : mounts.values()) {
      specs.add(new MountSpec(index.name, index.manifest.snapshot(), index.mode, index.manifest));
    }
    return specs;
  }

  /** Mounts one spec; logs it at INFO if {@code loud} (mountAll logs once for all). */
  private MountInfo mount(MountSpec spec, SnapshotSource repository, boolean loud) throws IOException {
    String name = spec.name();
    String snapshot = spec.snapshot();
    MountMode mode = spec.mode();
    ensureOpen();
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("invalid index name '" + name + "': use 1 to 200 letters, digits, '.', '_' or"
          + " '-', starting with a letter or digit");
    }
    Objects.requireNonNull(repository, "repository");
    Objects.requireNonNull(mode, "mode");
    if (mode == MountMode.FULL_COPY && copier == null) {
      throw new IllegalStateException("a full-copy mount needs a directory for its copy: give Catalog.Builder.fullCopyDirectory");
    }
    if (mounts.containsKey(name)) {
      throw new IllegalArgumentException("an index named '" + name + "' is mounted already; unmount it first");
    }
    SnapshotManifest manifest = spec.manifest() == null ? CachedManifests.read(repository, snapshot, cache)
        : CachedManifests.read(repository, spec.manifest(), cache);
    SnapshotManifest checked = repository.checkAndKeep(snapshot, manifest,
        () -> BlobDirectory.open(repository, manifest, cache, name));
    // a source that keeps its opening may have recorded ranges its manifest lacks (an engine's shard): kept or not
    Map<String, PointRange> pointRanges = (checked != null ? checked : manifest).info().pointRanges();
    SnapshotManifest kept = keptOpenings.reserve(name, checked);
    MountedIndex index;
    boolean mounted = false;
    try {
      if (mode == MountMode.FULL_COPY) {
        // one full-copy mount at a time: preparing a copy's directory may empty it, so the name must be free throughout
        synchronized (copier) {
          if (mounts.containsKey(name)) {
            throw new IllegalArgumentException("an index named '" + name + "' is mounted already; unmount it first");
          }
          FullCopy copy = new FullCopy(name, repository, manifest, copier.directoryOf(name), copier);
          index = new MountedIndex(name, repository, manifest, kept, pointRanges, mode, cache, pool, copy);
          if (mounts.putIfAbsent(name, index) != null) { // a shared-cache mount took the name meanwhile
            copy.close();
            throw new IllegalArgumentException("an index named '" + name + "' is mounted already; unmount it first");
          }
          mounted = true;
          copy.start(manifest);
        }
      } else {
        index = new MountedIndex(name, repository, manifest, kept, pointRanges, mode, cache, pool, null);
        if (mounts.putIfAbsent(name, index) != null) {
          throw new IllegalArgumentException("an index named '" + name + "' is mounted already; unmount it first");
        }
        mounted = true;
      }
    } finally {
      if (!mounted && kept != null) {
        keptOpenings.release(kept.heapBytes());
      }
    }
    if (loud || log.isDebugEnabled()) {
      String line = "mounted snapshot '" + snapshot + "' of " + repository.store().describe() + " as '" + name + "' ("
          + mode + "): " + manifest.info().numDocs() + " documents, " + ByteSizes.format(manifest.info().totalBytes())
          + " in " + manifest.info().fileCount() + " files";
      if (loud) {
        log.info(line);
      } else {
        log.debug(line);
      }
    }
    return index.info();
  }

  /**
   * Unmounts {@code name}: no new lease is given, the current ones are waited for (at most the unmount time-out),
   * the reader is closed, and the index's cached regions are freed at once.
   *
   * @throws IllegalArgumentException if no index of that name is mounted
   * @throws IllegalStateException if searches still hold it at the time-out (it stays mounted)
   */
  public void unmount(String name) throws IOException {
    MountedIndex index = index(name);
    try {
      index.unmount(System.nanoTime() + unmountTimeout.toNanos());
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot unmount '" + name + "': " + e.getMessage() + " within the unmount time-out of "
          + Durations.format(unmountTimeout) + "; it stays mounted", e);
    }
    if (mounts.remove(name, index)) {
      keptOpenings.release(index.keptHeapBytes());
    }
    log.info("unmounted '{}' (snapshot '{}')", name, index.manifest.snapshot());
  }

  /**
   * Leases the reader of {@code name}, opening it if it is closed. Close the lease when the search is done.
   *
   * @throws IllegalArgumentException if no index of that name is mounted
   * @throws IllegalStateException if there was no room to open it within the acquire time-out (every open reader in use)
   */
  public Lease acquire(String name) throws IOException {
    ensureOpen();
    MountedIndex index = index(name);
    try {
      return index.acquire(System.nanoTime() + acquireTimeout.toNanos());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          e.getMessage() + " (acquire time-out " + Durations.format(acquireTimeout) + ")", e);
    }
  }

  /** Searches many mounted indices in one call for the best hits: see {@link SearchRequest}. */
  public SearchResponse search(SearchRequest request) throws IOException {
    ensureOpen();
    SearchObserver.Handle observed = observer == null ? null : observer.started(request);
    SearchResponse response;
    try {
      response = searcher.search(request);
    } catch (IOException | RuntimeException | Error e) {
      if (observed != null) {
        observed.ended(null, e);
      }
      throw e;
    }
    if (observed != null) {
      observed.ended(response.cost(), null);
    }
    logIfSlow(request, response.tookMillis(), response.cost());
    return response;
  }

  /** One INFO line for a search that took at least the slow-search threshold: the query, indices and cost. */
  private void logIfSlow(SearchRequest request, long tookMillis, SearchCost cost) {
    if (slowSearchMillis >= 0 && tookMillis >= slowSearchMillis) {
      log.info("slow search ({}, threshold {}): {} in {}: {}", Durations.format(Duration.ofMillis(tookMillis)),
          Durations.format(Duration.ofMillis(slowSearchMillis)), request.query, request.indices, cost.summary());
    }
  }

  /**
   * Searches many mounted indices in one call with a Lucene {@link CollectorManager} (counts, aggregations, anything
   * a collector computes): the request's query runs on every index that can match it, concurrently, each with
   * collectors from {@code manager}, and {@link CollectorManager#reduce} gets the collectors of all of them at once.
   * The request's indices, can-match skipping and partial results apply; its size, sort and fields do not. Calls to
   * {@link CollectorManager#newCollector} are serialized, but collectors run on several threads at once.
   */
  public <C extends Collector, T> CollectedResponse<T> search(SearchRequest request, CollectorManager<C, T> manager)
      throws IOException {
    ensureOpen();
    Objects.requireNonNull(manager, "manager");
    SearchObserver.Handle observed = observer == null ? null : observer.started(request);
    CollectedResponse<T> response;
    try {
      response = searcher.collect(request, manager);
    } catch (IOException | RuntimeException | Error e) {
      if (observed != null) {
        observed.ended(null, e);
      }
      throw e;
    }
    if (observed != null) {
      observed.ended(response.cost(), null);
    }
    logIfSlow(request, response.tookMillis(), response.cost());
    return response;
  }

  /** Every mounted index, by name. */
  public List<MountInfo> list() {
    List<MountInfo> all = new ArrayList<>(mounts.size());
    for (MountedIndex index : mounts.values()) {
      all.add(index.info());
    }
    return all;
  }

  /** The mounted indices whose names match any of {@code patterns} (names, or {@link Glob globs}), by name. */
  public List<MountInfo> list(String... patterns) {
    List<MountInfo> matching = new ArrayList<>();
    for (MountedIndex index : resolve(patterns)) {
      matching.add(index.info());
    }
    return matching;
  }

  /** The named index. @throws IllegalArgumentException if it is not mounted */
  public MountInfo info(String name) {
    return index(name).info();
  }

  /** The catalog's counts now. */
  public CatalogStats stats() {
    return new CatalogStats(mounts.size(), pool.openCount(), pool.openingCount(), pool.heapBytes(), pool.opens.sum(),
        pool.closes.sum(), pool.closedIdle.sum(), pool.closedForRoom.sum(), pool.waitNanos.sum(), searcher.searches.sum(),
        searcher.indicesSearched.sum(), searcher.indicesSkipped.sum(), searcher.indicesFailed.sum());
  }

  MountedIndex index(String name) {
    MountedIndex index = mounts.get(name);
    if (index == null) {
      throw new IllegalArgumentException("no index named '" + name + "' is mounted");
    }
    return index;
  }

  /** The mounted indices matching the patterns, by name, each once. */
  List<MountedIndex> resolve(String... patterns) {
    List<MountedIndex> result = new ArrayList<>();
    for (String name : Glob.select(List.of(patterns), mounts.keySet(),
        p -> new IllegalArgumentException("no index named '" + p + "' is mounted"))) {
      MountedIndex index = mounts.get(name);
      if (index != null) { // unless unmounted since
        result.add(index);
      }
    }
    return result;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the catalog is closed");
    }
  }

  /** Closes the readers no search holds and stops the catalog's threads; the cache stays open. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    searcher.close();
    pool.close();
    for (MountedIndex index : mounts.values()) {
      try {
        index.closeCopy();
      } catch (IOException e) {
        log.warn("closing the full copy of '{}' failed: {}", index.name, e.toString());
      }
    }
    if (copier != null) {
      try {
        copier.close();
      } catch (IOException e) {
        log.warn("releasing the full-copy directory failed: {}", e.toString());
      }
    }
  }

  /** Settings of a {@link Catalog}. */
  public static final class Builder {
    private final SharedRegionCache cache;
    private int maxOpenReaders = 100;
    private long maxReaderHeapBytes = Runtime.getRuntime().maxMemory() / 4;
    private long maxKeptHeapBytes = Runtime.getRuntime().maxMemory() / 8;
    private Duration idleTimeout = Duration.ofMinutes(5);
    private Duration acquireTimeout = Duration.ofSeconds(30);
    private Duration unmountTimeout = Duration.ofSeconds(30);
    private int searchThreads = 64;
    private Duration searchTimeout;
    private int mountThreads = 16;
    private Duration slowSearchThreshold;
    private SearchObserver searchObserver;
    private Path fullCopyDirectory;
    private long fullCopyMaxBytesPerSec = 64L << 20;
    private Duration fullCopyRetryDelay = Duration.ofSeconds(10);

    private Builder(SharedRegionCache cache) {
      this.cache = cache;
    }

    /** The most readers open at once (default 100); opening another closes the least recently used idle one. */
    public Builder maxOpenReaders(int readers) {
      if (readers < 1) {
        throw new IllegalArgumentException("maxOpenReaders must be at least 1, got " + readers);
      }
      this.maxOpenReaders = readers;
      return this;
    }

    /** The most (estimated) heap the open readers may hold: bytes ({@code "512mb"}); default a quarter of the heap. */
    public Builder maxReaderHeap(String bytes) {
      long value = ByteSizes.parse(bytes);
      if (value < 1) {
        throw new IllegalArgumentException("maxReaderHeap must be positive, got '" + bytes + "'");
      }
      this.maxReaderHeapBytes = value;
      return this;
    }

    /**
     * The most heap all mounts together keep to open their readers with no request, open or closed: bytes
     * ({@code "64mb"}); default an eighth of the heap. A source bounds what one mount keeps (an engine's shard keeps
     * what opening it reads, {@code MountInfo.keptHeapBytes()}, up to a megabyte); past this bound a mount keeps
     * nothing, and its reader opens as any whose bytes the cache does not hold (for an engine's shard, two waves of
     * requests).
     */
    public Builder maxKeptHeap(String bytes) {
      long value = ByteSizes.parse(bytes);
      if (value < 1) {
        throw new IllegalArgumentException("maxKeptHeap must be positive, got '" + bytes + "'");
      }
      this.maxKeptHeapBytes = value;
      return this;
    }

    /** How long a reader may stay open with no lease before it is closed (default 5 minutes). */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = positive("idleTimeout", timeout);
      return this;
    }

    /** How long {@link #acquire} waits for room to open a reader when every open one is in use (default 30 s). */
    public Builder acquireTimeout(Duration timeout) {
      this.acquireTimeout = positive("acquireTimeout", timeout);
      return this;
    }

    /** How long {@link #unmount} waits for searches to give an index back (default 30 s). */
    public Builder unmountTimeout(Duration timeout) {
      this.unmountTimeout = positive("unmountTimeout", timeout);
      return this;
    }

    /**
     * How many indices {@link #search} searches at once (default 64, the store policy's default
     * {@code max_concurrent_requests}): a cold search waits on the store, not on the CPU, so this is sized for what the
     * store allows, not for the cores. Each index is searched on a virtual thread; Lucene's CPU work runs on their
     * carriers (one per core), and a search waiting for the store holds none. The bound on open readers
     * ({@link #maxOpenReaders}) bounds the memory.
     */
    public Builder searchThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("searchThreads must be at least 1, got " + threads);
      }
      this.searchThreads = threads;
      return this;
    }

    /**
     * The timeout of a {@link #search} whose request sets none (default: none; every wait for the store still ends
     * within the cache's {@code maxReadWait}). See {@link SearchRequest.Builder#timeout}.
     */
    public Builder searchTimeout(Duration timeout) {
      this.searchTimeout = positive("searchTimeout", timeout);
      return this;
    }

    /**
     * Logs every search that takes at least {@code threshold} in one INFO line naming its query, its indices and what
     * it cost ({@link SearchCost#summary()}): requests, waves, bytes, waits, indices skipped (default: none logged).
     */
    public Builder slowSearchThreshold(Duration threshold) {
      Objects.requireNonNull(threshold, "slowSearchThreshold");
      if (threshold.isNegative()) {
        throw new IllegalArgumentException("slowSearchThreshold must not be negative, got " + threshold);
      }
      this.slowSearchThreshold = threshold;
      return this;
    }

    /** Told of every search, to trace or meter it (default none). */
    public Builder searchObserver(SearchObserver observer) {
      this.searchObserver = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** Snapshots {@link #mountAll} mounts at once (default 16: mounting waits on the store, one manifest each). */
    public Builder mountThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("mountThreads must be at least 1, got " + threads);
      }
      this.mountThreads = threads;
      return this;
    }

    /**
     * Where full-copy mounts ({@link MountMode#FULL_COPY}) keep their copies, one directory each (named after the
     * mount, and kept across restarts): locked, one catalog per directory. Without it, full-copy mounts are refused.
     */
    public Builder fullCopyDirectory(Path directory) {
      this.fullCopyDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /** The most bytes per second all full copies together fetch (default {@code 64mb}; {@code 0} is unlimited). */
    public Builder fullCopyMaxBytesPerSec(String bytes) {
      this.fullCopyMaxBytesPerSec = ByteSizes.parse(bytes);
      return this;
    }

    /** How long a full copy waits before trying a failed file again (for tests; the default is 10 seconds). */
    Builder fullCopyRetryDelay(Duration delay) {
      this.fullCopyRetryDelay = positive("fullCopyRetryDelay", delay);
      return this;
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, got " + d);
      }
      return d;
    }

    /** @throws IllegalStateException if the full-copy directory is in use by another catalog */
    public Catalog build() throws IOException {
      return new Catalog(this);
    }
  }
}
