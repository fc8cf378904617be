/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import com.azure.storage.blob.models.BlobDownloadAsyncResponse;
import com.azure.storage.blob.models.BlobDownloadHeaders;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DownloadRetryOptions;
import com.azure.storage.blob.specialized.BlobAsyncClientBase;
import dev.permafrost.blob.BlobStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * A stream over {@code [start, end)} of a blob, fetched in ranged GETs of at most one chunk each. Every request
 * after the first is conditional on the ETag the first one returned, so a blob replaced while it is read fails
 * the read instead of mixing two versions (not retryable); a chunk whose response ends short fails it too (as a
 * retryable error: the response was cut off). Each GET is sent once: the SDK's own resumption of a broken
 * download is off, as are its retries, so that the store policy alone decides whether to try again.
 *
 * <p><b>Threads.</b> One thread reads (as for any {@link InputStream}); {@link #close()} may be called from any
 * other thread at any time, as the store policy's deadline timer does. A close while the reader is waiting for a
 * chunk aborts that request at once (its connection is closed, not drained: the rest of the body is never read)
 * and the waiting read fails promptly with an {@link IOException}; {@code close()} itself never waits for the
 * network. After a close, every read fails with an {@link IOException}. Once the store is closed, what is buffered
 * can still be read, but no further chunk is fetched: the read that needs one fails.
 */
final class AzureBlobInputStream extends InputStream {
  /** One downloaded chunk: its bytes, the blob's total length (-1 if the service did not say) and ETag. */
  record Chunk(byte[] bytes, int length, long total, String etag) {}

  /** No resumption of a broken response by the SDK: the store policy retries, or nobody does. */
  private static final DownloadRetryOptions NO_RESUME = new DownloadRetryOptions().setMaxRetryRequests(0);

  /** The store's errors, which name it. */
  private final AzureErrors errors;
  /** Whether the store is closed: its connections are released, and no request may start. */
  private final BooleanSupplier storeClosed;
  private final String blobName;
  private final BlobAsyncClientBase blob;
  private final String etag;
  private final long end;
  private final int chunkSize;
  // Guarded by this: the reading thread holds the monitor only while it touches these, never while it waits for a
  // response, so that close() from another thread always gets in.
  private byte[] buffer;
  private int bufferLength;
  private int bufferPosition;
  private long bufferStart; // blob offset of buffer[0]
  private boolean closed;
  private Download inFlight;

  AzureBlobInputStream(AzureErrors errors, BooleanSupplier storeClosed, String blobName, BlobAsyncClientBase blob,
      Chunk first, long start, long end, int chunkSize) {
    this.errors = errors;
    this.storeClosed = storeClosed;
    this.blobName = blobName;
    this.blob = blob;
    this.etag = first.etag();
    this.end = end;
    this.chunkSize = chunkSize;
    this.buffer = first.bytes();
    this.bufferStart = start;
    this.bufferLength = (int) Math.min(first.length(), end - start);
  }

  /**
   * Starts downloading {@code [offset, offset+count)} (or less if the blob ends first), conditional on {@code
   * ifMatch} if it is not null.
   */
  static Download download(BlobAsyncClientBase blob, long offset, int count, String ifMatch) {
    return new Download(blob, offset, count, ifMatch);
  }

  /** The total from a Content-Range header such as {@code bytes 0-99/1000}; -1 if absent or unknown. */
  static long totalLength(String contentRange) {
    if (contentRange == null) {
      return -1;
    }
    int slash = contentRange.lastIndexOf('/');
    if (slash < 0) {
      return -1;
    }
    try {
      return Long.parseLong(contentRange.substring(slash + 1).trim());
    } catch (NumberFormatException e) {
      return -1; // "*"
    }
  }

  private long position() {
    return bufferStart + bufferPosition;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    for (;;) {
      long offset;
      synchronized (this) {
        ensureOpen();
        if (len == 0) {
          return 0;
        }
        if (bufferPosition < bufferLength) {
          int n = Math.min(len, bufferLength - bufferPosition);
          System.arraycopy(buffer, bufferPosition, b, off, n);
          bufferPosition += n;
          return n;
        }
        offset = position();
        if (offset >= end) {
          return -1;
        }
      }
      fill(offset);
    }
  }

  /** Fetches the chunk at {@code offset}, waiting for it without holding the monitor. */
  private void fill(long offset) throws IOException {
    int want = (int) Math.min(chunkSize, end - offset);
    String action = "read of " + BlobStoreException.range(offset, want);
    synchronized (this) {
      ensureOpen();
    }
    if (storeClosed.getAsBoolean()) {
      // Its connections are released: a request now would open one that nothing releases.
      throw new BlobStoreException(errors.describe(), blobName, action + " failed: the store was closed");
    }
    Download download = download(blob, offset, want, etag);
    synchronized (this) {
      if (closed) {
        download.abort();
        throw abortedByClose();
      }
      inFlight = download;
    }
    Chunk chunk;
    try {
      chunk = download.await(this::abortedByClose);
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 416) {
        throw shortBlob(offset, e); // the blob is shorter than its first response said: not worth retrying
      }
      throw errors.translate(blobName, action, e);
    } catch (RuntimeException e) {
      throw errors.translate(blobName, action, e);
    } finally {
      synchronized (this) {
        if (inFlight == download) {
          inFlight = null;
        }
      }
    }
    if (chunk.length() < want) {
      // Same ETag, so the blob did not shrink: the response was cut short, and asking again may pass.
      throw new BlobStoreException(
          errors.describe(),
          blobName,
          action + " failed: the response ended after " + chunk.length() + " bytes, at offset " + (offset + chunk.length())
              + ", before the end of the requested range at " + end,
          null,
          true);
    }
    synchronized (this) {
      ensureOpen();
      buffer = chunk.bytes();
      bufferStart = offset;
      bufferLength = want;
      bufferPosition = 0;
    }
  }

  private BlobStoreException shortBlob(long at, Throwable cause) {
    return new BlobStoreException(
        errors.describe(),
        blobName,
        "blob ended at offset " + at + " before the end of the requested range at " + end,
        cause);
  }

  private IOException abortedByClose() {
    return new IOException(
        "stream over blob " + blobName + " in " + errors.describe() + " was closed while a read was waiting for its"
            + " response; the request was aborted");
  }

  @Override
  public synchronized long skip(long n) throws IOException {
    ensureOpen();
    if (n <= 0) {
      return 0;
    }
    long skipped = Math.min(n, end - position());
    long inBuffer = bufferLength - bufferPosition;
    if (skipped <= inBuffer) {
      bufferPosition += (int) skipped;
    } else {
      // Drop the buffer; the next read fetches from the new position.
      bufferStart = position() + skipped;
      bufferPosition = 0;
      bufferLength = 0;
    }
    return skipped;
  }

  @Override
  public synchronized int available() {
    return closed ? 0 : bufferLength - bufferPosition;
  }

  /**
   * Closes the stream; safe to call from any thread, any number of times. A request in flight is aborted (its
   * connection closed) and the read waiting for it fails with an {@link IOException}.
   */
  @Override
  public void close() {
    Download aborted;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      buffer = null;
      bufferLength = 0;
      bufferPosition = 0;
      aborted = inFlight;
      inFlight = null;
    }
    if (aborted != null) {
      aborted.abort();
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) {
      throw new IOException("stream over blob " + blobName + " in " + errors.describe() + " is closed");
    }
  }

  /**
   * One ranged GET in flight on the SDK's asynchronous client, collected into a buffer of the expected size. The
   * caller waits with {@link #await}; {@link #abort()}, from any thread, cancels the request (Reactor Netty then
   * closes its connection instead of reading the rest of the body) and wakes the waiter.
   */
  static final class Download {
    private final CompletableFuture<Chunk> result = new CompletableFuture<>();
    private final Disposable subscription;

    private Download(BlobAsyncClientBase blob, long offset, int count, String ifMatch) {
      BlobRequestConditions conditions = ifMatch == null ? null : new BlobRequestConditions().setIfMatch(ifMatch);
      FixedBuffer out = new FixedBuffer(count);
      Mono<Chunk> chunk = blob.downloadStreamWithResponse(new BlobRange(offset, (long) count), NO_RESUME, conditions, false)
          .flatMap(response -> response.getValue()
              .doOnNext(out::write)
              .then(Mono.fromCallable(() -> chunk(response, out, offset))));
      subscription = chunk.subscribe(
          result::complete,
          result::completeExceptionally,
          () -> result.completeExceptionally(new IOException("the download of " + BlobStoreException.range(offset, count)
              + " ended without a response")));
    }

    private static Chunk chunk(BlobDownloadAsyncResponse response, FixedBuffer out, long offset) {
      BlobDownloadHeaders headers = response.getDeserializedHeaders();
      long total = totalLength(headers.getContentRange());
      if (total < 0 && response.getStatusCode() == 200 && offset == 0) {
        total = out.count; // the service ignored the range and sent the whole blob
      }
      return new Chunk(out.buffer, out.count, total, headers.getETag());
    }

    /**
     * Waits for the chunk. A failure of the request is thrown as the SDK reported it (a {@link
     * BlobStorageException}, or a {@link RuntimeException} with the cause), for the caller to translate; after an
     * {@link #abort()}, throws {@code onAbort}'s exception; an interrupt aborts the request and throws an {@link
     * InterruptedIOException}.
     */
    Chunk await(Supplier<IOException> onAbort) throws IOException {
      try {
        return result.get();
      } catch (InterruptedException e) {
        abort();
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for a ranged read of a blob; the request was aborted");
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Aborted) {
          throw onAbort.get();
        }
        if (cause instanceof RuntimeException r) {
          throw r;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        if (cause instanceof IOException io) {
          throw new UncheckedIOException(io);
        }
        throw new IllegalStateException(cause);
      }
    }

    /**
     * Cancels the request, which closes its connection, and wakes the waiter; safe from any thread, and harmless
     * once the chunk is complete.
     */
    void abort() {
      result.completeExceptionally(new Aborted());
      subscription.dispose();
    }
  }

  /** Marks a download ended by {@link Download#abort()}, so that the waiter reports the abort, not a failure. */
  private static final class Aborted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Aborted() {
      super("aborted", null, false, false);
    }
  }

  /** Collects a download into a buffer of the expected size; more bytes than asked for is an error. */
  private static final class FixedBuffer {
    final byte[] buffer;
    int count;

    FixedBuffer(int size) {
      buffer = new byte[size];
    }

    void write(ByteBuffer bytes) {
      int len = bytes.remaining();
      if (len > buffer.length - count) {
        throw new UncheckedIOException(
            new IOException("the service sent more than the " + buffer.length + " bytes asked for"));
      }
      bytes.get(buffer, count, len);
      count += len;
    }
  }
}
