/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.snapshot.ChunkTable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.CRC32;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.util.BitUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches ranges of blobs into the cache file, and for readers straight from the store, on two lanes: demand
 * fetches (a reader waits) on up to {@code fetchThreads} threads, prefetches on up to {@code prefetchThreads}
 * others, so that a demand fetch never queues behind a prefetch; a prefetch that a reader comes to wait for moves to
 * the demand lane. A third pool loads chunk tables (so that a table travels in parallel with the fill that needs it,
 * and a fill never waits for a table queued behind it) and closes responses of fetches called off.
 *
 * <p>Every fetch is a {@link FetchTask}: when every reader waiting for it gives up (its deadline, an interrupt), it
 * is called off, so that it stops holding a thread and sending requests, and stuck fetches cannot pile up in front
 * of the ones that readers still wait for.
 *
 * <p>Every byte is verified before it becomes visible: chunk by chunk against the blob's {@link ChunkTable}, or
 * as a whole against its Lucene checksum. A piece that does not match is fetched once more; if it still does not
 * match, the fill fails with a {@link CorruptIndexException} naming the blob, the store, the range and both
 * checksums, and nothing of it is kept. Only verified pieces are written to the cache file and only written pieces
 * are marked filled, so a fill that fails part way leaves its other pages missing, never half-visible.
 */
final class Filler {
  private static final Logger log = LoggerFactory.getLogger(Filler.class);
  /** The piece size of fetches that cannot be verified (snapshots without checksums). */
  private static final int UNVERIFIED_PIECE = 64 << 10;

  private final RegionFile regionFile;
  private final CacheStatsCounter global;
  private final ThreadPoolExecutor demand;
  private final ThreadPoolExecutor prefetches;
  private final ExecutorService tables;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicBoolean writeFailureLogged = new AtomicBoolean();
  private final WarnOnce backgroundFailures = new WarnOnce(log);
  /** Fills that could not write to the cache file (their readers read directly instead). */
  final LongAdder cacheWriteFailures = new LongAdder();

  Filler(RegionFile regionFile, int fetchThreads, int prefetchThreads, CacheStatsCounter global) {
    this.regionFile = regionFile;
    this.global = global;
    this.demand = lane(fetchThreads, "permafrost-cache-fetch");
    this.prefetches = lane(prefetchThreads, "permafrost-cache-prefetch");
    this.tables = Executors.newCachedThreadPool(daemon("permafrost-cache-table"));
  }

  private static ThreadPoolExecutor lane(int threads, String name) {
    ThreadPoolExecutor lane = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        daemon(name));
    lane.allowCoreThreadTimeOut(true);
    return lane;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  int inFlight() {
    return inFlight.get();
  }

  /** Queues {@code fill} (already registered in {@code slot}). Called under the slot's monitor; never blocks. */
  void start(Slot slot, Fill fill, CachedBlob blob, BlobFile file) {
    inFlight.incrementAndGet();
    FillTask task = new FillTask(slot, fill, blob, file);
    fill.task = task;
    try {
      (fill.demand ? demand : prefetches).execute(task);
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      slot.finish(fill, new IOException("the shared region cache is closed; cannot fetch " + blob.blobName, e));
    }
  }

  /**
   * Queues {@code fill}, a prefetch that a reader now waits for, on the demand lane too: whichever lane gets to it
   * first runs it. Called under the slot's monitor.
   */
  void promote(Fill fill) {
    if (fill.task == null) {
      return; // bytes in hand being written (Slot.offer): nothing to fetch
    }
    try {
      demand.execute(fill.task);
    } catch (RuntimeException e) {
      // closed: the prefetch lane's copy is dropped by close() too, which ends the fill
    }
  }

  /** Calls {@code fill} off: nobody waits for it any more. Never blocks. */
  void cancel(Fill fill) {
    if (fill.task != null) { // null: bytes in hand being written (Slot.offer), done in a moment
      fill.task.cancel(tables);
    }
  }

  /**
   * Reads [from, to) of {@code blob} straight from the store (a region that is not cached), verified, on the demand
   * lane; waits for it until {@code limit}, and calls it off if the wait ends first.
   */
  byte[] fetchDirect(CachedBlob blob, BlobFile file, long from, long to, ReadDeadline limit) throws IOException {
    DirectTask task = new DirectTask(blob, file, from, to);
    inFlight.incrementAndGet();
    try {
      demand.execute(task);
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      throw new IOException("the shared region cache at " + regionFile.path() + " is closed; cannot read " + blob.blobName, e);
    }
    return awaitDirect(task, limit);
  }

