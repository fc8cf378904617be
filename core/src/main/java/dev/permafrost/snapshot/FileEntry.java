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
 * ({@link #isInlined()}, and has no blob); every other file keeps its header, footer and the ranges that opening
 * a {@code DirectoryReader} reads ({@link #hotRanges()}), so that a cold open needs no blob request.
 */
public final class FileEntry {
  private final String name;
  private final long length;
  private final long checksum;
  private final String blobName;
  private final byte[] inlined;
  private final List<HotRange> hotRanges;
  private final int wholeCrc32c;

  /** A range of a file's bytes kept in the manifest. */
  public record HotRange(long offset, byte[] bytes) {
    public HotRange {
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
      return o instanceof HotRange r && r.offset == offset && Arrays.equals(r.bytes, bytes);
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

  FileEntry(String name, long length, long checksum, String blobName, byte[] inlined, List<HotRange> hotRanges) {
    this(name, length, checksum, blobName, inlined, hotRanges, 0);
  }

  FileEntry(String name, long length, long checksum, String blobName, byte[] inlined, List<HotRange> hotRanges,
      int wholeCrc32c) {
    this.wholeCrc32c = wholeCrc32c;
    this.name = Objects.requireNonNull(name);
    this.length = length;
    this.checksum = checksum;
    this.blobName = blobName;
    this.inlined = inlined;
    this.hotRanges = List.copyOf(hotRanges);
    assert (inlined == null) != (blobName == null) : "a file is either inlined or has a blob: " + name;
    assert inlined == null || inlined.length == length : "inlined bytes of " + name + " do not match its length";
    assert rangesAreSortedAndDisjoint(this.hotRanges, length) : "hot ranges of " + name + ": " + this.hotRanges;
  }

  private static boolean rangesAreSortedAndDisjoint(List<HotRange> ranges, long length) {
    long previousEnd = 0;
    for (HotRange r : ranges) {
      if (r.offset() < previousEnd || r.end() > length) {
        return false;
      }
      previousEnd = r.end();
    }
    return true;
  }

  /**
   * An entry for a blob that is read whole and checked against the checksum in its last 8 bytes (a CodecUtil
   * footer) and the CRC32C of all of it, such as a manifest: nothing of it is kept inline.
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

  /** A file kept whole in the manifest: for a {@link SnapshotSource} reading another format. */
  public static FileEntry ofInlined(String name, long checksum, byte[] bytes) {
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

  /** The blob that holds the file's bytes, or null if the file is inlined in the manifest. */
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
    return new FileEntry(name, length, checksum, blobName, inlined, hotRanges, crc);
  }

  /** Whether the whole file is kept in the manifest. */
  public boolean isInlined() {
    return inlined != null;
  }

  /** The whole file's bytes if it is inlined (do not modify), else null. */
  public byte[] inlinedBytes() {
    return inlined;
  }

  /** The ranges of a non-inlined file kept in the manifest, sorted and disjoint; empty for an inlined file. */
  public List<HotRange> hotRanges() {
    return hotRanges;
  }

  /** Bytes this entry keeps on heap. */
  public long heapBytes() {
    long bytes = 64 + name.length() * 2L + (blobName == null ? 0 : blobName.length() * 2L);
    if (inlined != null) {
      bytes += inlined.length;
    }
    for (HotRange r : hotRanges) {
      bytes += 32 + r.bytes().length;
    }
    return bytes;
  }

  @Override
  public String toString() {
    return name + " (" + length + " bytes, " + (isInlined() ? "inlined" : "blob " + blobName + ", hot " + hotRanges) + ")";
  }
}
