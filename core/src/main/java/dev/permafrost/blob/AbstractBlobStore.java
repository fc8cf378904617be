/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The skeleton every backend shares, as template methods (Lucene's {@code BufferedIndexInput} does the same for
 * inputs): the public methods check the store is open, validate names, prefixes and ranges, answer empty ranges,
 * make ranged responses exactly as long as asked and word every past-the-end failure the same way; a backend
 * implements the {@code protected} operations on keys it may assume valid, and translates its SDK's errors into
 * {@link BlobStoreException}s that say whether they are {@linkplain BlobStoreException#isRetryable() retryable}.
 *
 * <p>A backend's SDK must make one attempt per request: retries belong to the {@link StorePolicy}.
 */
public abstract class AbstractBlobStore implements BlobStore {
  private final AtomicBoolean closed = new AtomicBoolean();

  protected AbstractBlobStore() {}

  // ---- template methods ----

  @Override
  public final InputStream read(String blobName) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    return openBlob(blobName);
  }

  @Override
  public final InputStream read(String blobName, long offset, long length) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "negative offset or length reading " + BlobStoreException.range(offset, length) + " of blob " + blobName);
    }
    if (offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException("range " + BlobStoreException.range(offset, length) + " of blob " + blobName + " overflows");
    }
    if (length == 0) {
      long size = blobLength(blobName); // no request for no bytes, but the blob must exist and hold the offset
      if (offset > size) {
        throw pastEnd(blobName, offset, length, size, null);
      }
      return InputStream.nullInputStream();
    }
    return new ExactLengthInputStream(openRange(blobName, offset, length), describe(), blobName, offset, length);
  }

  @Override
  public final void write(String blobName, InputStream data, long length) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    Objects.requireNonNull(data, "data");
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length + " writing blob " + blobName);
    }
    putBlob(blobName, data, length);
  }

  @Override
  public final List<BlobMetadata> list(String prefix) throws IOException {
    ensureOpen();
    BlobNames.validatePrefix(prefix);
    return listBlobs(prefix);
  }

  @Override
  public final long length(String blobName) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    return blobLength(blobName);
  }

  @Override
  public final void delete(String blobName) throws IOException {
    ensureOpen();
    BlobNames.validate(blobName);
    deleteBlob(blobName);
  }

  @Override
  public final void deleteAll(Collection<String> blobNames) throws IOException {
    ensureOpen();
    for (String name : blobNames) {
      BlobNames.validate(name);
    }
    if (!blobNames.isEmpty()) {
      deleteBlobs(blobNames);
    }
  }

  /** Closes the store once; later calls do nothing. */
  @Override
  public final void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      closeStore();
    }
  }

  // ---- what a backend implements ----

  /** A stream over the whole of an existing blob; {@link BlobNotFoundException} if there is none. */
  protected abstract InputStream openBlob(String blobName) throws IOException;

  /**
   * A stream over [offset, offset + length) of a blob, {@code length > 0}: one request for exactly that range. The
   * skeleton makes the stream end after {@code length} bytes and turns an early end into a retryable failure. A
   * range past the blob's end fails with {@link #pastEnd}.
   */
  protected abstract InputStream openRange(String blobName, long offset, long length) throws IOException;

  /**
   * Writes exactly {@code length} bytes of {@code data}, atomically for readers (see {@link BlobStore#write});
   * {@link #readSource} reads them for a backend that sends a blob in one request.
   */
  protected abstract void putBlob(String blobName, InputStream data, long length) throws IOException;

  /** The blobs under {@code prefix}, following every page, in name order. */
  protected abstract List<BlobMetadata> listBlobs(String prefix) throws IOException;

  /** The length of a blob; {@link BlobNotFoundException} if there is none. */
  protected abstract long blobLength(String blobName) throws IOException;

  /** Deletes a blob; deleting a missing one is not an error. */
  protected abstract void deleteBlob(String blobName) throws IOException;

  /** Deletes blobs (never an empty collection); a backend with a batch delete overrides this. */
  protected void deleteBlobs(Collection<String> blobNames) throws IOException {
    for (String name : blobNames) {
      deleteBlob(name);
    }
  }

  /** Releases the backend's clients (once). */
  protected abstract void closeStore() throws IOException;

  // ---- helpers ----

  /** @throws IllegalStateException if the store is closed */
  protected final void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("blob store " + describe() + " is closed");
    }
  }

  /** The one message every backend gives for a range past a blob's end (not retryable). */
  protected final BlobStoreException pastEnd(String blobName, long offset, long length, long size, Throwable cause) {
    return new BlobStoreException(describe(), blobName, "range " + BlobStoreException.range(offset, length)
        + " is past the end of the blob (length " + size + ")", cause);
  }

  /**
   * Reads exactly {@code length} bytes of a write's source into an array. A source that ends early or fails makes
   * the write fail (not retryable: the source, not the store, is at fault), naming the blob.
   */
  protected final byte[] readSource(String blobName, InputStream data, int length) throws IOException {
    byte[] bytes = new byte[length];
    int n;
    try {
      n = data.readNBytes(bytes, 0, length);
    } catch (IOException e) {
      throw new BlobStoreException(describe(), blobName, "the data to write failed after some of the " + length
          + " bytes announced: " + e.getMessage(), e);
    }
    if (n < length) {
      throw new BlobStoreException(describe(), blobName, "the data to write ended after " + n + " of the " + length
          + " bytes announced", new EOFException());
    }
    return bytes;
  }

  /** Whether {@link #close()} was called. */
  protected final boolean isClosed() {
    return closed.get();
  }
}
