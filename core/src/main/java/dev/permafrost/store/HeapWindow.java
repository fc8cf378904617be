/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.EOFException;
import java.io.IOException;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.BitUtil;

/**
 * Positional little-endian reads over a byte array: how a {@link BlobIndexInput} serves bytes kept in the manifest
 * and bytes read directly from the store. Immutable, so one instance can serve many inputs.
 */
final class HeapWindow implements RandomAccessInput {
  private final byte[] bytes;

  HeapWindow(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public long length() {
    return bytes.length;
  }

  @Override
  public byte readByte(long pos) throws IOException {
    try {
      return bytes[(int) pos];
    } catch (IndexOutOfBoundsException e) {
      throw eof(pos, 1);
    }
  }

  @Override
  public void readBytes(long pos, byte[] dest, int offset, int length) throws IOException {
    if (pos < 0 || pos + length > bytes.length) {
      throw eof(pos, length);
    }
    System.arraycopy(bytes, (int) pos, dest, offset, length);
  }

  @Override
  public short readShort(long pos) throws IOException {
    try {
      return (short) BitUtil.VH_LE_SHORT.get(bytes, (int) pos);
    } catch (IndexOutOfBoundsException e) {
      throw eof(pos, Short.BYTES);
    }
  }

  @Override
  public int readInt(long pos) throws IOException {
    try {
      return (int) BitUtil.VH_LE_INT.get(bytes, (int) pos);
    } catch (IndexOutOfBoundsException e) {
      throw eof(pos, Integer.BYTES);
    }
  }

  @Override
  public long readLong(long pos) throws IOException {
    try {
      return (long) BitUtil.VH_LE_LONG.get(bytes, (int) pos);
    } catch (IndexOutOfBoundsException e) {
      throw eof(pos, Long.BYTES);
    }
  }

  private EOFException eof(long pos, int length) {
    return new EOFException("read of " + length + " bytes at " + pos + " is past the end of a " + bytes.length + " byte window");
  }
}
