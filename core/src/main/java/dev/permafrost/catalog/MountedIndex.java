/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.ManifestRef;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotSource;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.IOUtils;

/**
 * One mounted index: the summary a closed index keeps (a few KB: where its manifest is and the facts it records),
 * and, while open, its directory and reader. It owns its own life cycle: opening once for all who ask at once,
 * leasing, closing when idle, unmounting; the {@link ReaderPool} decides when to open and whom to close.
 *
 * <p>All mutable state is guarded by this object's monitor; the reader is opened and closed outside it.
 */
final class MountedIndex implements ReaderPool.Member {
  final String name;
  final SnapshotSource repository;
  final ManifestRef manifest;
  final MountMode mode;
  final long numDocs;
  final long maxDoc;
  final long sizeInBytes;
  final int fileCount;
  final int segmentCount;
  final Map<String, PointRange> pointRanges;
  final Map<String, String> userData;
  private final SharedRegionCache cache;
  private final ReaderPool pool;
  /** The local copy of a full-copy mount, else null. */
  private final FullCopy fullCopy;
  /**
   * The manifest its source kept in memory at mount, with the bytes opening reads ({@link
   * SnapshotSource#checkAndKeep}): the reader opens from it with no request; null (the source keeps nothing, or the
   * catalog's mounts keep as much as they may already, see {@link KeptOpenings}): the manifest is read again through
   * the cache at each open.
   */
  private final SnapshotManifest kept;

  private MountState state = MountState.CLOSED;
  private int leases;
  private boolean unmounted;
  private Directory directory;
  private DirectoryReader reader;
  private long heapBytes;
  /** The pool's room for the reader, from its reservation until it closes. */
  private ReaderPool.Ticket ticket;
  /** When a lease was last taken or given back (System.nanoTime()); read racily to order idle readers. */
  private volatile long lastUsedNanos = System.nanoTime();

