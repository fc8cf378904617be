/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.IndexInput;

/**
 * Streams a Lucene index file once, computing its CRC32 on the way and checking it against the checksum in the
 * file's footer before the last bytes are handed out, and (optionally) building its {@link ChunkTable}. A mismatch
 * throws {@link CorruptIndexException} from {@code read}, so the store aborts the upload and no blob appears.
 *
 * <p>Supports {@code mark} at the start and {@code reset} (it seeks the file back to 0), so that a store policy
 * can retry an upload.
 */
final class ChecksumVerifyingStream extends InputStream {
  private final IndexInput in;
  private final long length;
  private final long expectedChecksum;
  private final CRC32 crc = new CRC32();
  private final ChunkTable.Builder table;
  private final byte[] footer = new byte[CodecUtil.footerLength()];
  private long position;
  private CorruptIndexException failure;

  /** @param chunkSize the chunk size of the table to build, or 0 for none */
  ChecksumVerifyingStream(IndexInput in, long expectedChecksum, int chunkSize) {
    this.in = in;
    this.length = in.length();
    this.expectedChecksum = expectedChecksum;
    this.table = chunkSize > 0 ? new ChunkTable.Builder(length, chunkSize) : null;
    assert length >= footer.length;
  }

  /** The corruption found, if any (also thrown from read). */
  CorruptIndexException failure() {
    return failure;
  }

  /** The chunk table of the file, once it has been read to the end. */
  ChunkTable table() {
    return table.build();
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (failure != null) {
      throw failure;
    }
    if (position >= length) {
      return -1;
    }
    int n = (int) Math.min(len, length - position);
    in.readBytes(b, off, n);
    long checksummedEnd = length - Long.BYTES; // the checksum itself is not checksummed
    if (position < checksummedEnd) {
      crc.update(b, off, (int) (Math.min(position + n, checksummedEnd) - position));
    }
    if (table != null) {
      table.update(b, off, n);
    }
    long footerStart = length - footer.length;
    for (long p = Math.max(position, footerStart); p < position + n; p++) {
      footer[(int) (p - footerStart)] = b[off + (int) (p - position)];
    }
    position += n;
    if (position == length) {
      verify();
    }
    return n;
  }

  /** Reads the rest of the file, for its checksum and table, without handing out the bytes. */
  void drain() throws IOException {
    byte[] buffer = new byte[64 << 10];
    while (read(buffer, 0, buffer.length) >= 0) {
      // the checks run as the bytes pass
    }
  }

  @Override
  public boolean markSupported() {
    return true;
  }

  /** Marks the start; a mark anywhere else is not supported. */
  @Override
  public void mark(int readLimit) {
    if (position != 0) {
      throw new IllegalStateException("can only mark the start of the stream, not position " + position);
    }
  }

  @Override
  public void reset() throws IOException {
    in.seek(0);
    crc.reset();
    if (table != null) {
      table.reset();
    }
    position = 0;
    failure = null;
  }

  private void verify() throws CorruptIndexException {
    long stored = 0;
    for (int i = footer.length - Long.BYTES; i < footer.length; i++) {
      stored = (stored << 8) | (footer[i] & 0xFFL);
    }
    long actual = crc.getValue();
    if (stored != expectedChecksum || actual != expectedChecksum) {
      failure =
          new CorruptIndexException(
              "checksum failed: the footer says " + Long.toHexString(expectedChecksum) + " but the bytes read have "
                  + Long.toHexString(actual) + " (the local file is corrupt)",
              in);
      throw failure;
    }
  }
}
