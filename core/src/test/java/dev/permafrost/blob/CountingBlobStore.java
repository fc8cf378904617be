/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A store that counts what passes through it: requests and bytes read and written. For tests. */
public final class CountingBlobStore extends FilterBlobStore {
  public final AtomicLong readRequests = new AtomicLong();
  public final AtomicLong bytesRead = new AtomicLong();
  public final AtomicLong writeRequests = new AtomicLong();
  public final AtomicLong bytesWritten = new AtomicLong();
  public final AtomicLong otherRequests = new AtomicLong();

  public CountingBlobStore(BlobStore in) {
    super(in);
  }

  public void reset() {
    readRequests.set(0);
    bytesRead.set(0);
    writeRequests.set(0);
    bytesWritten.set(0);
    otherRequests.set(0);
  }

  /** Every request of any kind. */
  public long requests() {
    return readRequests.get() + writeRequests.get() + otherRequests.get();
  }

  private InputStream counted(InputStream stream) {
    return new FilterInputStream(stream) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          bytesRead.incrementAndGet();
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
          bytesRead.addAndGet(n);
        }
        return n;
      }
    };
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    readRequests.incrementAndGet();
    return counted(super.read(blobName));
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    readRequests.incrementAndGet();
    return counted(super.read(blobName, offset, length));
  }

  @Override
  public void write(String blobName, InputStream data, long length) throws IOException {
    writeRequests.incrementAndGet();
    super.write(blobName, data, length);
    bytesWritten.addAndGet(length);
  }

  @Override
  public List<BlobMetadata> list(String prefix) throws IOException {
    otherRequests.incrementAndGet();
    return super.list(prefix);
  }

  @Override
  public long length(String blobName) throws IOException {
    otherRequests.incrementAndGet();
    return super.length(blobName);
  }

  @Override
  public boolean exists(String blobName) throws IOException {
    otherRequests.incrementAndGet();
    return super.exists(blobName);
  }

  @Override
  public void delete(String blobName) throws IOException {
    otherRequests.incrementAndGet();
    super.delete(blobName);
  }

  @Override
  public void deleteAll(Collection<String> blobNames) throws IOException {
    otherRequests.incrementAndGet();
    super.deleteAll(blobNames);
  }
}
