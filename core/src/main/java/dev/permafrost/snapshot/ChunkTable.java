/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.BufferedChecksumIndexInput;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.ByteBuffersIndexOutput;
import org.apache.lucene.store.ChecksumIndexInput;

/**
 * The CRC32C of every fixed-size chunk of one index file, recorded when the snapshot is taken, so that every range
 * read from the store can be verified before a byte of it is used. Chunk {@code i} covers
 * {@code [i * chunkSize, min((i + 1) * chunkSize, length))} of the file.
 *
 * <p>Since manifest format 3 a snapshot keeps every table in its manifest, with the file's entry
 * ({@link FileEntry#chunkTable()}), covered by the manifest's footer checksum: a search verifies its fetches with no
 * request for a table. A snapshot of format 2 kept each table as its own blob, {@link #blobName(String, int)} beside
 * the file's blob, framed by Lucene's {@link CodecUtil} header and checksummed footer and naming the file it
 * describes (length and Lucene checksum), so that a damaged or mismatched table is detected when it is read; such
 * snapshots are still read that way ({@link SnapshotManifest#chunkTableBlob}). Files of at most one chunk have no
 * table: they are always fetched whole and checked against their CRC32C and Lucene checksum instead
 * ({@link #hasTable}).
 */
public final class ChunkTable {
  static final String CODEC = "PermafrostChunks";
  static final int VERSION = 1;
  /** The smallest and largest chunk sizes a snapshot may use. */
  public static final int MIN_CHUNK_SIZE = 4 << 10;
  public static final int MAX_CHUNK_SIZE = 1 << 20;

  private final long fileLength;
  private final int chunkSize;
  private final int[] checksums;

  private ChunkTable(long fileLength, int chunkSize, int[] checksums) {
    this.fileLength = fileLength;
    this.chunkSize = chunkSize;
    this.checksums = checksums;
    assert checksums.length == chunkCount(fileLength, chunkSize);
  }

  /**
   * A table of recorded checksums, as a manifest of format 3 keeps them.
   *
   * @throws IllegalArgumentException if their count is not the number of chunks of a file of {@code fileLength} bytes
   */
  static ChunkTable of(long fileLength, int chunkSize, int[] checksums) {
    if (checksums.length != chunkCount(fileLength, chunkSize)) {
      throw new IllegalArgumentException(checksums.length + " checksums for " + chunkCount(fileLength, chunkSize)
          + " chunks of " + chunkSize + " bytes in a file of " + fileLength + " bytes");
    }
    return new ChunkTable(fileLength, chunkSize, checksums);
  }

  /**
   * The blob holding the table of the file in {@code fileBlob}, for chunks of {@code chunkSize} bytes, in a snapshot
   * of format 2 (later formats keep tables in the manifest).
   */
  public static String blobName(String fileBlob, int chunkSize) {
    return fileBlob + ".crc32c-" + (chunkSize >> 10) + "k";
  }

  /** Whether a file of {@code length} bytes in a snapshot with chunks of {@code chunkSize} (0: none) has a table. */
  public static boolean hasTable(long length, int chunkSize) {
    return chunkSize > 0 && length > chunkSize;
  }

  static int chunkCount(long length, int chunkSize) {
    return Math.toIntExact((length + chunkSize - 1) / chunkSize);
  }

