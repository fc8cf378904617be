/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.io.InputStream;

/**
 * A ranged response that delivers exactly the bytes asked for: it never reads past the range, and a response that
 * ends early fails with a retryable {@link BlobStoreException} naming the range (a short read, which the store
 * policy resumes). Closing it closes the response (which a backend makes abort the request).
 */
final class ExactLengthInputStream extends FilterBlobInputStream {
  private final String store;
  private final String blobName;
  private final long offset;
  private final long length;
  private long delivered;

  ExactLengthInputStream(InputStream in, String store, String blobName, long offset, long length) {
    super(in);
    this.store = store;
    this.blobName = blobName;
    this.offset = offset;
    this.length = length;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (delivered >= length) {
      return -1;
    }
    int n = in.read(b, off, (int) Math.min(len, length - delivered));
    if (n < 0) {
      throw new BlobStoreException(store, blobName, "the response for " + BlobStoreException.range(offset, length)
          + " ended after " + delivered + " bytes", null, true);
    }
    delivered += n;
    return n;
  }

  @Override
  public int available() throws IOException {
    return (int) Math.min(in.available(), length - delivered);
  }
}
