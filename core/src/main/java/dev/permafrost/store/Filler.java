/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.Durations;
import dev.permafrost.snapshot.ChunkTable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.apache.lucene.index.CorruptIndexException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches ranges of blobs into the cache file, and for readers directly from the store, on two lanes: demand
 * fetches (a reader waits) on up to {@code fetchThreads} threads, prefetches on up to {@code prefetchThreads}
 * others, so that a demand fetch never queues behind a prefetch; a prefetch that a reader comes to wait for moves to
 * the demand lane. A third pool loads chunk tables (so that a table travels in parallel with the fill that needs it,
 * and a fill never waits for a table queued behind it) and closes responses of fetches called off.
 *
 * <p>Every fetch is a {@link FetchTask}: when every reader waiting for it gives up (its deadline, an interrupt), it
 * is called off, so that it stops holding a thread and sending requests, and stuck fetches cannot pile up in front
 * of the ones that readers still wait for.
 *
 * <p>Every byte is verified before it becomes visible ({@link VerifiedFetch}: chunk by chunk against the blob's
 * {@link ChunkTable}, or as a whole against its checksums; a mismatch twice fails the fill with a
 * {@link CorruptIndexException}). Only verified pieces are written to the cache file, and the slot is told of each
 * only once it is written ({@link Fillable#progress}), so a fill that fails part way leaves its other pages missing,
 * never half-visible.
 */
final class Filler {
  private static final Logger log = LoggerFactory.getLogger(Filler.class);

  private final CacheFile cacheFile;
  private final CacheStatsCounter global;
  private final ThreadPoolExecutor demand;
  private final ThreadPoolExecutor prefetches;
  private final ExecutorService tables;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicBoolean writeFailureLogged = new AtomicBoolean();
  private final WarnOnce backgroundFailures = new WarnOnce(log);
  /** Fills that could not write to the cache file (their readers read directly instead). */
  final LongAdder cacheWriteFailures = new LongAdder();

  Filler(CacheFile cacheFile, int fetchThreads, int prefetchThreads, CacheStatsCounter global) {
    this.cacheFile = cacheFile;
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

  private static ThreadFactory daemon(String name) {
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

  /**
   * A fill registered in its slot, waiting to be queued with others ({@link #start(List, BlobChecksums, FetchOrigin)}),
   * and where the slot's region starts in the file: read once, while the fill is registered and the slot keeps its
   * region. The fetch goes by this position, never by the slot's: once a piece's fill has ended, the slot may hold
   * another region before the fetch is done with the rest of its run, and a position read from it then would put
   * the next piece's bytes into it.
   */
  record Piece(Fillable slot, Fill fill, long regionStart) {
    /** Called while {@code fill} is registered in {@code slot} (under its monitor, or before it is queued). */
    Piece(Fillable slot, Fill fill) {
      this(slot, fill, slot.regionStart());
    }

    long start() {
      return regionStart + fill.start;
    }

    long end() {
      return regionStart + fill.end;
    }
  }

  /** Queues {@code fill} (already registered in {@code slot}). Called under the slot's monitor; never blocks. */
  void start(Fillable slot, Fill fill, BlobChecksums blob, FetchOrigin file) {
    queue(List.of(new Piece(slot, fill)), blob, file);
  }

  /**
   * Queues the fills of {@code pieces} (registered in their slots, of one blob, in any order), one fetch for each run
   * of pieces that follow each other with no gap, or with gaps of at most {@link FetchOrigin#bridgedGap()} bytes in
   * all: what lies between pieces so close is read and dropped, which by the store policy's model
   * ({@link dev.permafrost.blob.StorePolicy#bridgedGapBytes()}) costs less than the first byte of a second request,
   * and makes a request at most that much longer than its pieces read back to back. Adjacent regions of a prefetch,
   * and the columns of one segment named together, cost one request. A gap inside one region (two pieces of one slot)
   * is kept in that slot, as fills of its own in the same request: a column's terms between its values and its
   * index, say, which a reader asks for next. Called without a slot's monitor; never blocks.
   */
  void start(List<Piece> pieces, BlobChecksums blob, FetchOrigin file) {
    if (pieces.isEmpty()) {
      return;
    }
    List<Piece> sorted = new ArrayList<>(pieces);
    sorted.sort((a, b) -> Long.compare(a.start(), b.start()));
    long bridged = Math.max(0, file.bridgedGap());
    for (int i = 0; i < sorted.size(); ) {
      List<Piece> run = new ArrayList<>();
      run.add(sorted.get(i));
      int j = i + 1;
      long read = 0; // the gap bytes this run reads so far
      for (; j < sorted.size(); j++) {
        Piece last = run.getLast();
        Piece next = sorted.get(j);
        long g = Math.max(0, gap(blob, last, next));
        if (g > bridged - read) {
          break;
        }
        if (g > 0 && last.slot == next.slot) {
          // the gap's fills are of the region last's fill is registered in: its start holds for them
          for (Fill gapFill : last.slot.fillGap(last.fill, last.fill.end, next.fill.start, file)) {
            run.add(new Piece(last.slot, gapFill, last.regionStart));
          }
        }
        read += g;
        run.add(next);
      }
      queue(run, blob, file);
      i = j;
    }
  }

  /** The bytes a fetch of {@code first} and {@code next} (after it in the blob) in one request reads for neither. */
  static long gap(BlobChecksums blob, Piece first, Piece next) {
    assert next.start() >= first.end() : first + " overlaps " + next;
    return blob.fetchStart(next.start()) - blob.fetchEnd(first.end());
  }

  /**
   * One fetch for a run of adjacent pieces: counted in the asking thread's work now, given to each piece's slot
   * ({@link Fillable#queued}, under its monitor), then queued on the lane its readers ask for, or called off at once
   * if a reader that came before it had a task gave up on it. The chunk table is asked for first, so that it travels
   * beside the data.
   */
  private void queue(List<Piece> run, BlobChecksums blob, FetchOrigin file) {
    FillTask task = new FillTask(List.copyOf(run), blob, file);
    inFlight.incrementAndGet();
    boolean demanded = false;
    boolean calledOff = false;
    for (Piece p : run) {
      switch (p.slot.queued(p.fill, task)) {
        case DEMAND -> demanded = true;
        case CALLED_OFF -> calledOff = true;
        case PREFETCH -> { }
      }
    }
    if (calledOff) {
      task.cancel(tables); // never runs: its fills end, and a reader still waiting for one fetches it itself
      return;
    }
    if (blob.hasTable()) {
      task.table = table(blob, file, task.cost, task.wave);
    }
    try {
      (demanded ? demand : prefetches).execute(task);
    } catch (RuntimeException e) {
      task.closed = new IOException("the shared region cache is closed; cannot fetch " + blob.blobName, e);
      task.cancel(Runnable::run); // ends the fills with that error, unless a reader's promotion runs it already
    }
  }

  /**
   * Queues {@code task}, the fetch of a prefetch that a reader now waits for, on the demand lane too: whichever lane
   * gets to it first runs it. Called under the slot's monitor.
   */
  void promote(FetchTask task) {
    try {
      demand.execute(task);
    } catch (RuntimeException e) {
      // closed: the prefetch lane's copy is dropped by close() too, which ends the fill
    }
  }

  /** Calls {@code task} off: nobody waits for it any more. Never blocks. */
  void cancel(FetchTask task) {
    task.cancel(tables);
  }

  /**
   * Reads [from, to) of {@code blob} directly from the store (a region that is not cached), verified, on the demand
   * lane; waits for it until {@code limit}, and calls it off if the wait ends first.
   */
  byte[] fetchDirect(BlobChecksums blob, FetchOrigin file, long from, long to, ReadDeadline limit) throws IOException {
    DirectTask task = new DirectTask(blob, file, from, to, null);
    inFlight.incrementAndGet();
    if (blob.hasTable()) {
      task.table = table(blob, file, task.cost, task.wave);
    }
    try {
      demand.execute(task);
    } catch (RuntimeException e) {
      task.cancel(Runnable::run);
      throw new IOException("the shared region cache at " + cacheFile.path() + " is closed; cannot read " + blob.blobName, e);
    }
    return awaitDirect(task, limit);
  }

  /**
   * Starts reading [from, to) of {@code blob} directly from the store on the prefetch lane, for a reader that will
   * ask for it later ({@link #awaitDirect}); null if the cache is closed. {@code whenIn}, if not null, is given the
   * verified bytes before any reader is, on the fetching thread (its failure is its own: the read still succeeds).
   */
  DirectTask startDirect(BlobChecksums blob, FetchOrigin file, long from, long to, Consumer<byte[]> whenIn) {
    DirectTask task = new DirectTask(blob, file, from, to, whenIn);
    inFlight.incrementAndGet();
    if (blob.hasTable()) {
      task.table = table(blob, file, task.cost, task.wave);
    }
    try {
      prefetches.execute(task);
      return task;
    } catch (RuntimeException e) {
      task.cancel(Runnable::run);
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
    BlobChecksums blob = task.blob;
    FetchOrigin file = task.file;
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
          + " directly from " + file.storeDescription() + " failed: " + cause, cause);
    } catch (TimeoutException e) {
      task.cancel(tables);
      throw new BlobStoreTimeoutException(file.storeDescription(), blob.blobName,
          "timed out after " + Durations.formatNanos(System.nanoTime() - start) + " waiting for "
              + BlobStoreException.range(from, to - from) + " of " + file + " (blob " + blob.blobName + ") to be read"
              + " directly from the store: the wait is bounded by " + limit.what + "; the read was called off", null);
    } catch (InterruptedException e) {
      task.cancel(tables);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + BlobStoreException.range(from, to - from) + " of "
          + file + " (blob " + blob.blobName + ") to be read from the store");
    }
  }

  /**
   * {@code blob}'s chunk table, loading it on a table thread (so that it travels in parallel with the fill that
   * asked, and a fill never waits for a table queued behind it) the first time; its request counts for {@code cost}
   * (if not null), in wave {@code wave}, from now. A failed load is forgotten, so that the next fill asks again. Only
   * for a blob that {@link BlobChecksums#hasTable()}.
   */
  CompletableFuture<ChunkTable> table(BlobChecksums blob, FetchOrigin origin, ReadCost cost, int wave) {
    assert blob.hasTable();
    CompletableFuture<ChunkTable> t = blob.table.get();
    if (t != null) {
      return t;
    }
    CompletableFuture<ChunkTable> mine = new CompletableFuture<>();
    if (!blob.table.compareAndSet(null, mine)) {
      return blob.table.get();
    }
    mine.whenComplete((loaded, error) -> {
      if (error != null) {
        blob.table.compareAndSet(mine, null); // the next fill asks again
      }
    });
    ReadCost.Request request = cost == null ? null : cost.request(wave, VerifiedFetch.tableLength(blob), null, 0, 0);
    inFlight.incrementAndGet();
    try {
      tables.execute(() -> {
        try {
          mine.complete(VerifiedFetch.readTable(blob, origin, request));
        } catch (Throwable e) {
          mine.completeExceptionally(e);
        } finally {
          inFlight.decrementAndGet();
        }
      });
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      if (request != null) {
        request.calledOff();
      }
      mine.completeExceptionally(new IOException("the shared region cache is closed; cannot load the chunk table of "
          + blob.blobName, e));
    }
    return mine;
  }

  /**
   * Fetches [from, to) of {@code blob} for {@code task}, verified piece by piece (see {@link VerifiedFetch}), handing
   * each verified piece to {@code sink}, in order.
   */
  private void fetchVerified(FetchTask task, BlobChecksums blob, FetchOrigin origin, long from, long to,
      long deadlineNanos, boolean direct, VerifiedFetch.PieceSink sink) throws IOException {
    // asked for when the fetch was (beside the data); again here only if that load failed meanwhile
    CompletableFuture<ChunkTable> table = null;
    if (blob.hasTable()) {
      table = task.table != null && !task.table.isCompletedExceptionally() ? task.table
          : table(blob, origin, task.cost, task.wave);
    }
    new VerifiedFetch(blob, origin, direct, task, global).fetch(from, to, table, deadlineNanos, sink);
  }

  /** Records a failed write to the cache file and logs the first one. */
  CacheWriteFailedException writeFailed(IOException e, BlobChecksums blob) {
    cacheWriteFailures.increment();
    if (writeFailureLogged.compareAndSet(false, true)) {
      log.warn("writing to the cache file {} failed ({}); reads are served directly from the store until writes"
          + " succeed again (logged once)", cacheFile.path(), e.toString());
    }
    return new CacheWriteFailedException("writing " + blob.blobName + " to the cache file " + cacheFile.path()
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

  /** A read directly from the store into heap bytes: fetch, verify, hand over. */
  final class DirectTask extends FetchTask {
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    final BlobChecksums blob;
    final FetchOrigin file;
    final long from;
    final long to;
    /** Given the verified bytes before the result is, or null. */
    private final Consumer<byte[]> whenIn;

    DirectTask(BlobChecksums blob, FetchOrigin file, long from, long to, Consumer<byte[]> whenIn) {
      super(blob, from, to);
      this.blob = blob;
      this.file = file;
      this.from = from;
      this.to = to;
      this.whenIn = whenIn;
    }

    @Override
    void fetch() {
      try {
        byte[] bytes = new byte[Math.toIntExact(to - from)];
        fetchVerified(this, blob, file, from, to, file.deadlineAfter(System.nanoTime(), to - from), true,
            (b, offset, length, position) -> System.arraycopy(b, offset, bytes, (int) (position - from), length));
        if (whenIn != null) {
          try {
            whenIn.accept(bytes);
          } catch (RuntimeException e) {
            // the cache keeps less; the read's own readers still get their bytes
          }
        }
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
      result.completeExceptionally(new FetchTask.Cancelled("the read of " + blob.blobName + " was called off before it started"));
    }
  }

  /**
   * One fetch for the fills of a run of adjacent pieces (one fill, or the fills of adjacent regions): fetch, verify,
   * write each verified piece into the slots it belongs to, mark it filled there. Called off, it ends every fill of
   * the run (their waiters, if any, start fetches of their own).
   */
  private final class FillTask extends FetchTask {
    private final List<Piece> pieces;
    private final BlobChecksums blob;
    private final FetchOrigin file;
    /** Why it never ran if the cache was closed when it was queued; else it was called off. */
    IOException closed;

    FillTask(List<Piece> pieces, BlobChecksums blob, FetchOrigin file) {
      super(blob, blob.fetchStart(pieces.get(0).start()), blob.fetchEnd(pieces.get(pieces.size() - 1).end()));
      assert !pieces.isEmpty();
      this.pieces = pieces;
      this.blob = blob;
      this.file = file;
    }

    @Override
    void cancelledWhileQueued() {
      inFlight.decrementAndGet();
      for (Piece p : pieces) {
        p.slot.finish(p.fill, closed != null ? closed
            : new FetchTask.Cancelled("the fetch of " + blob.blobName + " was called off before it started"));
      }
    }

    @Override
    void fetch() {
      // Each piece's position was read when it was queued: a piece whose fill has ended is passed over by that, even
      // if its slot holds another region by then (see Piece).
      long start = pieces.get(0).start();
      long end = pieces.get(pieces.size() - 1).end();
      long deadline = Long.MIN_VALUE;
      long asked = Long.MAX_VALUE;
      for (Piece p : pieces) {
        deadline = Math.max(deadline, p.fill.deadlineNanos);
        asked = Math.min(asked, p.fill.createdNanos);
      }
      if (pieces.size() > 1) { // the gaps between them are read too: the whole request's length sets its deadline
        long whole = file.deadlineAfter(asked, blob.fetchEnd(end) - blob.fetchStart(start));
        deadline = deadline - whole < 0 ? whole : deadline;
      }
      IOException error = null;
      try {
        int[] next = {0}; // the first piece the stream has not passed yet: pieces and verified bytes both go forward
        fetchVerified(this, blob, file, blob.fetchStart(start), blob.fetchEnd(end), deadline, false, (bytes, offset, length, position) -> {
          for (int k = next[0]; k < pieces.size(); k++) {
            Piece piece = pieces.get(k);
            long from = Math.max(position, piece.start());
            long to = Math.min(position + length, piece.end());
            if (piece.start() >= position + length) {
              break; // this verified piece ends before it
            }
            if (to <= from) {
              next[0] = k + 1; // the stream is past it
              continue;
            }
            write(piece, bytes, offset + (int) (from - position), from, to);
            if (to == piece.end()) {
              next[0] = k + 1;
            }
          }
        });
      } catch (CacheWriteFailedException | CorruptIndexException e) {
        error = e;
      } catch (IOException | RuntimeException e) {
        if (cancelRequested()) {
          error = e instanceof FetchTask.Cancelled c ? c : new FetchTask.Cancelled("the fetch of " + blob.blobName
              + " was called off: every reader waiting for it gave up (" + e + ")");
        } else {
          String what = "fetching " + BlobStoreException.range(start, end - start) + " of blob " + blob.blobName + " ("
              + blob.fileName + ") from " + file.storeDescription() + " into the cache failed";
          error = e instanceof BlobStoreException b ? new IOException(what + ": " + b.getMessage(), e)
              : new IOException(what + ": " + e, e);
        }
      } finally {
        inFlight.decrementAndGet();
        for (Piece p : pieces) {
          p.slot.finish(p.fill, error);
        }
      }
      boolean demanded = false;
      for (Piece p : pieces) {
        demanded |= p.fill.demand;
      }
      if (error != null && !(error instanceof FetchTask.Cancelled) && !demanded) {
        // nobody waits for a prefetch: its failure would go unseen (the read that needs the bytes fetches again)
        backgroundFailures.warn(file.storeDescription() + " " + error.getClass().getName(), "prefetching {} failed: {}",
            blob.blobName, error.getMessage());
      } else if (error == null && log.isDebugEnabled()) {
        log.debug("fetched {} of blob {} ({}) from {} into the cache, {} region(s) from {}",
            BlobStoreException.range(start, end - start), blob.blobName, blob.fileName, file.storeDescription(),
            pieces.size(), pieces.get(0).slot);
      }
    }

    /** Writes the verified bytes of file positions [from, to), at {@code bytes[at]}, into {@code piece}'s slot. */
    private void write(Piece piece, byte[] bytes, int at, long from, long to) throws IOException {
      long regionStart = piece.regionStart();
      assert piece.slot.regionStart() == regionStart : piece + " moved while its fill is registered";
      beginWrite(); // no interrupt from here: it would close the cache file's channel
      try {
        cacheFile.write(bytes, at, (int) (to - from), piece.slot.cacheOffset() + (from - regionStart));
      } catch (IOException e) {
        throw writeFailed(e, blob);
      }
      piece.slot.progress(piece.fill, from - regionStart, to - regionStart,
          piece.slot.unitCrcs(bytes, at, from - regionStart, to - regionStart));
      endWrite();
    }
  }
}