  /** The CRC32C of {@code length} bytes of {@code bytes} from {@code offset}. */
  public static int crc32c(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  public int chunkSize() {
    return chunkSize;
  }

  /** The length of the file the table describes. */
  public long fileLength() {
    return fileLength;
  }

  public int chunkCount() {
    return checksums.length;
  }

  /** The recorded CRC32C of chunk {@code chunk}. */
  public int checksum(int chunk) {
    return checksums[chunk];
  }

  /** The length of the blob {@link #toBytes} writes for a file of {@code fileLength} bytes in chunks of {@code chunkSize}. */
  public static long blobLength(long fileLength, int chunkSize) {
    int count = chunkCount(fileLength, chunkSize);
    return CodecUtil.headerLength(CODEC) + vLongLength(fileLength) + Long.BYTES + vLongLength(chunkSize)
        + vLongLength(count) + (long) Integer.BYTES * count + CodecUtil.footerLength();
  }

  /** How many bytes {@code DataOutput#writeVLong} (or {@code writeVInt}, for a non-negative int) writes for {@code v}. */
  private static int vLongLength(long v) {
    assert v >= 0 : v;
    return Math.max(1, (64 - Long.numberOfLeadingZeros(v) + 6) / 7);
  }

  /** The recorded checksums in chunk order, for writing them into a manifest. */
  int[] checksums() {
    return checksums;
  }

  /** Heap this table holds. */
  public long heapBytes() {
    return 32 + 4L * checksums.length;
  }

  byte[] toBytes(long fileChecksum) throws IOException {
    ByteBuffersDataOutput data = new ByteBuffersDataOutput();
    try (ByteBuffersIndexOutput out = new ByteBuffersIndexOutput(data, "chunk table", "chunk table")) {
      CodecUtil.writeHeader(out, CODEC, VERSION);
      out.writeVLong(fileLength);
      out.writeLong(fileChecksum);
      out.writeVInt(chunkSize);
      out.writeVInt(checksums.length);
      for (int c : checksums) {
        out.writeInt(c);
      }
      CodecUtil.writeFooter(out);
    }
    return data.toArrayCopy();
  }

  /**
   * Parses and checks a table read from the store: its footer checksum, its version, and that it describes the
   * file {@code fileName} of {@code fileLength} bytes with Lucene checksum {@code fileChecksum}, in chunks of
   * {@code chunkSize}.
   *
   * @param source the store and blob it came from, for messages
   * @throws CorruptIndexException naming {@code source} if the table is damaged or describes another file
   */
  public static ChunkTable parse(byte[] bytes, String fileName, long fileLength, long fileChecksum, int chunkSize,
      String source) throws CorruptIndexException {
    try (ChecksumIndexInput in = new BufferedChecksumIndexInput(
        new ByteBuffersIndexInput(new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), source))) {
      if (bytes.length < CodecUtil.footerLength()) {
        throw new EOFException("only " + bytes.length + " bytes");
      }
      CodecUtil.checkHeader(in, CODEC, VERSION, VERSION);
      long length = in.readVLong();
      long checksum = in.readLong();
      int size = in.readVInt();
      int count = in.readVInt();
      if (length != fileLength || checksum != fileChecksum || size != chunkSize) {
        throw new CorruptIndexException("the table describes a file of " + length + " bytes with checksum "
            + Long.toHexString(checksum) + " in chunks of " + size + ", not " + fileName + " (" + fileLength
            + " bytes, checksum " + Long.toHexString(fileChecksum) + ", chunks of " + chunkSize + ")", source);
      }
      if (count != chunkCount(length, size)) {
        throw new CorruptIndexException("the table has " + count + " chunks, not " + chunkCount(length, size), source);
      }
      int[] checksums = new int[count];
      for (int i = 0; i < count; i++) {
        checksums[i] = in.readInt();
      }
      CodecUtil.checkFooter(in);
      return new ChunkTable(length, size, checksums);
    } catch (CorruptIndexException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new CorruptIndexException("chunk table is truncated or corrupt: " + e.getMessage(), source, e);
    }
  }

  /** Computes a table from a file's bytes as they stream past, in any pieces. */
  static final class Builder {
    private final long fileLength;
    private final int chunkSize;
    private final int[] checksums;
    private final CRC32C crc = new CRC32C();
    private long position;

    Builder(long fileLength, int chunkSize) {
      this.fileLength = fileLength;
      this.chunkSize = chunkSize;
      this.checksums = new int[chunkCount(fileLength, chunkSize)];
    }

    void update(byte[] bytes, int offset, int length) {
      while (length > 0) {
        int inChunk = (int) (position % chunkSize);
        int n = (int) Math.min(length, chunkSize - inChunk);
        crc.update(bytes, offset, n);
        position += n;
        offset += n;
        length -= n;
        if (position % chunkSize == 0 || position == fileLength) {
          checksums[(int) ((position - 1) / chunkSize)] = (int) crc.getValue();
          crc.reset();
        }
      }
    }

    void reset() {
      crc.reset();
      position = 0;
    }

    ChunkTable build() {
      if (position != fileLength) {
        throw new IllegalStateException("saw " + position + " of " + fileLength + " bytes");
      }
      return new ChunkTable(fileLength, chunkSize, checksums.clone());
    }
  }
}
