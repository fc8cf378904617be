/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FilterBlobStore;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Presents a file that an engine stored in parts (the repository's {@code chunk_size}: {@code __<uuid>.part0},
 * {@code .part1}, ...) as one blob, so that the cache reads it like any other: a read of a range becomes reads of
 * the parts it spans, one after the other in one stream, each through the store (and its policy) on its own.
 *
 * <p>Such a file is named {@code <blob>#parts-<partBytes>-<length>}, a name no engine writes; every other name
 * passes through.
 */
final class PartedBlobStore extends FilterBlobStore {
  private static final String MARK = "#parts-";

  PartedBlobStore(BlobStore in) {
    super(in);
  }

  /** The name this store reads a file of {@code length} bytes in parts of {@code partBytes} under. */
  static String name(String blob, long partBytes, long length) {
    return blob + MARK + partBytes + "-" + length;
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    Parts parts = Parts.of(blobName);
    return parts == null ? in.read(blobName) : new PartsStream(parts, 0, parts.length);
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    Parts parts = Parts.of(blobName);
    if (parts == null) {
      return in.read(blobName, offset, length);
    }
    if (offset < 0 || length < 0 || offset + length > parts.length) {
      throw new IOException("range [" + offset + ", " + (offset + length) + ") is outside " + parts.blob + " ("
          + parts.length + " bytes in parts of " + parts.partBytes + ")");
    }
    return new PartsStream(parts, offset, offset + length);
  }

  @Override
  public long length(String blobName) throws IOException {
    Parts parts = Parts.of(blobName);
    return parts == null ? in.length(blobName) : parts.length;
  }

  @Override
  public boolean exists(String blobName) throws IOException {
    Parts parts = Parts.of(blobName);
    return parts == null ? in.exists(blobName) : in.exists(parts.part(0));
  }

  private record Parts(String blob, long partBytes, long length) {
    static Parts of(String name) {
      int mark = name.lastIndexOf(MARK);
      if (mark < 0) {
        return null;
      }
      String[] numbers = name.substring(mark + MARK.length()).split("-");
      return new Parts(name.substring(0, mark), Long.parseLong(numbers[0]), Long.parseLong(numbers[1]));
    }

    String part(long index) {
      return blob + ".part" + index;
    }
  }

  /** The bytes [from, to) of a parted file: each part's stream opened when the one before it ends. */
  private final class PartsStream extends InputStream {
    private final Parts parts;
    private long position;
    private final long end;
    private InputStream current;
    private long currentEnd;
    private boolean closed;

    PartsStream(Parts parts, long from, long to) {
      this.parts = parts;
      this.position = from;
      this.end = to;
    }

    private boolean advance() throws IOException {
      while (current == null || position >= currentEnd) {
        if (current != null) {
          current.close();
          current = null;
        }
        if (position >= end || closed) {
          return false;
        }
        long index = position / parts.partBytes;
        long partStart = index * parts.partBytes;
        currentEnd = Math.min(end, partStart + parts.partBytes);
        try {
          current = in.read(parts.part(index), position - partStart, currentEnd - position);
        } catch (BlobNotFoundException e) {
          throw new BlobNotFoundException(in.describe(), parts.part(index) + " (part " + index + " of a file of "
              + parts.length + " bytes in parts of " + parts.partBytes + ")", e);
        }
      }
      return true;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (!advance()) {
        return -1;
      }
      int n = current.read(b, off, (int) Math.min(len, currentEnd - position));
      if (n < 0) {
        throw new EOFException("part " + (position / parts.partBytes) + " of " + parts.blob + " ended at "
            + position + ", before " + currentEnd);
      }
      position += n;
      return n;
    }

    @Override
    public void close() throws IOException {
      closed = true;
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }
}
