/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FilterBlobStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;

/**
 * Makes every read wait a fixed time to first byte, as object storage does, so that requests sent together overlap
 * and waves of dependent requests can be told apart from requests that merely follow each other.
 */
final class FirstByteLatencyBlobStore extends FilterBlobStore {
  private final long millis;

  FirstByteLatencyBlobStore(BlobStore in, long millis) {
    super(in);
    this.millis = millis;
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    pause();
    return super.read(blobName);
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    pause();
    return super.read(blobName, offset, length);
  }

  private void pause() throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the first byte");
    }
  }
}
