/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.ManifestCache;
import dev.permafrost.snapshot.ManifestRef;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotSource;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bounded on-disk cache of blob byte ranges, shared by every {@link BlobDirectory} of a node.
 *
 * <p>The cache is one file of fixed size. A blob is cut into full regions ({@link Builder#regionSize}, by default
 * 1/16,384 of the cache, between 32 KiB and 16 MiB) for the body of a large file, and tail regions
 * ({@link Builder#tailRegionSize}) for the rest; each region takes a slot of the cache file as large as the smallest
 * power of two that holds it, cut from the whole file when it is needed (slots are halved and merged back, a buddy allocator), so that thousands of small files and a few large
 * ones share the cache by need, with no share set aside for either. Within a region, only the chunks that reads
 * touch are fetched, in one request per missing range sized by the access pattern, and every chunk is verified against the checksum
 * the snapshot recorded before any reader can see it. Concurrent readers of a missing range share one fetch and
 * continue as soon as their own bytes are written. Hits are read from a memory mapping of the cache file (through
 * Lucene's {@link MMapDirectory}) without locks or allocation.
 *
 * <p>Eviction resists scans and keeps what saves round trips: when no space is free, a region is admitted only if
 * it is worth more than the least valuable of a few sampled stretches of the file of its size (TinyLFU admission),
 * where a region's worth is how often it is used (an ageing frequency sketch), weighted up if a reader had to wait
 * for its fetch (a terms index, a terms block, a postings head: a dependent round trip of every cold query) rather
 * than receiving it in a prefetch (a doc-values column a collector named, fetched beside the rest in one round
 * trip). A region that is not admitted, or that finds nothing to evict, is read directly from the blob store
 * (verified the same way) and counted as a direct read. Regions being filled are never evicted. The cache file never
 * grows past its size; if it cannot be written (a full disk), reads are served directly from the store. A cache too
 * small for the data read again and again says so, once, in the log.
 *
 * <p>The cache survives a restart: {@link #close()} writes down which slots hold which ranges of which blobs, with
 * the checksum of each filled chunk, and the next cache built on the same directory with the same sizes takes them
 * back, each chunk verified against its checksum the first time it is read, so that a file changed while the cache
 * was closed is never served. A cache not closed cleanly (a crash) starts cold.
 *
 * <p>One cache per directory: a second cache on the same directory, in this process or another, fails at build
 * time.
 *
 * <p>How it is built, layer by layer, is in the package description.
 */
public final class SharedRegionCache implements AutoCloseable, ManifestCache {
  private static final Logger log = LoggerFactory.getLogger(SharedRegionCache.class);
  static final String FILE_NAME = CacheFile.FILE_NAME;
  /** The default of {@link Builder#maxReadWait}: every wait for the store ends within it. */
  public static final Duration DEFAULT_MAX_READ_WAIT = Duration.ofSeconds(30);

  private final CacheFile cacheFile;
  /** What every slot shares: the cache file, the filler, the wait bound and whether the cache is open. */
  private final CacheSpace cacheSpace;
  final SlotPool pool;
  private final BlobTable blobs;
  final int tailRegionSize;
  private final CacheRecord.Layout layout;
  private final Filler filler;
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, CacheStatsCounter>> counters = new ConcurrentHashMap<>();
  final CacheStatsCounter global = new CacheStatsCounter();
  /** The heap that direct reads of scans may still take: see {@link Builder#directReadHeapBytes}. */
  final DirectReadBudget directReadBudget;

  private SharedRegionCache(Builder b) throws IOException {
    if (b.path == null) {
      throw new IllegalArgumentException("the cache path is not set: give path(Path) a directory for the cache file");
    }
    Path dir = b.path.toAbsolutePath();
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("the cache path " + dir + " exists and is not a directory; give a directory");
    }
    Files.createDirectories(dir);
    CacheSizing.Sizes s = CacheSizing.resolve(
        new CacheSizing.Settings(b.size, b.headroom, b.regionSize, b.tailRegionSize, b.fullRegionsOnly), disk(dir),
        Runtime.getRuntime().maxMemory());
    this.tailRegionSize = s.tailRegionSize();
    this.layout = new CacheRecord.Layout(s.sizeInBytes(), s.regionSize(), s.tailRegionSize(), s.minSlotSize(),
        s.pageSize());
    boolean fileExisted = Files.exists(dir.resolve(FILE_NAME));
    this.cacheFile = CacheFile.open(dir, s.sizeInBytes(), b.preallocate);
    this.filler = new Filler(cacheFile, b.fetchThreads, b.prefetchThreads, global);
    this.cacheSpace = new CacheSpace(cacheFile, filler, b.maxReadWait.toNanos());
    this.pool = new SlotPool(s.sizeInBytes(), s.regionSize(), s.minSlotSize(), s.pageSize(), dir.toString(),
        b.evictionPolicy != null ? b.evictionPolicy : new CostAwareTinyLfu(s.sketchRegions()), cacheSpace);
    assert pool.bytes == s.sizeInBytes();
    this.blobs = new BlobTable(pool, cacheSpace, s.tailRegionSize());
    this.directReadBudget = new DirectReadBudget(b.directReadHeapBytes);
    String restored;
    try {
      CacheRecord.Loaded record = CacheRecord.load(dir, layout);
      restored = record.coldReason() != null ? "starting cold: " + record.coldReason()
          : fileExisted ? blobs.restore(record)
          : "starting cold: the cache file was gone, though the last close left a record";
    } catch (IOException | RuntimeException e) {
      IOUtils.closeWhileHandlingException(cacheFile);
      filler.close(0);
      throw e;
    }
    log.info("shared region cache at {}: {} in slots of {} (full regions) down to {}, tail regions of {}; {}",
        cacheFile.path(), ByteSizes.format(s.sizeInBytes()), ByteSizes.format(s.regionSize()),
        ByteSizes.format(s.minSlotSize()), ByteSizes.format(s.tailRegionSize()), restored);
  }

  /** The disk {@code dir} is on, and the length of a cache file already in it, for {@link CacheSizing}. */
  private static CacheSizing.Disk disk(Path dir) throws IOException {
    FileStore store = Files.getFileStore(dir);
    Path existing = dir.resolve(FILE_NAME);
    return new CacheSizing.Disk(dir, store.getTotalSpace(), store.getUsableSpace(),
        Files.exists(existing) ? Files.size(existing) : 0);
  }

  /** Starts building a cache. */
  public static Builder builder() {
    return new Builder();
  }

  /** Settings of a {@link SharedRegionCache}. */
  public static final class Builder {
    private Path path;
    private String size;
    private String headroom = "5%";
    private long regionSize;
    private long tailRegionSize;
    private boolean fullRegionsOnly;
    private int fetchThreads = 32;
    private int prefetchThreads = 32;
    private Duration maxReadWait = DEFAULT_MAX_READ_WAIT;
    private long directReadHeapBytes = defaultDirectReadHeapBytes();
    private boolean preallocate;
    /** For tests of what the cache admits: the policy instead of {@link CostAwareTinyLfu}. */
    private EvictionPolicy evictionPolicy;

    private Builder() {}

    /** Decides admission and eviction with {@code policy} instead of the cache's own; for tests. */
    Builder evictionPolicy(EvictionPolicy policy) {
      this.evictionPolicy = policy;
      return this;
    }

    /** The directory holding the cache file (created if missing). Required. */
    public Builder path(Path path) {
      this.path = path;
      return this;
    }

    /** The cache size: bytes ({@code "10gb"}, {@code "512mb"}) or a share of the disk ({@code "80%"}). Required. */
    public Builder size(String size) {
      this.size = size;
      return this;
    }

    /** The cache size in bytes. */
    public Builder size(long bytes) {
      this.size = Long.toString(bytes);
      return this;
    }

    /** With a size given as a share of the disk, the space left free on it: bytes or a share (default 5%). */
    public Builder headroom(String headroom) {
      this.headroom = headroom;
      return this;
    }

    /**
     * The size of a full region: a power of two (default: the cache's size / 16,384, as a power of two between 32kb
     * and 16mb; 0 restores it). The region is the cache's unit of space (a sparse read takes a slot of its region),
     * and the largest slot.
     */
    public Builder regionSize(long bytes) {
      this.regionSize = bytes;
      return this;
    }

    /**
     * The size of a tail region: what is left of a file after its last full region is cut into regions of this size
     * (the last one takes the smallest slot that holds it). A power of two up to regionSize (default regionSize /
     * 16, but at least the default chunk size of 32 KiB, and at most regionSize). A fill never crosses a region, so
     * this bounds the fills of file tails.
     */
    public Builder tailRegionSize(long bytes) {
      this.tailRegionSize = bytes;
      return this;
    }

    /**
     * Whether every region, a file's tail and all of a small file included, takes a slot of a whole full region
     * (default false: tails take tail regions, the last one the smallest slot that holds it). Small files then waste
     * most of their slots; this is for comparing the cache with models of slots of one size (the jmh replays).
     */
    public Builder fullRegionsOnly(boolean fullRegionsOnly) {
      this.fullRegionsOnly = fullRegionsOnly;
      return this;
    }

    /**
     * The most fetches that readers wait for running at once (default 32), each on a thread of its own; more wait
     * in a queue. The store policy's {@code max_concurrent_requests} bounds the requests they send.
     */
    public Builder fetchThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("fetchThreads must be at least 1, got " + threads);
      }
      this.fetchThreads = threads;
      return this;
    }

    /**
     * The most prefetches ({@code IndexInput.prefetch}, that no reader waits for yet) running at once (default 32),
     * on threads of their own: a fetch that a reader waits for never queues behind a prefetch.
     */
    public Builder prefetchThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("prefetchThreads must be at least 1, got " + threads);
      }
      this.prefetchThreads = threads;
      return this;
    }

    /**
     * The longest a read waits for bytes from the store (a fetch into the cache, queueing included, or a read
     * directly from the store), counted from when that reader began to wait (default 30s). Past it the read fails
     * with a {@link dev.permafrost.blob.BlobStoreTimeoutException} naming the snapshot, file, blob and range, and
     * the fetch is called off if no other reader waits for it. A {@link ReadDeadline} set by the reading thread
     * (the {@code Catalog} sets one per search with a timeout) ends the wait sooner.
     */
    public Builder maxReadWait(Duration wait) {
      if (wait == null || wait.isNegative() || wait.isZero()) {
        throw new IllegalArgumentException("maxReadWait must be positive, got " + wait);
      }
      this.maxReadWait = wait;
      return this;
    }

    /**
     * The most heap that columns read directly from the store may hold at once (default an eighth of the maximum
     * heap, at most 256mb; 0 turns such reads off). When a collector names the doc-values columns it will scan
     * ({@link ColumnPrefetch}) and the cache does not admit their regions (a cache smaller than what is scanned:
     * the regions that readers wait for are worth more; and what one call names past half of the cache, which stays
     * for those), each run of refused regions is read in one request, beside
     * the others, into heap bytes that the query's readers of that column share, rather than region by region as
     * the scan reaches each. The bytes count against this bound until the work that read them is done
     * ({@link ReadCost#settle}: each index's part of a catalog search) or, outside such work, until the readers are
     * dropped. Past this bound, columns are read as any other refused region.
     */
    public Builder directReadHeapBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("directReadHeapBytes must not be negative, got " + bytes);
      }
      this.directReadHeapBytes = bytes;
      return this;
    }

    /**
     * Whether to write zeros over the whole cache file at start, so that its disk space is really taken (default
     * false: the file is created sparse, in well under a second whatever its size, after checking that the disk has
     * room for it; a disk that fills up later makes cache writes fail, and reads are then served from the store).
     * Writing takes about a second per few hundred megabytes.
     */
    public Builder preallocate(boolean preallocate) {
      this.preallocate = preallocate;
      return this;
    }

    public SharedRegionCache build() throws IOException {
      return new SharedRegionCache(this);
    }
  }

  // ---- blobs ----

  /**
   * The cached view of a blob, shared by every directory that uses it; release it with {@link #release}. Blobs
   * are content-addressed, so the same name in the same store always has the same bytes, but for a snapshot's manifest
   * (its name is kept when the snapshot is written again): see {@link BlobTable#acquire} for two versions of a name.
   */
  CachedBlob acquire(String storeId, FileEntry file, int chunkSize) {
    ensureOpen();
    return blobs.acquire(storeId, file, chunkSize);
  }

  /**
   * Ends a directory's use of {@code blob}. Its cached regions stay (closing is not unmounting): they leave by
   * eviction, {@link #clear}, or {@link #evict}.
   */
  void release(CachedBlob blob) {
    blobs.release(blob);
  }

  // ---- manifests ----

  /** The chunk size under which a blob read whole (a manifest) is cached: one chunk, no table. */
  private static final int WHOLE = Integer.MAX_VALUE;

  /**
   * Keeps a manifest's bytes, just read from {@code store}, as a blob of one chunk: see {@link CachedManifests}.
   */
  @Override
  public void keepManifest(BlobStore store, ManifestRef ref, byte[] bytes) {
    CachedBlob blob = acquire(store.describe(), manifestEntry(ref), WHOLE);
    try {
      blob.offerWhole(bytes);
    } finally {
      release(blob);
    }
  }

  /**
   * Reads a manifest's bytes from the cache when they are there (no request), else from {@code store} (one request),
   * verified against {@code ref} and counted in the stats under the snapshot's name: see {@link CachedManifests}.
   */
  @Override
  public byte[] manifestBytes(BlobStore store, ManifestRef ref) throws IOException {
    String storeId = store.describe();
    FileEntry entry = manifestEntry(ref);
    byte[] bytes = new byte[Math.toIntExact(ref.length())];
    CachedBlob blob = acquire(storeId, entry, WHOLE);
    try (BlobIndexInput in = new BlobIndexInput("manifest of snapshot '" + ref.snapshot() + "'",
        new IndexFile(entry, ref.snapshot(), store, storeId, blob, counter(ref.snapshot(), "manifest"), directReadBudget),
        BlobIndexInput.SEQUENTIAL_FILL, true)) {
      in.readBytes(bytes, 0, bytes.length);
    } finally {
      release(blob);
    }
    return bytes;
  }

  private static FileEntry manifestEntry(ManifestRef ref) {
    return FileEntry.ofWholeBlob(ref.blobName(), ref.blobName(), ref.length(), ref.footerChecksum(), ref.crc32c());
  }

  /**
   * Frees, at once, the cached regions of a snapshot's blobs (and its manifest) that no open directory reads: what
   * unmounting it does. Blobs another open directory reads stay.
   */
  public void evict(SnapshotSource repository, SnapshotManifest manifest) {
    String storeId = repository.store().describe();
    evict(storeId, manifest.files(), manifest.chunkSize());
    ManifestRef ref = manifest.ref();
    if (ref != null) {
      blobs.evictIfUnread(blobs.get(storeId, ref.blobName(), WHOLE));
    }
  }

  /** Forgets the stats counted under {@code indexName} (an unmounted index's). */
  public void dropIndexStats(String indexName) {
    counters.remove(indexName);
  }

  /** Frees, at once, the regions of the given blobs of a store that no directory is reading (an unmount). */
  void evict(String storeId, Iterable<FileEntry> files, int chunkSize) {
    blobs.evict(storeId, files, chunkSize);
  }

  /** Empties the cache of every region that is not being filled right now. */
  public void clear() {
    pool.clear();
  }

  /** Empties the regions of the given blobs that are not being filled right now. */
  void clear(Iterable<CachedBlob> cachedBlobs) {
    for (CachedBlob b : cachedBlobs) {
      b.evictAll();
    }
  }

  private static long defaultDirectReadHeapBytes() {
    return Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);
  }

  /** The fetch threads (for tests: what is in flight). */
  Filler filler() {
    return filler;
  }

  // ---- stats ----

  CacheStatsCounter counter(String index, String extension) {
    return counters.computeIfAbsent(index, k -> new ConcurrentHashMap<>()).computeIfAbsent(extension, k -> new CacheStatsCounter());
  }

  /** The cache's counters now. */
  public CacheStats stats() {
    Map<String, CacheStats.Counts> perIndex = new TreeMap<>();
    Map<String, CacheStats.Counts> perExtension = new TreeMap<>();
    CacheStats.Counts total = CacheStats.Counts.ZERO;
    for (var byIndex : counters.entrySet()) {
      CacheStats.Counts indexTotal = CacheStats.Counts.ZERO;
      for (var byExt : byIndex.getValue().entrySet()) {
        CacheStats.Counts c = byExt.getValue().snapshot();
        indexTotal = indexTotal.plus(c);
        perExtension.merge(byExt.getKey(), c, CacheStats.Counts::plus);
      }
      perIndex.put(byIndex.getKey(), indexTotal);
      total = total.plus(indexTotal);
    }
    SlotPool.SlotCount slots = pool.countSlots();
    return new CacheStats(cacheFile.size(), pool.maxSize, tailRegionSize, slots.slots(), slots.inUse(),
        pool.evictions.sum(), filler.inFlight(), filler.cacheWriteFailures.sum(), total, perIndex, perExtension);
  }

  /** The path of the cache file. */
  public Path file() {
    return cacheFile.path();
  }

  /** Bytes of the cache file given to regions; the file is exactly this long. */
  public long sizeInBytes() {
    return cacheFile.size();
  }

  void ensureOpen() {
    cacheSpace.ensureOpen();
  }

  /**
   * Stops fetching, syncs the cache file and writes down what it holds for the next cache on this directory (see
   * the class description), unmaps it and releases the directory's lock. Inputs still open fail with
   * AlreadyClosedException; readers waiting for a fetch wake within 200 ms and fail the same way. If the record
   * cannot be written, the next start is cold (and this is logged); closing goes on.
   */
  @Override
  public void close() throws IOException {
    if (cacheSpace.isClosed()) {
      return;
    }
    cacheSpace.markClosed();
    filler.close(10);
    String recorded;
    try {
      recorded = writeRecord();
    } catch (IOException | RuntimeException e) {
      recorded = "could not record its contents, the next start is cold: " + e;
      log.warn("shared region cache at {}: {}", cacheFile.path(), recorded);
    }
    cacheFile.close();
    log.info("shared region cache at {} closed; {}", cacheFile.path(), recorded);
  }

  // ---- the record of a clean close ----

  /** Syncs the cache file, then writes down every slot that holds filled units; says what it recorded. */
  private String writeRecord() throws IOException {
    BlobTable.Recorded recorded = blobs.record();
    cacheFile.force(); // the bytes are on disk before the record says they are there
    CacheRecord.write(cacheFile.path().getParent(), layout, recorded.blobs(), recorded.slots());
    return "recorded " + recorded.slots().size() + " regions in " + ByteSizes.format(recorded.slotBytes())
        + " of slots for the next start";
  }

  @Override
  public String toString() {
    return "SharedRegionCache(" + cacheFile.path() + ", " + ByteSizes.format(cacheFile.size()) + ")";
  }
}