  /**
   * Starts reading [from, to) of {@code blob} straight from the store on the prefetch lane, for a reader that will
   * ask for it later ({@link #awaitDirect}); null if the cache is closed.
   */
  DirectTask startDirect(CachedBlob blob, BlobFile file, long from, long to) {
    DirectTask task = new DirectTask(blob, file, from, to);
    inFlight.incrementAndGet();
    try {
      prefetches.execute(task);
      return task;
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      return null;
    }
  }

  /**
   * Waits until {@code limit} for a direct read's bytes; a read still queued on the prefetch lane is queued on the
   * demand lane too (whichever gets to it first runs it). Calls the read off if the wait ends first.
   */
  byte[] awaitDirect(DirectTask task, ReadDeadline limit) throws IOException {
    if (!task.result.isDone()) {
      try {
        demand.execute(task); // runs at once if it has not started; does nothing if it has
      } catch (RuntimeException e) {
        // closed: the wait below fails with the task's own error
      }
    }
    long start = System.nanoTime();
    try {
      return awaitDirect(task, limit, start);
    } finally {
      if (task.cost != null) {
        task.cost.waited(System.nanoTime() - start);
      }
    }
  }

  private byte[] awaitDirect(DirectTask task, ReadDeadline limit, long start) throws IOException {
    CachedBlob blob = task.blob;
    BlobFile file = task.file;
    long from = task.from;
    long to = task.to;
    try {
      return task.result.get(Math.max(0, limit.deadlineNanos - start), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("reading " + BlobStoreException.range(from, to - from) + " of blob " + blob.blobName
          + " straight from " + file.storeDescription() + " failed: " + cause, cause);
    } catch (TimeoutException e) {
      task.cancel(tables);
      throw new dev.permafrost.blob.BlobStoreTimeoutException(file.storeDescription(), blob.blobName,
          "timed out after " + Slot.seconds(System.nanoTime() - start) + " waiting for "
              + BlobStoreException.range(from, to - from) + " of " + file + " (blob " + blob.blobName + ") to be read"
              + " straight from the store: the wait is bounded by " + limit.what + "; the read was called off", null);
    } catch (InterruptedException e) {
      task.cancel(tables);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + BlobStoreException.range(from, to - from) + " of "
          + file + " (blob " + blob.blobName + ") to be read from the store");
    }
  }

  /** Loads {@code blob}'s chunk table into {@code into}, on a table thread; its request counts for {@code cost}. */
  void loadTable(CachedBlob blob, BlobFile file, CompletableFuture<ChunkTable> into, ReadCost cost) {
    try {
      tables.execute(() -> {
        try {
          into.complete(readTable(blob, file, cost));
        } catch (Throwable t) {
          into.completeExceptionally(t);
        }
      });
    } catch (RuntimeException e) {
      into.completeExceptionally(new IOException("the shared region cache is closed; cannot load the chunk table of "
          + blob.blobName, e));
    }
  }

  private ChunkTable readTable(CachedBlob blob, BlobFile file, ReadCost cost) throws IOException {
    String source = file.storeDescription() + " blob " + blob.tableBlob;
    for (int attempt = 1; ; attempt++) {
      byte[] bytes;
      try (InputStream in = counted(cost, () -> file.store.read(blob.tableBlob))) {
        bytes = in.readAllBytes();
        if (cost != null) {
          cost.fetched(bytes.length);
        }
      } catch (IOException e) {
        throw new IOException("cannot read the chunk table " + blob.tableBlob + " of blob " + blob.blobName + " ("
            + blob.fileName + ") from " + file.storeDescription() + ": " + e.getMessage(), e);
      }
      file.counter.chunkTableFetches.increment();
      try {
        return ChunkTable.parse(bytes, blob.fileName, blob.length, blob.checksum, blob.chunkSize, source);
      } catch (CorruptIndexException e) {
        file.counter.checksumMismatches.increment();
        if (attempt == 2) {
          throw e;
        }
        log.warn("chunk table {} is damaged ({}); fetching it again", source, e.getMessage());
      }
    }
  }

  /** What verified bytes go to. */
  interface PieceSink {
    /** {@code length} verified bytes of {@code bytes} from {@code offset} are the blob's bytes at {@code position}. */
    void accept(byte[] bytes, int offset, int length, long position) throws IOException;
  }

