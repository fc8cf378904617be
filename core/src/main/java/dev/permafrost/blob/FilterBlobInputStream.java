/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A response stream that forwards to another, where every way of reading ({@link #read()}, {@link #skip}) goes
 * through {@link #read(byte[], int, int)}: a decorator that counts, limits, times or checks the bytes overrides that
 * one method (and {@link #close()} if it holds something), as {@link FilterBlobStore}'s decorators override only what
 * they change.
 */
public abstract class FilterBlobInputStream extends FilterInputStream {
  protected FilterBlobInputStream(InputStream in) {
    super(in);
  }

  @Override
  public abstract int read(byte[] b, int off, int len) throws IOException;

  @Override
  public final int read() throws IOException {
    byte[] one = new byte[1];
    int n;
    do {
      n = read(one, 0, 1);
    } while (n == 0);
    return n < 0 ? -1 : one[0] & 0xFF;
  }

  /** Skips by reading, so that the skipped bytes pass through {@link #read(byte[], int, int)} too. */
  @Override
  public final long skip(long n) throws IOException {
    byte[] buffer = new byte[(int) Math.min(8192, Math.max(1, n))];
    long skipped = 0;
    while (skipped < n) {
      int r = read(buffer, 0, (int) Math.min(buffer.length, n - skipped));
      if (r < 0) {
        break;
      }
      skipped += r;
    }
    return skipped;
  }

  /** Marking is not supported: the bytes are a network response. */
  @Override
  public final boolean markSupported() {
    return false;
  }
}
