/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import com.azure.core.util.Context;
import com.azure.storage.blob.models.BlobDownloadHeaders;
import com.azure.storage.blob.models.BlobDownloadResponse;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.specialized.BlobClientBase;
import dev.permafrost.blob.BlobStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * A stream over {@code [start, end)} of a blob, fetched in ranged GETs of at most one chunk each. Every request
 * after the first is conditional on the ETag the first one returned, so a blob replaced while it is read fails
 * the read instead of mixing two versions; a chunk that comes back short fails it too.
 */
final class AzureBlobInputStream extends InputStream {
  /** One downloaded chunk: its bytes, the blob's total length (-1 if the service did not say) and ETag. */
  record Chunk(byte[] bytes, int length, long total, String etag) {}

  private final AzureBlobStore store;
  private final String blobName;
  private final BlobClientBase blob;
  private final String etag;
  private final long end;
  private final int chunkSize;
  private byte[] buffer;
  private int bufferLength;
  private int bufferPosition;
  private long bufferStart; // blob offset of buffer[0]
  private boolean closed;

  AzureBlobInputStream(
      AzureBlobStore store, String blobName, BlobClientBase blob, Chunk first, long start, long end, int chunkSize) {
    this.store = store;
    this.blobName = blobName;
    this.blob = blob;
    this.etag = first.etag();
    this.end = end;
    this.chunkSize = chunkSize;
    this.buffer = first.bytes();
    this.bufferStart = start;
    this.bufferLength = (int) Math.min(first.length(), end - start);
  }

  /** Downloads {@code [offset, offset+count)}, or less if the blob ends first. */
  static Chunk fetch(BlobClientBase blob, long offset, int count, String ifMatch) {
    FixedOutputStream out = new FixedOutputStream(count);
    BlobRequestConditions conditions = ifMatch == null ? null : new BlobRequestConditions().setIfMatch(ifMatch);
    BlobDownloadResponse response = blob.downloadStreamWithResponse(
        out, new BlobRange(offset, (long) count), null, conditions, false, null, Context.NONE);
    BlobDownloadHeaders headers = response.getDeserializedHeaders();
    long total = totalLength(headers.getContentRange());
    if (total < 0 && response.getStatusCode() == 200 && offset == 0) {
      total = out.count; // the service ignored the range and sent the whole blob
    }
    return new Chunk(out.buffer, out.count, total, headers.getETag());
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
    ensureOpen();
    if (len == 0) {
      return 0;
    }
    if (bufferPosition >= bufferLength) {
      if (position() >= end) {
        return -1;
      }
      fill();
    }
    int n = Math.min(len, bufferLength - bufferPosition);
    System.arraycopy(buffer, bufferPosition, b, off, n);
    bufferPosition += n;
    return n;
  }

  private void fill() throws IOException {
    long offset = position();
    int want = (int) Math.min(chunkSize, end - offset);
    Chunk chunk;
    try {
      chunk = fetch(blob, offset, want, etag);
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 416) {
        throw shortBlob(offset, e);
      }
      throw AzureErrors.translate(store, blobName, "read of " + BlobStoreException.range(offset, want), e);
    } catch (RuntimeException e) {
      throw AzureErrors.translate(store, blobName, "read of " + BlobStoreException.range(offset, want), e);
    }
    if (chunk.length() < want) {
      throw shortBlob(offset + chunk.length(), null);
    }
    buffer = chunk.bytes();
    bufferStart = offset;
    bufferLength = want;
    bufferPosition = 0;
  }

  private BlobStoreException shortBlob(long at, Throwable cause) {
    return new BlobStoreException(
        store.describe(),
        blobName,
        "blob ended at offset " + at + " before the end of the requested range at " + end,
        cause);
  }

  @Override
  public long skip(long n) throws IOException {
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
  public int available() {
    return closed ? 0 : bufferLength - bufferPosition;
  }

  @Override
  public void close() {
    closed = true;
    buffer = null;
  }

  private void ensureOpen() throws IOException {
    if (closed) {
      throw new IOException("stream over blob " + blobName + " in " + store.describe() + " is closed");
    }
  }

  /** Collects a download into a buffer of the expected size; more bytes than asked for is an error. */
  private static final class FixedOutputStream extends OutputStream {
    final byte[] buffer;
    int count;

    FixedOutputStream(int size) {
      buffer = new byte[size];
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (len > buffer.length - count) {
        throw new IOException("the service sent more than the " + buffer.length + " bytes asked for");
      }
      System.arraycopy(b, off, buffer, count, len);
      count += len;
    }
  }
}