  /**
   * Fetches [from, to) of {@code blob} (aligned with {@link CachedBlob#fetchStart}/{@link CachedBlob#fetchEnd}),
   * handing each verified piece to {@code sink}, in order.
   */
  private void fetchVerified(FetchTask task, CachedBlob blob, BlobFile file, long from, long to, long deadlineNanos,
      boolean direct, PieceSink sink) throws IOException {
    assert from < to && to <= blob.length;
    Fetch fetch = new Fetch(blob, file, direct, task);
    if (blob.hasTable()) {
      fetchChunks(fetch, from, to, deadlineNanos, sink);
    } else if (from == 0 && to == blob.length) {
      fetchWhole(fetch, sink);
    } else {
      fetchUnverified(fetch, from, to, sink);
    }
  }

  /** One logical fetch: its requests and bytes are counted as fills or as direct reads, and to its task's cost. */
  private record Fetch(CachedBlob blob, BlobFile file, boolean direct, FetchTask task) {}

  private InputStream open(Fetch fetch, long from, long to) throws IOException {
    InputStream in = counted(fetch.task.cost, () -> fetch.file.store.read(fetch.blob.blobName, from, to - from));
    fetch.task.reading(in);
    if (fetch.direct) {
      fetch.file.counter.directReads.increment();
    } else {
      fetch.file.counter.fetches.increment();
      global.fetches.increment();
    }
    return in;
  }

  /** A request of {@code cost} (if any): counted when sent, its wave ended when its response is closed. */
  /** A request about to be sent. */
  private interface Send {
    InputStream send() throws IOException;
  }

  private static InputStream counted(ReadCost cost, Send open) throws IOException {
    if (cost == null) {
      return open.send();
    }
    ReadCost.Request request = cost.begin();
    InputStream in;
    try {
      in = open.send();
    } catch (IOException | RuntimeException e) {
      request.end();
      throw e;
    }
    return new dev.permafrost.blob.FilterBlobInputStream(in) {
      private boolean ended;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public void close() throws IOException {
        if (!ended) {
          ended = true;
          request.end();
        }
        super.close();
      }
    };
  }

  private void readFully(InputStream in, byte[] buffer, int length, Fetch fetch, long position) throws IOException {
    CachedBlob blob = fetch.blob;
    int n = in.readNBytes(buffer, 0, length);
    (fetch.direct ? fetch.file.counter.bytesReadDirect : fetch.file.counter.bytesFetched).add(n);
    if (fetch.task.cost != null && n > 0) {
      fetch.task.cost.fetched(n);
    }
    if (n != length) {
      throw new EOFException("the store returned " + n + " of the " + length + " bytes at " + position + " of blob "
          + blob.blobName + " (" + blob.length + " bytes)");
    }
  }

  private void fetchChunks(Fetch fetch, long from, long to, long deadlineNanos, PieceSink sink) throws IOException {
    CachedBlob blob = fetch.blob;
    BlobFile file = fetch.file;
    int chunkSize = blob.chunkSize;
    assert from % chunkSize == 0 && (to % chunkSize == 0 || to == blob.length) : "[" + from + ", " + to + ")";
    CompletableFuture<ChunkTable> tableFuture = blob.table(file, fetch.task.cost); // in flight with the data request below
    byte[] buffer = new byte[(int) Math.min(chunkSize, to - from)];
    long position = from;
    long refetched = -1;
    InputStream in = open(fetch, from, to);
    try {
      while (position < to) {
        int n = (int) Math.min(chunkSize, to - position);
        readFully(in, buffer, n, fetch, position);
        ChunkTable table = awaitTable(tableFuture, deadlineNanos, blob, file);
        int chunk = (int) (position / chunkSize);
        int expected = table.checksum(chunk);
        int actual = ChunkTable.crc32c(buffer, 0, n);
        if (actual != expected) {
          file.counter.checksumMismatches.increment();
          if (refetched == position) {
            throw mismatch(blob, file, position, n, "crc32c", Integer.toHexString(expected), Integer.toHexString(actual));
          }
          log.warn("chunk {} of blob {} ({}, {} in {}) does not match its checksum; fetching it again", chunk,
              blob.blobName, blob.fileName, BlobStoreException.range(position, n), file.storeDescription());
          refetched = position;
          in.close();
          in = open(fetch, position, to);
          continue;
        }
        sink.accept(buffer, 0, n, position);
        position += n;
      }
    } finally {
      in.close();
    }
  }

