/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ScheduledFuture;

/**
 * Gives every read a deadline: {@link StorePolicy#requestTimeout()} plus its length at
 * {@link StorePolicy#minReadThroughput()} (a whole-blob read of unknown length earns time as its bytes arrive).
 * The request is sent from a store-call thread so that the caller can stop waiting for a response that never
 * comes; once the deadline passes, the response stream is closed (which aborts the request) and the read fails
 * with a {@link BlobStoreTimeoutException} naming store, blob and range. {@code length} and {@code exists} get
 * the request timeout alone. Writes, listings and deletes are bounded by the backend's own timeouts.
 */
final class DeadlineBlobStore extends FilterBlobStore {
  private final PolicySettings policy;

  DeadlineBlobStore(BlobStore in, PolicySettings policy) {
    super(in);
    this.policy = policy;
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    long start = System.nanoTime();
    long deadline = PolicySettings.saturatedAdd(start, policy.requestTimeoutNanos(length));
    String what = "reading " + BlobStoreException.range(offset, length) + " of blob " + blobName;
    InputStream stream = StoreThreads.callWithin(() -> in.read(blobName, offset, length), deadline - start,
        InputStream::close, () -> timeout(blobName, what, start, length, null));
    return new DeadlineStream(stream, blobName, what, start, length);
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    long start = System.nanoTime();
    String what = "reading blob " + blobName;
    InputStream stream = StoreThreads.callWithin(() -> in.read(blobName), policy.requestTimeoutNanos(0),
        InputStream::close, () -> timeout(blobName, what, start, 0, null));
    return new DeadlineStream(stream, blobName, what, start, -1);
  }

  @Override
  public long length(String blobName) throws IOException {
    long start = System.nanoTime();
    return StoreThreads.callWithin(() -> in.length(blobName), policy.requestTimeoutNanos(0), x -> {},
        () -> timeout(blobName, "asking for the length of blob " + blobName, start, 0, null));
  }

  @Override
  public boolean exists(String blobName) throws IOException {
    long start = System.nanoTime();
    return StoreThreads.callWithin(() -> in.exists(blobName), policy.requestTimeoutNanos(0), x -> {},
        () -> timeout(blobName, "checking whether blob " + blobName + " exists", start, 0, null));
  }

  private BlobStoreTimeoutException timeout(String blobName, String what, long start, long length, Throwable cause) {
    return new BlobStoreTimeoutException(in.describe(), blobName,
        "timed out " + what + " after " + Durations.formatNanos(System.nanoTime() - start) + " (deadline: "
            + policy.explainDeadline(length) + "); the request was abandoned",
        cause);
  }

  /**
   * A response stream that is closed by the timer when its deadline passes; reads after that, or that the
   * close interrupted, fail with a {@link BlobStoreTimeoutException}.
   */
  private final class DeadlineStream extends FilterBlobInputStream {
    private final String blobName;
    private final String what;
    private final long start;
    /** The requested length, or -1 for a whole blob, whose deadline grows with the bytes delivered. */
    private final long length;
    private volatile long delivered;
    private volatile boolean expired;
    private volatile boolean finished;
    private ScheduledFuture<?> alarm;

    DeadlineStream(InputStream in, String blobName, String what, long start, long length) {
      super(in);
      this.blobName = blobName;
      this.what = what;
      this.start = start;
      this.length = length;
      arm();
    }

    private long deadline() {
      return PolicySettings.saturatedAdd(start, policy.requestTimeoutNanos(length >= 0 ? length : delivered));
    }

    private synchronized void arm() {
      if (!finished) {
        alarm = StoreThreads.schedule(this::ring, deadline() - System.nanoTime());
      }
    }

    /** Runs on the timer: closes the stream if its deadline has really passed, else waits for the new one. */
    private void ring() {
      if (finished) {
        return;
      }
      if (System.nanoTime() - deadline() < 0) {
        arm(); // a whole-blob read earned more time
        return;
      }
      expired = true;
      try {
        in.close(); // aborts the request; a read blocked on it fails
      } catch (IOException | RuntimeException ignored) {
        // the read that was waiting reports the time-out
      }
    }

    private void check() throws BlobStoreTimeoutException {
      if (expired || System.nanoTime() - deadline() > 0) {
        expired = true;
        throw timeout(blobName, what + " (" + delivered + " bytes received)", start, Math.max(length, delivered), null);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      check();
      int n;
      try {
        n = in.read(b, off, len);
      } catch (IOException | RuntimeException e) {
        if (expired) {
          throw timeout(blobName, what + " (" + delivered + " bytes received)", start, Math.max(length, delivered), e);
        }
        throw e;
      }
      if (n > 0) {
        delivered += n;
      } else if (n < 0) {
        done();
      }
      return n;
    }

    private synchronized void done() {
      finished = true;
      if (alarm != null) {
        alarm.cancel(false);
      }
    }

    @Override
    public void close() throws IOException {
      done();
      in.close();
    }
  }
}