  MountedIndex(String name, SnapshotSource repository, SnapshotManifest manifest, SnapshotManifest kept,
      Map<String, PointRange> pointRanges, MountMode mode, SharedRegionCache cache, ReaderPool pool, FullCopy fullCopy) {
    assert (mode == MountMode.FULL_COPY) == (fullCopy != null);
    assert kept == null || kept.ref().equals(manifest.ref()) : "what a mount keeps is of its own manifest";
    this.kept = kept;
    this.fullCopy = fullCopy;
    this.name = name;
    this.repository = repository;
    this.manifest = manifest.ref();
    this.mode = mode;
    this.numDocs = manifest.info().numDocs();
    this.maxDoc = manifest.info().maxDoc();
    this.sizeInBytes = manifest.info().totalBytes();
    this.fileCount = manifest.info().fileCount();
    this.segmentCount = manifest.info().segmentCount();
    this.pointRanges = pointRanges;
    this.userData = manifest.info().userData();
    this.cache = cache;
    this.pool = pool;
    assert this.manifest != null : "a mounted manifest was read from a store";
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long lastUsedNanos() {
    return lastUsedNanos;
  }

  synchronized MountInfo info() {
    return new MountInfo(name, manifest.snapshot(), repository.store().describe(), mode, state, leases, heapBytes, numDocs,
        maxDoc, sizeInBytes, fileCount, pointRanges, userData, fullCopy == null ? 0 : fullCopy.progress(), keptHeapBytes());
  }

  /** A lease on the reader if it is open now, else null: never opens it, never waits. */
  synchronized Lease acquireIfOpen() {
    if (unmounted || state != MountState.OPEN) {
      return null;
    }
    leases++;
    lastUsedNanos = System.nanoTime();
    return new Lease(name, reader, false, this::release);
  }

  /**
   * Leases the reader, opening it first if it is closed: once, however many ask at once (the others wait for it).
   *
   * @throws IOException if opening fails (the next acquire tries again)
   * @throws TimeoutException if the reader could not be opened (or room made for it) by {@code deadlineNanos}
   */
  Lease acquire(long deadlineNanos) throws IOException, TimeoutException {
    synchronized (this) {
      for (;;) {
        if (unmounted) {
          throw new IndexUnmountedException(name);
        }
        if (state == MountState.OPEN) {
          leases++;
          lastUsedNanos = System.nanoTime();
          return new Lease(name, reader, false, this::release);
        }
        if (state == MountState.CLOSED) {
          state = MountState.OPENING;
          break; // this thread opens it
        }
        waitUntil(deadlineNanos, "another search opens index '" + name + "'");
      }
    }
    ReaderPool.Ticket reserved = null;
    try {
      reserved = pool.reserve(this, deadlineNanos);
      SnapshotManifest read = mountedManifest();
      Directory dir = BlobDirectory.open(repository, read, cache, name);
      if (fullCopy != null) {
        dir = new FullCopyDirectory(dir, fullCopy); // its files complete locally are read from the copy
      }
      DirectoryReader opened;
      try {
        opened = repository.openReader(dir);
      } catch (IOException | RuntimeException e) {
        dir.close();
        throw e;
      }
      long heap = estimateHeap(read, opened);
      synchronized (this) {
        // an unmount that began meanwhile waits for this opening to end, then for this one lease to come back
        assert state == MountState.OPENING : state;
        pool.opened(reserved, heap); // before the reader can be closed by anyone
        directory = dir;
        reader = opened;
        heapBytes = heap;
        ticket = reserved;
        state = MountState.OPEN;
        leases++;
        lastUsedNanos = System.nanoTime();
        notifyAll();
      }
      return new Lease(name, opened, true, this::release);
    } catch (IOException | RuntimeException | Error | TimeoutException e) {
      synchronized (this) {
        state = MountState.CLOSED;
        notifyAll();
      }
      if (reserved != null && ticket != reserved) {
        pool.unreserve(reserved);
      }
      throw e;
    }
  }

  /**
   * What a reader holds on the heap, estimated: Lucene 10's readers no longer report it (no {@code Accountable}),
   * so this counts the manifest's bytes kept in memory (metadata files kept whole and the ranges opening reads), which
   * the reader parses, twice over, plus a few KB per segment.
   */
  private static long estimateHeap(SnapshotManifest manifest, DirectoryReader reader) {
    return 2 * manifest.heapBytes() + 8192L * reader.leaves().size();
  }

  /** The mounted manifest: the one kept with the mount, else read again through the cache. */
  private SnapshotManifest mountedManifest() throws IOException {
    return kept != null ? kept : CachedManifests.read(repository, manifest, cache);
  }

  /** What is kept on the heap with the mount while it is closed: the kept manifest's bytes, else none. */
  long keptHeapBytes() {
    return kept == null ? 0 : kept.heapBytes();
  }

  /** A lease is given back. */
  void release() {
    synchronized (this) {
      assert leases > 0;
      leases--;
      lastUsedNanos = System.nanoTime();
      notifyAll();
    }
    pool.released();
  }

  /**
   * Closes the reader if it is open, unleased, and has not been used since {@code usedBefore} (System.nanoTime(),
   * or Long.MAX_VALUE for "whenever"). Returns its pool ticket, for the caller to give back, or null if it was not
   * closed.
   */
  @Override
  public ReaderPool.Ticket closeIfIdle(long usedBefore) {
    Directory d;
    DirectoryReader r;
    ReaderPool.Ticket closed;
    synchronized (this) {
      if (state != MountState.OPEN || leases > 0 || (usedBefore != Long.MAX_VALUE && lastUsedNanos - usedBefore > 0)) {
        return null;
      }
      d = directory;
      r = reader;
      closed = ticket;
      directory = null;
      reader = null;
      heapBytes = 0;
      ticket = null;
      state = MountState.CLOSED;
    }
    IOUtils.closeWhileHandlingException(r, d); // closing is not unmounting: the cached regions stay
    return closed;
  }

  /**
   * Unmounts: waits (until {@code deadlineNanos}) for the leases to be given back and an opening to end, closes the
   * reader, and frees the index's cached regions. No acquire succeeds once this has started.
   *
   * @throws TimeoutException if leases are still held at the deadline (the index stays mounted)
   */
  void unmount(long deadlineNanos) throws TimeoutException, IOException {
    synchronized (this) {
      unmounted = true;
      try {
        while (leases > 0 || state == MountState.OPENING) {
          waitUntil(deadlineNanos, leases + " searches to give back index '" + name + "'");
        }
      } catch (TimeoutException | InterruptedIOException e) {
        unmounted = false;
        notifyAll();
        throw e;
      }
    }
    ReaderPool.Ticket closed = closeIfIdle(Long.MAX_VALUE);
    if (closed != null) {
      pool.closed(closed);
    }
    try {
      cache.evict(repository, mountedManifest());
    } catch (IOException e) {
      // the manifest is gone or changed: its regions leave by eviction
    }
    cache.dropIndexStats(name);
    if (fullCopy != null) {
      fullCopy.delete();
    }
  }

  /** Stops a full copy's work, keeping what it copied for a later mount (the catalog closes). */
  void closeCopy() throws IOException {
    if (fullCopy != null) {
      fullCopy.close();
    }
  }

  private void waitUntil(long deadlineNanos, String what) throws TimeoutException, InterruptedIOException {
    long remaining = deadlineNanos - System.nanoTime();
    if (remaining <= 0) {
      throw new TimeoutException("timed out waiting for " + what);
    }
    try {
      long millis = Math.max(1, Math.min(remaining / 1_000_000, 200));
      wait(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + what);
    }
  }

  @Override
  public String toString() {
    return "MountedIndex(" + name + ", " + manifest.snapshot() + ")";
  }
}
