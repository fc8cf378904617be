/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Bounds the requests in flight ({@link StorePolicy#maxConcurrentRequests()}: a read holds its slot until its
 * stream is closed or read to the end) and the bytes read per second ({@link StorePolicy#maxBytesPerSec()}). A
 * ranged read waits for its bytes before it is sent, so that the wait never eats into its deadline; a whole-blob
 * read, whose length is not known, pays for its bytes as they arrive.
 */
final class RequestLimitingBlobStore extends FilterBlobStore {
  private final Semaphore slots;
  private final ByteRate rate;

  RequestLimitingBlobStore(BlobStore in, PolicySettings policy) {
    super(in);
    this.slots = policy.maxConcurrentRequests() > 0 ? new Semaphore(policy.maxConcurrentRequests()) : null;
    this.rate = policy.maxBytesPerSec() > 0 ? new ByteRate(policy.maxBytesPerSec()) : null;
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    if (rate != null) {
      rate.acquire(length);
    }
    return limited(() -> in.read(blobName, offset, length), false);
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    return limited(() -> in.read(blobName), rate != null);
  }

  private InputStream limited(StoreThreads.IoCall<InputStream> open, boolean payAsRead) throws IOException {
    acquireSlot();
    try {
      return new LimitedStream(open.call(), payAsRead);
    } catch (IOException | RuntimeException | Error e) {
      releaseSlot();
      throw e;
    }
  }

  @Override
  public void write(String blobName, InputStream data, long length) throws IOException {
    run(() -> {
      in.write(blobName, data, length);
      return null;
    });
  }

  @Override
  public List<BlobMetadata> list(String prefix) throws IOException {
    return run(() -> in.list(prefix));
  }

  @Override
  public long length(String blobName) throws IOException {
    return run(() -> in.length(blobName));
  }

  @Override
  public boolean exists(String blobName) throws IOException {
    return run(() -> in.exists(blobName));
  }

  @Override
  public void delete(String blobName) throws IOException {
    run(() -> {
      in.delete(blobName);
      return null;
    });
  }

  @Override
  public void deleteAll(Collection<String> blobNames) throws IOException {
    run(() -> {
      in.deleteAll(blobNames);
      return null;
    });
  }

  private <T> T run(StoreThreads.IoCall<T> call) throws IOException {
    acquireSlot();
    try {
      return call.call();
    } finally {
      releaseSlot();
    }
  }

  private void acquireSlot() throws InterruptedIOException {
    if (slots != null) {
      try {
        slots.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for a request slot of " + in.describe());
      }
    }
  }

  private void releaseSlot() {
    if (slots != null) {
      slots.release();
    }
  }

  /** Holds a request slot until closed or read to the end. */
  private final class LimitedStream extends FilterBlobInputStream {
    private final AtomicBoolean released = new AtomicBoolean();
    private final boolean payAsRead;

    LimitedStream(InputStream in, boolean payAsRead) {
      super(in);
      this.payAsRead = payAsRead;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n < 0) {
        release();
      } else if (payAsRead && n > 0) {
        rate.acquire(n);
      }
      return n;
    }

    private void release() {
      if (released.compareAndSet(false, true)) {
        releaseSlot();
      }
    }

    @Override
    public void close() throws IOException {
      try {
        in.close();
      } finally {
        release();
      }
    }
  }

  /**
   * Spaces requests so that bytes flow at no more than a given rate on average: each acquisition books the next
   * free stretch of time for its bytes and waits until that stretch begins.
   */
  static final class ByteRate {
    private final double nanosPerByte;
    private final LongSupplier clock;
    private long nextFree;

    ByteRate(long bytesPerSecond) {
      this(bytesPerSecond, System::nanoTime);
    }

    /** With {@code clock} in place of System.nanoTime(): for tests, whose verdict must not depend on the time passing. */
    ByteRate(long bytesPerSecond, LongSupplier clock) {
      this.nanosPerByte = 1e9 / bytesPerSecond;
      this.clock = clock;
      this.nextFree = clock.getAsLong();
    }

    void acquire(long bytes) throws InterruptedIOException {
      StoreThreads.sleepNanos(book(bytes), "waiting for max_bytes_per_sec");
    }

    /** Books the next free stretch of time for {@code bytes}; returns how long to wait for it to begin. */
    synchronized long book(long bytes) {
      long now = clock.getAsLong();
      long begin = nextFree - now > 0 ? nextFree : now;
      nextFree = begin + (long) (bytes * nanosPerByte);
      return begin - now;
    }
  }
}
