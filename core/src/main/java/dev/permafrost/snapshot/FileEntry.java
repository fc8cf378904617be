/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One index file of a snapshot, as the manifest records it: its name, length and Lucene checksum, the blob that
 * holds its bytes, and the bytes kept in the manifest itself. A small or metadata file is kept whole
 * ({@link #isKeptWhole()}, and has no blob); every other file keeps its header, footer and the ranges that opening
 * a {@code DirectoryReader} reads ({@link #warmRanges()}), so that a cold open needs no blob request, and (since
 * format 3) the checksums of its chunks ({@link #chunkTable()}), so that a search verifies its fetches with no request
 * for them.
 */
public final class FileEntry {
  private final String name;
  private final long length;
  private final long checksum;
  private final String blobName;
  private final byte[] whole;
  private final List<WarmRange> warmRanges;
  private final int wholeCrc32c;
  private final ChunkTable chunkTable;

  /** A range of a file's bytes kept in the manifest. */
  public record WarmRange(long offset, byte[] bytes) {
    public WarmRange {
      Objects.requireNonNull(bytes);
      if (offset < 0) {
        throw new IllegalArgumentException("negative offset " + offset);
      }
    }

    public long end() {
      return offset + bytes.length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof WarmRange r && r.offset == offset && Arrays.equals(r.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(offset) * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "[" + offset + ", " + end() + ")";
    }
  }

  FileEntry(String name, long length, long checksum, String blobName, byte[] whole, List<WarmRange> warmRanges) {
    this(name, length, checksum, blobName, whole, warmRanges, 0);
  }

  FileEntry(String name, long length, long checksum, String blobName, byte[] whole, List<WarmRange> warmRanges,
      int wholeCrc32c) {
    this(name, length, checksum, blobName, whole, warmRanges, wholeCrc32c, null);
  }

  FileEntry(String name, long length, long checksum, String blobName, byte[] whole, List<WarmRange> warmRanges,
      int wholeCrc32c, ChunkTable chunkTable) {
    this.wholeCrc32c = wholeCrc32c;
    this.chunkTable = chunkTable;
    this.name = Objects.requireNonNull(name);
    this.length = length;
    this.checksum = checksum;
    this.blobName = blobName;
    this.whole = whole;
    this.warmRanges = List.copyOf(warmRanges);
    assert (whole == null) != (blobName == null) : "a file is either kept whole or has a blob: " + name;
    assert whole == null || whole.length == length : "bytes kept whole of " + name + " do not match its length";
    assert rangesAreSortedAndDisjoint(this.warmRanges, length) : "warm ranges of " + name + ": " + this.warmRanges;
    assert chunkTable == null || (blobName != null && chunkTable.fileLength() == length)
        : "a chunk table of a " + chunkTable.fileLength() + "-byte file for " + name + " (" + length + " bytes)";
  }

  private static boolean rangesAreSortedAndDisjoint(List<WarmRange> ranges, long length) {
    long previousEnd = 0;
    for (WarmRange r : ranges) {
      if (r.offset() < previousEnd || r.end() > length) {
        return false;
      }
      previousEnd = r.end();
    }
    return true;
  }

  /**
   * An entry for a blob that is read whole and checked against the checksum in its last 8 bytes (a CodecUtil
   * footer) and the CRC32C of all of it, such as a manifest: nothing of it is kept in the manifest.
   */
  public static FileEntry ofWholeBlob(String name, String blobName, long length, long footerChecksum, int crc32c) {
    return new FileEntry(name, length, footerChecksum, blobName, null, List.of(), crc32c);
  }

  /**
   * A file whose bytes are the whole of blob {@code blobName}, with no ranges kept in the manifest: for a
   * {@link SnapshotSource} reading another format.
   *
   * @param checksum the CRC32 checksum Lucene recorded in the file's footer
   */
  public static FileEntry ofBlob(String name, long length, long checksum, String blobName) {
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length + " of file " + name);
    }
    return new FileEntry(name, length, checksum, Objects.requireNonNull(blobName, "blobName"), null, List.of());
  }

  /**
   * This file (one kept in a blob) with {@code ranges} of its bytes kept in memory, in place of those it keeps: for a
   * {@link SnapshotSource} that keeps, when a snapshot is mounted, what opening it reads ({@link
   * SnapshotSource#checkAndKeep}). The source vouches for the bytes: they are served as the file's.
   *
   * @throws IllegalArgumentException if the file is kept whole, or the ranges are not sorted, disjoint and inside it
   */
  public FileEntry withWarmRanges(List<WarmRange> ranges) {
    if (blobName == null) {
      throw new IllegalArgumentException("file " + name + " is kept whole: it has no ranges to keep");
    }
    if (!rangesAreSortedAndDisjoint(ranges, length)) {
      throw new IllegalArgumentException("ranges of file " + name + " (" + length + " bytes) are not sorted, disjoint"
          + " and inside it: " + ranges);
    }
    return new FileEntry(name, length, checksum, blobName, null, ranges, wholeCrc32c);
  }

  /** A file kept whole in the manifest: for a {@link SnapshotSource} reading another format. */
  public static FileEntry keptWhole(String name, long checksum, byte[] bytes) {
    return new FileEntry(name, bytes.length, checksum, null, bytes.clone(), List.of());
  }

  /** The file's name in the index, e.g. {@code _0.cfs}. */
  public String name() {
    return name;
  }

  /** The file's length in bytes. */
  public long length() {
    return length;
  }

  /** The CRC32 checksum Lucene recorded in the file's footer. */
  public long checksum() {
    return checksum;
  }

  /** The blob that holds the file's bytes, or null if the file is kept whole in the manifest. */
  public String blobName() {
    return blobName;
  }

  /**
   * The CRC32C of the whole file, for a file kept in a blob that is at most one chunk long (it has no
   * {@link ChunkTable}: this is its one chunk's checksum); meaningless otherwise.
   */
  public int wholeCrc32c() {
    return wholeCrc32c;
  }

  /** This entry with the CRC32C of the whole file. */
  FileEntry withWholeCrc32c(int crc) {
    return new FileEntry(name, length, checksum, blobName, whole, warmRanges, crc, chunkTable);
  }

  /**
   * The checksums of the file's chunks, as the manifest keeps them (format 3), or null: for a file kept whole or of
   * at most one chunk (no table), or of a snapshot that kept its tables as blobs (format 2,
   * {@link SnapshotManifest#chunkTableBlob}) or recorded none.
   */
  public ChunkTable chunkTable() {
    return chunkTable;
  }

  /** This entry with the checksums of its chunks. */
  FileEntry withChunkTable(ChunkTable table) {
    return new FileEntry(name, length, checksum, blobName, whole, warmRanges, wholeCrc32c, table);
  }

  /** Whether the whole file is kept in the manifest. */
  public boolean isKeptWhole() {
    return whole != null;
  }

  /** The whole file's bytes if it is kept whole in the manifest (do not modify), else null. */
  public byte[] wholeBytes() {
    return whole;
  }

  /** The ranges of a file not kept whole kept in the manifest, sorted and disjoint; empty for a file kept whole. */
  public List<WarmRange> warmRanges() {
    return warmRanges;
  }

  /** Bytes this entry keeps on heap: its names, the bytes kept in the manifest and its chunk table. */
  public long heapBytes() {
    long bytes = 64 + name.length() * 2L + (blobName == null ? 0 : blobName.length() * 2L);
    if (whole != null) {
      bytes += whole.length;
    }
    for (WarmRange r : warmRanges) {
      bytes += 32 + r.bytes().length;
    }
    if (chunkTable != null) {
      bytes += chunkTable.heapBytes();
    }
    return bytes;
  }

  @Override
  public String toString() {
    return name + " (" + length + " bytes, " + (isKeptWhole() ? "kept whole" : "blob " + blobName + ", warm " + warmRanges) + ")";
  }
}