  private ChunkTable awaitTable(CompletableFuture<ChunkTable> table, long deadlineNanos, CachedBlob blob, BlobFile file)
      throws IOException {
    try {
      return deadlineNanos == Long.MAX_VALUE ? table.get() : table.get(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CorruptIndexException c) {
        throw new CorruptIndexException(c.getOriginalMessage(), c.getResourceDescription(), c);
      }
      throw new IOException(cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new dev.permafrost.blob.BlobStoreTimeoutException(file.storeDescription(), blob.tableBlob,
          "timed out waiting for the chunk table of blob " + blob.blobName + " (deadline from the store policy: "
              + file.deadlineExplained() + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the chunk table of " + blob.blobName);
    }
  }

  /**
   * Fetches a whole blob and checks it: against its CRC32C (a file of at most one chunk) and against its Lucene
   * checksum (the CRC32 of all but the footer's last 8 bytes); without a CRC32C (a snapshot of format 1), the
   * footer's last 8 bytes must hold that checksum too.
   */
  private void fetchWhole(Fetch fetch, PieceSink sink) throws IOException {
    CachedBlob blob = fetch.blob;
    BlobFile file = fetch.file;
    assert blob.length <= Integer.MAX_VALUE : blob;
    byte[] bytes = new byte[(int) blob.length];
    for (int attempt = 1; ; attempt++) {
      try (InputStream in = open(fetch, 0, blob.length)) {
        readFully(in, bytes, bytes.length, fetch, 0);
      }
      String mismatch = wholeMismatch(blob, bytes);
      if (mismatch == null) {
        sink.accept(bytes, 0, bytes.length, 0);
        return;
      }
      file.counter.checksumMismatches.increment();
      if (attempt == 2) {
        throw new CorruptIndexException("checksum mismatch in blob " + blob.blobName + " (file " + blob.fileName
            + ", " + blob.length + " bytes) from " + file.storeDescription() + ": " + mismatch + ", twice; nothing of"
            + " it was cached", blob.blobName);
      }
      log.warn("blob {} ({}) from {} does not match its checksum ({}); fetching it again", blob.blobName,
          blob.fileName, file.storeDescription(), mismatch);
    }
  }

  /** What is wrong with a whole blob's bytes, or null if they match every checksum the snapshot recorded. */
  private static String wholeMismatch(CachedBlob blob, byte[] bytes) {
    if (blob.chunkSize > 0) {
      int crc32c = ChunkTable.crc32c(bytes, 0, bytes.length);
      if (crc32c != blob.wholeCrc32c) {
        return "the snapshot recorded crc32c " + Integer.toHexString(blob.wholeCrc32c) + " but the store returned bytes"
            + " with " + Integer.toHexString(crc32c);
      }
    }
    if (bytes.length < Long.BYTES) {
      return null;
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    if (crc.getValue() != blob.checksum) {
      return "the snapshot recorded the Lucene checksum (crc32) " + Long.toHexString(blob.checksum) + " but the store"
          + " returned bytes with " + Long.toHexString(crc.getValue());
    }
    long footer = (long) BitUtil.VH_BE_LONG.get(bytes, bytes.length - Long.BYTES);
    if (blob.chunkSize == 0 && footer != blob.checksum) {
      return "the footer holds checksum " + Long.toHexString(footer) + ", not " + Long.toHexString(blob.checksum);
    }
    return null;
  }

  private void fetchUnverified(Fetch fetch, long from, long to, PieceSink sink) throws IOException {
    byte[] buffer = new byte[(int) Math.min(UNVERIFIED_PIECE, to - from)];
    try (InputStream in = open(fetch, from, to)) {
      for (long position = from; position < to; ) {
        int n = (int) Math.min(buffer.length, to - position);
        readFully(in, buffer, n, fetch, position);
        sink.accept(buffer, 0, n, position);
        position += n;
      }
    }
  }

  private CorruptIndexException mismatch(CachedBlob blob, BlobFile file, long position, int length, String algorithm,
      String expected, String actual) {
    return new CorruptIndexException("checksum mismatch in " + BlobStoreException.range(position, length) + " of blob "
        + blob.blobName + " (file " + blob.fileName + ") from " + file.storeDescription() + ": the snapshot recorded "
        + algorithm + " " + expected + " but the store returned bytes with " + actual + ", twice; nothing of it was"
        + " cached", blob.blobName);
  }

  /** Records a failed write to the cache file and logs the first one. */
  CacheWriteFailedException writeFailed(IOException e, CachedBlob blob) {
    cacheWriteFailures.increment();
    if (writeFailureLogged.compareAndSet(false, true)) {
      log.warn("writing to the cache file {} failed ({}); reads are served straight from the store until writes"
          + " succeed again (logged once)", regionFile.path(), e.toString());
    }
    return new CacheWriteFailedException("writing " + blob.blobName + " to the cache file " + regionFile.path()
        + " failed: " + e.getMessage(), e);
  }

  /** Stops fetching: queued fetches fail at once, running ones may finish within {@code waitSeconds}. */
  void close(int waitSeconds) {
    List<Runnable> queued = new ArrayList<>(demand.shutdownNow());
    queued.addAll(prefetches.shutdownNow());
    for (Runnable r : queued) {
      ((FetchTask) r).cancel(Runnable::run);
    }
    tables.shutdownNow();
    try {
      demand.awaitTermination(waitSeconds, TimeUnit.SECONDS);
      prefetches.awaitTermination(waitSeconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A read straight from the store into heap bytes: fetch, verify, hand over. */
  final class DirectTask extends FetchTask {
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    final CachedBlob blob;
    final BlobFile file;
    final long from;
    final long to;

    DirectTask(CachedBlob blob, BlobFile file, long from, long to) {
      this.blob = blob;
      this.file = file;
      this.from = from;
      this.to = to;
    }

    @Override
    void fetch() {
      try {
        byte[] bytes = new byte[Math.toIntExact(to - from)];
        fetchVerified(this, blob, file, from, to, file.deadlineAfter(System.nanoTime(), to - from), true,
            (b, offset, length, position) -> System.arraycopy(b, offset, bytes, (int) (position - from), length));
        result.complete(bytes);
      } catch (Throwable t) {
        result.completeExceptionally(t);
      } finally {
        inFlight.decrementAndGet();
      }
    }

    @Override
    void cancelledWhileQueued() {
      inFlight.decrementAndGet();
      result.completeExceptionally(new Fill.Cancelled("the read of " + blob.blobName + " was called off before it started"));
    }
  }

  /** One fill: fetch, verify, write, mark filled. */
  private final class FillTask extends FetchTask {
    private final Slot slot;
    private final Fill fill;
    private final CachedBlob blob;
    private final BlobFile file;

    FillTask(Slot slot, Fill fill, CachedBlob blob, BlobFile file) {
      this.slot = slot;
      this.fill = fill;
      this.blob = blob;
      this.file = file;
    }

    @Override
    void cancelledWhileQueued() {
      inFlight.decrementAndGet();
      slot.finish(fill, new Fill.Cancelled("the fetch of " + blob.blobName + " was called off before it started"));
    }

    @Override
    void fetch() {
      // A slot with a registered fill keeps its owner, so fileStart is stable while this runs.
      long regionStart = slot.fileStart;
      long start = regionStart + fill.start;
      long end = regionStart + fill.end;
      IOException error = null;
      try {
        fetchVerified(this, blob, file, blob.fetchStart(start), blob.fetchEnd(end), fill.deadlineNanos, false, (bytes, offset, length, position) -> {
          long from = Math.max(position, start);
          long to = Math.min(position + length, end);
          if (from >= to) {
            return; // verified bytes outside this region
          }
          int at = offset + (int) (from - position);
          beginWrite(); // no interrupt from here: it would close the cache file's channel
          try {
            regionFile.write(bytes, at, (int) (to - from), slot.cacheOffset + (from - regionStart));
          } catch (IOException e) {
            throw writeFailed(e, blob);
          }
          slot.progress(fill, from - regionStart, to - regionStart, slot.unitCrcs(bytes, at, from - regionStart, to - regionStart));
          endWrite();
        });
      } catch (CacheWriteFailedException | CorruptIndexException e) {
        error = e;
      } catch (IOException | RuntimeException e) {
        if (cancelRequested()) {
          error = e instanceof Fill.Cancelled c ? c : new Fill.Cancelled("the fetch of " + blob.blobName
              + " was called off: every reader waiting for it gave up (" + e + ")");
        } else {
          String what = "fetching " + BlobStoreException.range(start, end - start) + " of blob " + blob.blobName + " ("
              + blob.fileName + ") from " + file.storeDescription() + " into the cache failed";
          error = e instanceof BlobStoreException b ? new IOException(what + ": " + b.getMessage(), e)
              : new IOException(what + ": " + e, e);
        }
      } finally {
        inFlight.decrementAndGet();
        slot.finish(fill, error);
      }
      if (error != null && !(error instanceof Fill.Cancelled) && !fill.demand) {
        // nobody waits for a prefetch: its failure would go unseen (the read that needs the bytes fetches again)
        backgroundFailures.warn(file.storeDescription() + " " + error.getClass().getName(), "prefetching {} failed: {}",
            blob.blobName, error.getMessage());
      } else if (error == null && log.isDebugEnabled()) {
        log.debug("fetched {} of blob {} ({}) from {} into the cache's {}", BlobStoreException.range(start, end - start),
            blob.blobName, blob.fileName, file.storeDescription(), slot);
      }
    }
  }
}
