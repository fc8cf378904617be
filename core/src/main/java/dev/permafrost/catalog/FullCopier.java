/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.NativeFSLockFactory;
import org.apache.lucene.util.IOUtils;

/**
 * What the full copies of a catalog share: their root directory (locked, so that two processes never copy into the
 * same one), one background thread that copies one file at a time, and the rate all copies together may fetch at.
 */
final class FullCopier implements AutoCloseable {
  private static final String LOCK = "permafrost-full-copies.lock";
  private final Path root;
  private final FSDirectory rootDirectory;
  private final Lock lock;
  private final ScheduledExecutorService thread;
  private final double nanosPerByte;
  /** How long a full copy waits before trying again the files that failed (then twice as long, and so on). */
  final long firstRetryDelayMillis;
  private long nextFree = System.nanoTime();

  FullCopier(Path root, long maxBytesPerSec, long firstRetryDelayMillis) throws IOException {
    this.firstRetryDelayMillis = firstRetryDelayMillis;
    this.root = root.toAbsolutePath();
    Files.createDirectories(this.root);
    this.rootDirectory = FSDirectory.open(this.root, NativeFSLockFactory.INSTANCE);
    try {
      this.lock = rootDirectory.obtainLock(LOCK);
    } catch (LockObtainFailedException e) {
      rootDirectory.close();
      throw new IllegalStateException("the full-copy directory " + this.root + " is in use by another catalog, in this"
          + " process or another; give each its own", e);
    }
    this.nanosPerByte = maxBytesPerSec <= 0 ? 0 : 1e9 / maxBytesPerSec;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "permafrost-full-copy");
      t.setDaemon(true);
      return t;
    });
  }

  /** Where the copy of the index mounted as {@code mount} lives. */
  Path directoryOf(String mount) {
    if (mount.equals(LOCK)) {
      throw new IllegalArgumentException("'" + LOCK + "' is the lock file of the full-copy directory " + root
          + ", not a name a full-copy mount can take");
    }
    return root.resolve(mount);
  }

  /** Runs {@code copy} on the copying thread after {@code delayMillis}, behind the copies already waiting. */
  Future<?> submit(Runnable copy, long delayMillis) {
    return thread.schedule(copy, delayMillis, TimeUnit.MILLISECONDS);
  }

  /** Waits, if need be, so that copies fetch no faster than the rate. */
  void pace(long bytes) throws InterruptedIOException {
    if (nanosPerByte == 0) {
      return;
    }
    long wait;
    synchronized (this) {
      long now = System.nanoTime();
      long begin = nextFree - now > 0 ? nextFree : now;
      nextFree = begin + (long) (bytes * nanosPerByte);
      wait = begin - now;
    }
    if (wait > 0) {
      try {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while pacing a full copy");
      }
    }
  }

  @Override
  public void close() throws IOException {
    thread.shutdownNow();
    IOUtils.close(lock, rootDirectory);
  }
}
