/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FilterBlobInputStream;
import dev.permafrost.blob.FilterBlobStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A {@link BlobStore} decorator that makes every read cost what it would on object storage, per a
 * {@link LatencyModel}, and counts requests, bytes and dependency chains in {@link RequestStats}.
 *
 * <p>A read sleeps for the time to first byte when it is issued, then its stream delivers bytes no faster than the
 * per-stream bandwidth. Streams do not share bandwidth (object stores scale with connections). {@code length},
 * {@code exists} and {@code list} cost a time to first byte and count as metadata requests; writes and deletes
 * pass straight through and are not counted (benchmarks only write while preparing data).
 *
 * <p>Put it outside the store's {@link dev.permafrost.blob.StorePolicy} ({@code new LatencyModelBlobStore(
 * StorePolicy.DEFAULT.apply(base), model)}) so that the latency is paid on the thread that asked, as the request
 * chains are counted per thread; the policy's own work (its deadline thread hop, its checks) is still measured.
 */
public final class LatencyModelBlobStore extends FilterBlobStore {
  private final RequestStats stats = new RequestStats();
  private volatile LatencyModel model;
  private volatile Consumer<String> trace;

  public LatencyModelBlobStore(BlobStore delegate, LatencyModel model) {
    super(delegate);
    this.model = model;
  }

  /** The counters of this store. */
  public RequestStats stats() {
    return stats;
  }

  public LatencyModel model() {
    return model;
  }

  /** Sends a line per data request (wave, thread, blob, range) to {@code lines}; null stops. */
  public void trace(Consumer<String> lines) {
    this.trace = lines;
  }

  /** Changes the model for requests issued from now on (e.g. none while warming a cache). */
  public void setModel(LatencyModel model) {
    this.model = model;
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    long length = in.length(blobName);
    return read(blobName, 0, length);
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    LatencyModel m = model;
    RequestStats.Request request = stats.begin(length);
    Consumer<String> lines = trace;
    if (lines != null) {
      lines.accept(String.format(Locale.ROOT, "wave %2d  %-28s %-60s [%d, +%d)", request.wave(),
          Thread.currentThread().getName(), blobName, offset, length));
    }
    InputStream stream;
    try {
      sleepNanos(m.timeToFirstByte().toNanos());
      stream = in.read(blobName, offset, length);
    } catch (IOException | RuntimeException e) {
      request.complete();
      throw e;
    }
    return new ThrottledStream(stream, m, request, length);
  }

  @Override
  public List<BlobMetadata> list(String prefix) throws IOException {
    return metadata(() -> in.list(prefix));
  }

  @Override
  public long length(String blobName) throws IOException {
    return metadata(() -> in.length(blobName));
  }

  @Override
  public boolean exists(String blobName) throws IOException {
    return metadata(() -> in.exists(blobName));
  }

  private interface IoCall<T> {
    T call() throws IOException;
  }

  private <T> T metadata(IoCall<T> call) throws IOException {
    RequestStats.Request request = stats.beginMetadata();
    try {
      sleepNanos(model.timeToFirstByte().toNanos());
      return call.call();
    } finally {
      request.complete();
    }
  }

  static void sleepNanos(long nanos) throws InterruptedIOException {
    if (nanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while modelling blob store latency");
    }
  }

  @Override
  public String toString() {
    return "LatencyModelBlobStore(" + describe() + ")";
  }

  /** Delivers the delegate's bytes no faster than the model's bandwidth; completes the request once all are read. */
  private static final class ThrottledStream extends FilterBlobInputStream {
    private final LatencyModel model;
    private final RequestStats.Request request;
    private final long length;
    private final long start = System.nanoTime();
    private long delivered;

    ThrottledStream(InputStream in, LatencyModel model, RequestStats.Request request, long length) {
      super(in);
      this.model = model;
      this.request = request;
      this.length = length;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n < 0) {
        request.complete();
        return n;
      }
      delivered += n;
      request.bytesRead(n);
      long due = start + model.transferNanos(delivered);
      sleepNanos(due - System.nanoTime());
      if (delivered >= length) {
        request.complete();
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } finally {
        request.complete();
      }
    }
  }
}
