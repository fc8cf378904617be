/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.ByteSizes;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.RandomAccessInput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bounded on-disk cache of blob byte ranges, shared by every {@link BlobDirectory} of a node.
 *
 * <p>The cache is one preallocated file of fixed size, cut into slots ("regions") of two sizes: full regions
 * ({@link Builder#regionSize}, 16 MiB by default) for the body of large files, and smaller tail regions for
 * small files and the ends of large ones, so that neither holds a whole full region. Within a region, only the
 * pages that reads touch are fetched, in one request per missing range sized by the access pattern. Concurrent
 * readers of a missing range share one fetch and continue as soon as their own bytes are written. Hits are read
 * from a memory mapping of the cache file (through Lucene's {@link MMapDirectory}) without locks or allocation.
 *
 * <p>Eviction resists scans: when no slot is free, a region is admitted only if it has been used more often
 * (by an ageing frequency sketch) than the least used of a few sampled regions (TinyLFU admission). A region that
 * is not admitted, or that finds nothing to evict, is read straight from the blob store and counted as a direct
 * read. Regions being filled are never evicted. The cache file never grows past its size.
 *
 * <p>The cache file is locked: two caches, in one process or two, cannot use the same directory at once. Its
 * contents do not survive a restart.
 */
public final class SharedRegionCache implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SharedRegionCache.class);
  static final String FILE_NAME = "permafrost-regions.cache";
  private static final int FILL_CHUNK = 64 << 10;
  private static final int PAGE_SIZE = 4096;

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private final MMapDirectory mmapDirectory;
  private final IndexInput mapped;
  private final RandomAccessInput mappedAccess;
  final RegionPool fullPool;
  final RegionPool tailPool;
  private final long sizeInBytes;
  final FrequencySketch sketch;
  private final ThreadPoolExecutor fillExecutor;
  private final ConcurrentHashMap<String, CacheFile> files = new ConcurrentHashMap<>();
  private final AtomicLong fileIds = new AtomicLong();
  private final AtomicLong fillSequence = new AtomicLong();
  private final AtomicInteger fillsInFlight = new AtomicInteger();
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, CacheStatsCounter>> counters = new ConcurrentHashMap<>();
  final CacheStatsCounter global = new CacheStatsCounter();
  private volatile boolean closed;

  private SharedRegionCache(Builder b) throws IOException {
    Path dir = Objects.requireNonNull(b.path, "path").toAbsolutePath();
    Files.createDirectories(dir);
    this.file = dir.resolve(FILE_NAME);
    int regionSize = checkPowerOfTwo("regionSize", b.regionSize);
    int tailRegionSize = checkPowerOfTwo("tailRegionSize", b.tailRegionSize == 0 ? Math.max(PAGE_SIZE, regionSize / 16) : b.tailRegionSize);
    if (tailRegionSize > regionSize) {
      throw new IllegalArgumentException("tailRegionSize (" + tailRegionSize + ") must not exceed regionSize (" + regionSize + ")");
    }
    if (b.tailRegionShare < 0 || b.tailRegionShare >= 1) {
      throw new IllegalArgumentException("tailRegionShare must be in [0, 1), got " + b.tailRegionShare);
    }
    long size = resolveSize(b, dir);
    int fullRegions = (int) Math.min(Integer.MAX_VALUE, (long) (size * (1 - b.tailRegionShare)) / regionSize);
    int tailRegions = (int) Math.min(Integer.MAX_VALUE, (size - (long) fullRegions * regionSize) / tailRegionSize);
    if (fullRegions == 0 && tailRegions == 0) {
      throw new IllegalArgumentException(
          "cache size " + size + " bytes holds no region of " + tailRegionSize + " bytes; give a larger size");
    }
    this.sizeInBytes = (long) fullRegions * regionSize + (long) tailRegions * tailRegionSize;
    int pageSize = Math.min(PAGE_SIZE, tailRegionSize);
    this.fullPool = new RegionPool("full", regionSize, fullRegions, 0, pageSize);
    RegionPool tails = new RegionPool("tail", tailRegionSize, tailRegions, fullPool.bytes(), pageSize);
    this.tailPool = tailRegions == 0 ? fullPool : tails;
    this.sketch = new FrequencySketch(fullRegions + tailRegions);

    this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    boolean success = false;
    try {
      try {
        this.lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        throw new IllegalStateException("the cache file " + file + " is already in use by another cache in this process", e);
      }
      if (lock == null) {
        throw new IllegalStateException("the cache file " + file + " is locked by another process; give each cache its own path");
      }
      size(channel, sizeInBytes, b.preallocate);
      this.mmapDirectory = new MMapDirectory(dir, NoLockFactory.INSTANCE);
      this.mapped = mmapDirectory.openInput(FILE_NAME, IOContext.DEFAULT);
      this.mappedAccess = (RandomAccessInput) mapped;
      success = true;
    } finally {
      if (!success) {
        channel.close();
      }
    }
    this.fillExecutor =
        new ThreadPoolExecutor(b.fetchThreads, b.fetchThreads, 30, TimeUnit.SECONDS, new PriorityBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "permafrost-cache-fill");
          t.setDaemon(true);
          return t;
        });
    fillExecutor.allowCoreThreadTimeOut(true);
    log.info("shared region cache at {}: {} full regions of {}, {} tail regions of {}", file, fullRegions,
        ByteSizes.format(regionSize), tailRegions, ByteSizes.format(tailRegionSize));
  }

  private static int checkPowerOfTwo(String setting, long value) {
    if (value < 512 || value > (1 << 30) || Long.bitCount(value) != 1) {
      throw new IllegalArgumentException(setting + " must be a power of two between 512 bytes and 1gb, got " + value);
    }
    return (int) value;
  }

  private static long resolveSize(Builder b, Path dir) throws IOException {
    if (b.size == null) {
      throw new IllegalArgumentException("the cache size is not set: give size(\"10gb\") or size(\"80%\")");
    }
    String spec = b.size.trim();
    if (!spec.endsWith("%")) {
      try {
        return ByteSizes.parse(spec);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("cache size must be a byte size (10gb) or a share of the disk (80%), got '" + spec + "'", e);
      }
    }
    double share = parseShare("size", spec);
    FileStore store = Files.getFileStore(dir);
    long total = store.getTotalSpace();
    long existing = Files.exists(dir.resolve(FILE_NAME)) ? Files.size(dir.resolve(FILE_NAME)) : 0;
    long headroom = b.headroom.trim().endsWith("%")
        ? (long) (total * parseShare("headroom", b.headroom.trim()))
        : ByteSizes.parse(b.headroom);
    long wanted = (long) (total * share);
    long available = store.getUsableSpace() + existing - headroom;
    long size = Math.min(wanted, available);
    if (size <= 0) {
      throw new IllegalArgumentException("cache size " + spec + " of the disk at " + dir + " leaves nothing once the headroom of "
          + b.headroom + " is kept free (usable: " + store.getUsableSpace() + " bytes)");
    }
    return size;
  }

  private static double parseShare(String setting, String spec) {
    try {
      double percent = Double.parseDouble(spec.substring(0, spec.length() - 1).trim());
      if (percent <= 0 || percent > 100) {
        throw new NumberFormatException();
      }
      return percent / 100;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("cache " + setting + " share must be between 0% and 100%, got '" + spec + "'");
    }
  }

  /** Sizes the cache file, writing zeros over new space so that the disk space is really taken now. */
  private void size(FileChannel ch, long bytes, boolean preallocate) throws IOException {
    long current = ch.size();
    if (current > bytes) {
      ch.truncate(bytes);
      return;
    }
    if (current == bytes) {
      return;
    }
    FileStore store = Files.getFileStore(file);
    if (store.getUsableSpace() < bytes - current) {
      throw new IOException("not enough disk space for a cache file of " + bytes + " bytes at " + file
          + " (usable: " + store.getUsableSpace() + " bytes); give a smaller size");
    }
    try {
      if (preallocate) {
        ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
        for (long pos = current; pos < bytes; ) {
          zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - pos));
          pos += ch.write(zeros, pos);
        }
        ch.force(false);
      } else {
        ch.write(ByteBuffer.wrap(new byte[1]), bytes - 1);
      }
    } catch (IOException e) {
      ch.truncate(current);
      throw new IOException("cannot allocate the cache file " + file + " of " + bytes + " bytes: " + e.getMessage(), e);
    }
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
    private long regionSize = 16 << 20;
    private long tailRegionSize;
    private double tailRegionShare = 0.125;
    private int fetchThreads = 8;
    private boolean preallocate = true;

    private Builder() {}

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

    /** The size of a full region: a power of two (default 16mb). */
    public Builder regionSize(long bytes) {
      this.regionSize = bytes;
      return this;
    }

    /** The size of a tail region, for small files and file ends: a power of two up to regionSize (default regionSize / 16). */
    public Builder tailRegionSize(long bytes) {
      this.tailRegionSize = bytes;
      return this;
    }

    /** The share of the cache given to tail regions (default 0.125; 0 puts tails in full regions). */
    public Builder tailRegionShare(double share) {
      this.tailRegionShare = share;
      return this;
    }

    /** Threads fetching ranges from blob stores into the cache (default 8). */
    public Builder fetchThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("fetchThreads must be at least 1, got " + threads);
      }
      this.fetchThreads = threads;
      return this;
    }

    /** Whether to write the whole cache file at start so its disk space is really taken (default true). */
    public Builder preallocate(boolean preallocate) {
      this.preallocate = preallocate;
      return this;
    }

    public SharedRegionCache build() throws IOException {
      return new SharedRegionCache(this);
    }
  }

  // ---- files ----

  /** The cached view of a blob, shared by every directory that uses it; release it with {@link #release}. */
  CacheFile acquire(String storeId, String blobName, long length) {
    ensureOpen();
    String key = storeId + '\n' + blobName;
    return files.compute(key, (k, existing) -> {
      CacheFile f = existing != null ? existing : new CacheFile(fileIds.incrementAndGet(), k, blobName, length, fullPool, tailPool);
      if (f.length != length) {
        throw new IllegalStateException("blob " + blobName + " of " + storeId + " is cached with length " + f.length
            + " but the manifest says " + length);
      }
      f.refs++;
      return f;
    });
  }

  void release(CacheFile file) {
    boolean last = files.compute(file.key, (k, f) -> {
      assert f == file;
      return --f.refs == 0 ? null : f;
    }) == null;
    if (last) {
      file.released = true;
      evictAll(file);
    }
  }

  // ---- regions ----

  /**
   * The slot holding region {@code index} of {@code file}, assigning one if the region is admitted, or null if it
   * is not (read it directly). The caller checks, under the slot's monitor, that it still belongs to the region.
   */
  Region region(CacheFile file, int index) {
    for (;;) {
      Region r = file.regions.get(index);
      if (r != null) {
        return r;
      }
      if (file.released || closed) {
        throw new AlreadyClosedException("the cache of " + file.blobName + " was released");
      }
      RegionPool pool = file.poolOf(index);
      Region slot = pool.pollFree();
      if (slot == null) {
        slot = pool.evictFor(sketch.frequency(FrequencySketch.key(file.id, index)), sketch, global);
        if (slot == null) {
          return null;
        }
      }
      synchronized (slot) {
        slot.assign(file, index);
      }
      if (file.regions.compareAndSet(index, null, slot)) {
        if (file.released) {
          freeIfIdle(slot, file);
        }
        return slot;
      }
      synchronized (slot) {
        slot.free();
      }
      pool.giveBack(slot);
    }
  }

  /** Counts a use of a region, for eviction. */
  void recordAccess(CacheFile file, int index) {
    sketch.increment(FrequencySketch.key(file.id, index));
  }

  private void freeIfIdle(Region slot, CacheFile expectedOwner) {
    boolean freed = false;
    int index;
    synchronized (slot) {
      index = slot.index;
      if (slot.owner == expectedOwner && slot.fills.isEmpty()) {
        slot.free();
        freed = true;
      }
    }
    if (freed) {
      expectedOwner.regions.compareAndSet(index, slot, null);
      slot.pool.giveBack(slot);
    }
  }

  private void evictAll(CacheFile file) {
    for (int i = 0; i < file.regionCount(); i++) {
      Region r = file.regions.get(i);
      if (r != null) {
        freeIfIdle(r, file);
      }
    }
  }

  /** Empties the cache of every region that is not being filled right now. */
  public void clear() {
    for (RegionPool pool : fullPool == tailPool ? new RegionPool[] {fullPool} : new RegionPool[] {fullPool, tailPool}) {
      for (Region r : pool.slots) {
        CacheFile owner = r.owner;
        if (owner != null) {
          freeIfIdle(r, owner);
        }
      }
    }
  }

  /** Empties the regions of the given files that are not being filled right now. */
  void clear(Iterable<CacheFile> cacheFiles) {
    for (CacheFile f : cacheFiles) {
      evictAll(f);
    }
  }

  // ---- fills ----

  /**
   * Starts fetching [fill.start, fill.end) of {@code region} (already registered in its fills) from the store.
   * Demand fills run before prefetches.
   */
  void startFill(Region region, Fill fill, long fileOffset, BlobStore store, String blobName, CacheStatsCounter counter, boolean demand) {
    fillsInFlight.incrementAndGet();
    try {
      fillExecutor.execute(new FillTask(region, fill, fileOffset, store, blobName, counter, demand));
    } catch (RuntimeException e) {
      fillsInFlight.decrementAndGet();
      synchronized (region) {
        fill.error = new IOException("the cache is closed; cannot fetch " + blobName, e);
        fill.done = true;
        region.fills.remove(fill);
        region.notifyAll();
      }
    }
  }

  private final class FillTask implements Runnable, Comparable<FillTask> {
    private final Region region;
    private final Fill fill;
    private final long fileOffset;
    private final BlobStore store;
    private final String blobName;
    private final CacheStatsCounter counter;
    private final int priority;
    private final long sequence = fillSequence.incrementAndGet();

    FillTask(Region region, Fill fill, long fileOffset, BlobStore store, String blobName, CacheStatsCounter counter, boolean demand) {
      this.region = region;
      this.fill = fill;
      this.fileOffset = fileOffset;
      this.store = store;
      this.blobName = blobName;
      this.counter = counter;
      this.priority = demand ? 0 : 1;
    }

    /** Fails a fill that will never run, waking its waiters. */
    void abort() {
      fillsInFlight.decrementAndGet();
      synchronized (region) {
        fill.error = new IOException("the shared region cache at " + file + " was closed before " + blobName + " was fetched");
        fill.done = true;
        region.fills.remove(fill);
        region.notifyAll();
      }
    }

    @Override
    public int compareTo(FillTask o) {
      return priority != o.priority ? Integer.compare(priority, o.priority) : Long.compare(sequence, o.sequence);
    }

    @Override
    public void run() {
      long length = fill.end - fill.start;
      long written = 0;
      try (InputStream in = store.read(blobName, fileOffset, length)) {
        counter.fetches.increment();
        global.fetches.increment();
        byte[] chunk = new byte[(int) Math.min(FILL_CHUNK, length)];
        while (written < length) {
          int n = in.readNBytes(chunk, 0, (int) Math.min(chunk.length, length - written));
          if (n <= 0) {
            throw new EOFException("the store returned " + written + " of the " + length + " bytes asked for");
          }
          writeFully(ByteBuffer.wrap(chunk, 0, n), region.cacheOffset + fill.start + written);
          written += n;
          counter.bytesFetched.add(n);
          synchronized (region) {
            fill.written = written;
            region.markFilled(fill.start, fill.start + written);
            if (written == length) { // done before any reader can see the last bytes
              fill.done = true;
              region.fills.remove(fill);
            }
            region.notifyAll();
          }
        }
      } catch (IOException | RuntimeException e) {
        String what = "fetching " + BlobStoreException.range(fileOffset, length) + " of blob " + blobName + " from "
            + store.describe() + " into the cache failed";
        synchronized (region) {
          fill.error = e instanceof BlobStoreException ? new IOException(what + ": " + e.getMessage(), e)
              : new IOException(what + ": " + e, e);
        }
      } finally {
        CacheFile owner;
        synchronized (region) {
          if (!fill.done) {
            fill.done = true;
            region.fills.remove(fill);
            region.notifyAll();
          }
          owner = region.owner;
        }
        fillsInFlight.decrementAndGet();
        if (owner != null && (owner.released || closed)) {
          freeIfIdle(region, owner);
        }
      }
    }
  }

  private void writeFully(ByteBuffer buffer, long position) throws IOException {
    try {
      while (buffer.hasRemaining()) {
        position += channel.write(buffer, position);
      }
    } catch (IOException e) {
      throw new IOException("writing to the cache file " + file + " failed: " + e.getMessage(), e);
    }
  }

  /** Reads [offset, offset+length) of a blob straight from the store into {@code dest}, bypassing the cache. */
  void readDirect(BlobStore store, String blobName, long offset, byte[] dest, int length, CacheStatsCounter counter) throws IOException {
    try (InputStream in = store.read(blobName, offset, length)) {
      int n = in.readNBytes(dest, 0, length);
      if (n != length) {
        throw new EOFException("the store returned " + n + " of the " + length + " bytes asked for");
      }
    } catch (IOException e) {
      throw new IOException("reading " + BlobStoreException.range(offset, length) + " of blob " + blobName + " from "
          + store.describe() + " failed: " + e.getMessage(), e);
    }
    counter.directReads.increment();
    counter.bytesReadDirect.add(length);
  }

  /** The memory mapping of the whole cache file, for positional reads from any thread. */
  RandomAccessInput mapped() {
    return mappedAccess;
  }

  /** A private clone of the mapping, for reads that move a file pointer. */
  IndexInput mappedClone() {
    return mapped.clone();
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
    int inUse = 0;
    for (Region r : fullPool.slots) {
      inUse += r.owner != null ? 1 : 0;
    }
    if (tailPool != fullPool) {
      for (Region r : tailPool.slots) {
        inUse += r.owner != null ? 1 : 0;
      }
    }
    int regions = fullPool.slots.length + (tailPool == fullPool ? 0 : tailPool.slots.length);
    return new CacheStats(sizeInBytes, fullPool.slotSize, tailPool.slotSize, regions, inUse, global.evictions.sum(),
        fillsInFlight.get(), total, perIndex, perExtension);
  }

  /** The path of the cache file. */
  public Path file() {
    return file;
  }

  /** Bytes of the cache file given to regions; the file is exactly this long. */
  public long sizeInBytes() {
    return sizeInBytes;
  }

  void ensureOpen() {
    if (closed) {
      throw new AlreadyClosedException("the shared region cache at " + file + " is closed");
    }
  }

  /** Stops fetching, unmaps and unlocks the cache file. Inputs still open fail with AlreadyClosedException. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    for (Runnable queued : fillExecutor.shutdownNow()) {
      ((FillTask) queued).abort();
    }
    try {
      fillExecutor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      mapped.close();
      mmapDirectory.close();
    } finally {
      try {
        lock.release();
      } finally {
        channel.close();
      }
    }
  }

  @Override
  public String toString() {
    return "SharedRegionCache(" + file + ", " + ByteSizes.format(sizeInBytes) + ")";
  }
}
