/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.store.BufferedChecksumIndexInput;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.ByteBuffersIndexOutput;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.DataInput;
import org.apache.lucene.store.DataOutput;
import org.apache.lucene.util.BitUtil;

/**
 * The immutable description of one snapshot: the commit's metadata and, for every index file, its length,
 * checksum, blob and the bytes kept in the manifest. Stored as one blob, framed by Lucene's {@link CodecUtil} header and
 * checksummed footer, so that truncation and corruption are detected when it is read.
 */
public final class SnapshotManifest {
  static final String CODEC = "PermafrostSnapshot";
  static final int VERSION_START = 1;
  /** Adds the chunk size of the files' {@link ChunkTable}s, and the CRC32C of each file of at most one chunk. */
  static final int VERSION_CHUNK_TABLES = 2;
  static final int VERSION_CURRENT = VERSION_CHUNK_TABLES;

  private final SnapshotInfo info;
  private final String segmentsFileName;
  private final int chunkSize;
  private final List<FileEntry> files;
  private final Map<String, FileEntry> byName;
  /** Where the manifest came from, when it was read from bytes (null for one being written). */
  private final ManifestRef ref;

  SnapshotManifest(SnapshotInfo info, String segmentsFileName, int chunkSize, List<FileEntry> files) {
    this(info, segmentsFileName, chunkSize, files, null);
  }

  private SnapshotManifest(SnapshotInfo info, String segmentsFileName, int chunkSize, List<FileEntry> files, ManifestRef ref) {
    this.ref = ref;
    this.info = info;
    this.segmentsFileName = segmentsFileName;
    this.chunkSize = chunkSize;
    this.files = List.copyOf(files);
    Map<String, FileEntry> map = new LinkedHashMap<>();
    for (FileEntry f : files) {
      if (map.put(f.name(), f) != null) {
        throw new IllegalArgumentException("file " + f.name() + " is listed twice");
      }
    }
    this.byName = Collections.unmodifiableMap(map);
    assert byName.containsKey(segmentsFileName) : "the commit's segments file is not in the manifest";
  }

  public SnapshotInfo info() {
    return info;
  }

  public String name() {
    return info.name();
  }

  /** The commit's {@code segments_N} file. */
  public String segmentsFileName() {
    return segmentsFileName;
  }

  /** Every index file of the commit, in name order. */
  public List<FileEntry> files() {
    return files;
  }

  /**
   * The size of the chunks whose checksums the snapshot recorded ({@link ChunkTable}), or 0 if it recorded none
   * (a snapshot taken before format version 2): its files are then verified only when fetched whole.
   */
  public int chunkSize() {
    return chunkSize;
  }

  /** The blob of {@code file}'s chunk table, or null if it has none (kept whole, at most one chunk, or no tables). */
  public String chunkTableBlob(FileEntry file) {
    return file.blobName() != null && ChunkTable.hasTable(file.length(), chunkSize)
        ? ChunkTable.blobName(file.blobName(), chunkSize) : null;
  }

  /**
   * A manifest that a {@link SnapshotSource} made from another format's metadata: files without chunk tables (each
   * is verified against its Lucene checksum when it is fetched whole, not range by range), and {@code ref} naming
   * the blob its facts were read from, so that the shared cache can keep that blob and the source parse it again.
   *
   * @throws IllegalArgumentException if {@code segmentsFileName} is not among {@code files}, or a name is listed twice
   */
  public static SnapshotManifest of(SnapshotInfo info, String segmentsFileName, List<FileEntry> files, ManifestRef ref) {
    Objects.requireNonNull(ref, "ref");
    Set<String> names = new HashSet<>();
    for (FileEntry f : files) {
      if (!names.add(f.name())) {
        throw new IllegalArgumentException("file " + f.name() + " is listed twice in snapshot '" + info.name() + "'");
      }
    }
    if (!names.contains(segmentsFileName)) {
      throw new IllegalArgumentException("the segments file " + segmentsFileName + " of snapshot '" + info.name()
          + "' is not among its files");
    }
    return new SnapshotManifest(info, segmentsFileName, 0, List.copyOf(files), ref);
  }

  /** The manifest as a blob (to read it again), or null if it was not read from a store. */
  public ManifestRef ref() {
    return ref;
  }

  /** The named file, or null. */
  public FileEntry file(String name) {
    return byName.get(name);
  }

  /** Heap held by the file entries (names, whole files and warm ranges). */
  public long heapBytes() {
    long bytes = 256;
    for (FileEntry f : files) {
      bytes += f.heapBytes();
    }
    return bytes;
  }

  byte[] toBytes() throws IOException {
    return toBytes(VERSION_CURRENT);
  }

  /** The manifest in format {@code version} (an older one only for tests of reading old snapshots). */
  byte[] toBytes(int version) throws IOException {
    if (version < VERSION_CHUNK_TABLES && chunkSize != 0) {
      throw new IllegalArgumentException("format " + version + " cannot record chunk tables");
    }
    ByteBuffersDataOutput data = new ByteBuffersDataOutput();
    try (ByteBuffersIndexOutput out = new ByteBuffersIndexOutput(data, "manifest " + info.name(), "manifest")) {
      CodecUtil.writeHeader(out, CODEC, version);
      out.writeString(info.name());
      out.writeLong(info.createdAt().toEpochMilli());
      out.writeString(info.luceneVersion());
      out.writeVLong(info.generation());
      out.writeString(segmentsFileName);
      out.writeVInt(info.segmentCount());
      out.writeVLong(info.maxDoc());
      out.writeVLong(info.numDocs());
      out.writeMapOfStrings(info.userData());
      out.writeVInt(info.pointRanges().size());
      for (PointRange p : info.pointRanges().values()) {
        out.writeString(p.field());
        out.writeVInt(p.numDimensions());
        out.writeVInt(p.bytesPerDimension());
        writeBytes(out, p.minPackedValue());
        writeBytes(out, p.maxPackedValue());
        out.writeVLong(p.docCount());
      }
      if (version >= VERSION_CHUNK_TABLES) {
        out.writeVInt(chunkSize);
      }
      out.writeVInt(files.size());
      for (FileEntry f : files) {
        out.writeString(f.name());
        out.writeVLong(f.length());
        out.writeLong(f.checksum());
        if (f.isKeptWhole()) {
          out.writeByte((byte) 1);
          out.writeBytes(f.wholeBytes(), f.wholeBytes().length);
        } else {
          out.writeByte((byte) 0);
          out.writeString(f.blobName());
          out.writeVInt(f.warmRanges().size());
          for (FileEntry.WarmRange r : f.warmRanges()) {
            out.writeVLong(r.offset());
            writeBytes(out, r.bytes());
          }
          if (version >= VERSION_CHUNK_TABLES && chunkSize > 0 && !ChunkTable.hasTable(f.length(), chunkSize)) {
            out.writeInt(f.wholeCrc32c());
          }
        }
      }
      CodecUtil.writeFooter(out);
    }
    return data.toArrayCopy();
  }

  private static void writeBytes(DataOutput out, byte[] bytes) throws IOException {
    out.writeVInt(bytes.length);
    out.writeBytes(bytes, bytes.length);
  }

  private static byte[] readBytes(DataInput in, long limit) throws IOException {
    int length = in.readVInt();
    if (length < 0 || length > limit) {
      throw new CorruptIndexException("byte run of length " + length + " is out of bounds", "manifest");
    }
    byte[] bytes = new byte[length];
    in.readBytes(bytes, 0, length);
    return bytes;
  }

  /**
   * Parses a manifest, checking its header, structure and footer checksum.
   *
   * @param blob the blob the bytes were read from, which the manifest's {@link #ref()} names
   * @param source where the bytes came from, for messages (store and blob)
   * @throws SnapshotException.CorruptManifest if the bytes are truncated or corrupt
   * @throws SnapshotException.UnsupportedFormat if a newer Permafrost wrote them
   */
  static SnapshotManifest fromBytes(byte[] bytes, String blob, String source) throws SnapshotException {
    try (ChecksumIndexInput in =
        new BufferedChecksumIndexInput(
            new ByteBuffersIndexInput(new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), source))) {
      if (bytes.length < CodecUtil.footerLength()) {
        throw new EOFException("manifest is only " + bytes.length + " bytes long");
      }
      int version = CodecUtil.checkHeader(in, CODEC, VERSION_START, VERSION_CURRENT);
      String name = in.readString();
      Instant createdAt = Instant.ofEpochMilli(in.readLong());
      String luceneVersion = in.readString();
      long generation = in.readVLong();
      String segmentsFileName = in.readString();
      int segmentCount = in.readVInt();
      long maxDoc = in.readVLong();
      long numDocs = in.readVLong();
      Map<String, String> userData = in.readMapOfStrings();
      int pointCount = in.readVInt();
      Map<String, PointRange> points = new LinkedHashMap<>();
      for (int i = 0; i < pointCount; i++) {
        String field = in.readString();
        int numDims = in.readVInt();
        int bytesPerDim = in.readVInt();
        byte[] min = readBytes(in, bytes.length);
        byte[] max = readBytes(in, bytes.length);
        long docCount = in.readVLong();
        points.put(field, new PointRange(field, numDims, bytesPerDim, min, max, docCount));
      }
      int chunkSize = version >= VERSION_CHUNK_TABLES ? in.readVInt() : 0;
      if (chunkSize != 0 && (chunkSize < ChunkTable.MIN_CHUNK_SIZE || chunkSize > ChunkTable.MAX_CHUNK_SIZE
          || Integer.bitCount(chunkSize) != 1)) {
        throw new CorruptIndexException("chunk size " + chunkSize + " is not a power of two between "
            + ChunkTable.MIN_CHUNK_SIZE + " and " + ChunkTable.MAX_CHUNK_SIZE, source);
      }
      int fileCount = in.readVInt();
      if (fileCount < 0 || fileCount > bytes.length) {
        throw new CorruptIndexException("file count " + fileCount + " is out of bounds", source);
      }
      List<FileEntry> files = new ArrayList<>(fileCount);
      long totalBytes = 0;
      for (int i = 0; i < fileCount; i++) {
        String fileName = in.readString();
        long length = in.readVLong();
        long checksum = in.readLong();
        byte kind = in.readByte();
        if (kind == 1) {
          if (length > bytes.length) {
            throw new CorruptIndexException("file kept whole " + fileName + " is longer than the manifest", source);
          }
          byte[] whole = new byte[(int) length];
          in.readBytes(whole, 0, whole.length);
          files.add(new FileEntry(fileName, length, checksum, null, whole, List.of()));
        } else if (kind == 0) {
          String blobName = in.readString();
          int rangeCount = in.readVInt();
          List<FileEntry.WarmRange> ranges = new ArrayList<>(rangeCount);
          long previousEnd = 0;
          for (int r = 0; r < rangeCount; r++) {
            long offset = in.readVLong();
            byte[] warm = readBytes(in, bytes.length);
            if (offset < previousEnd || offset + warm.length > length) {
              throw new CorruptIndexException("warm range of " + fileName + " is out of order or bounds", source);
            }
            previousEnd = offset + warm.length;
            ranges.add(new FileEntry.WarmRange(offset, warm));
          }
          int wholeCrc32c = chunkSize > 0 && !ChunkTable.hasTable(length, chunkSize) ? in.readInt() : 0;
          files.add(new FileEntry(fileName, length, checksum, blobName, null, ranges, wholeCrc32c));
        } else {
          throw new CorruptIndexException("unknown file kind " + kind + " for " + fileName, source);
        }
        totalBytes += length;
      }
      CodecUtil.checkFooter(in);
      SnapshotInfo info =
          new SnapshotInfo(
              name, createdAt, luceneVersion, generation, segmentCount, maxDoc, numDocs, fileCount, totalBytes,
              Collections.unmodifiableMap(userData), Collections.unmodifiableMap(points));
      if (files.stream().noneMatch(f -> f.name().equals(segmentsFileName))) {
        throw new CorruptIndexException("the segments file " + segmentsFileName + " is not listed", source);
      }
      ManifestRef ref = new ManifestRef(name, blob, bytes.length,
          (long) BitUtil.VH_BE_LONG.get(bytes, bytes.length - Long.BYTES),
          ChunkTable.crc32c(bytes, 0, bytes.length));
      return new SnapshotManifest(info, segmentsFileName, chunkSize, files, ref);
    } catch (IndexFormatTooNewException e) {
      if (!checksumMatches(bytes, source)) {
        // a flipped bit in the version reads as a newer format: only a manifest whose bytes are whole is newer
        throw new SnapshotException.CorruptManifest(
            "snapshot manifest " + source + " is corrupt (its format version reads " + e.getVersion() + " but its"
                + " checksum does not match); the snapshot cannot be read. Delete it and take it again.",
            e);
      }
      throw new SnapshotException.UnsupportedFormat(
          "snapshot manifest " + source + " has format version " + e.getVersion() + ", newer than this version of"
              + " Permafrost reads (" + VERSION_START + " to " + VERSION_CURRENT + "): it was written by a newer"
              + " Permafrost; upgrade Permafrost to mount it",
          e);
    } catch (IOException | RuntimeException e) {
      throw new SnapshotException.CorruptManifest(
          "snapshot manifest " + source + " is truncated or corrupt (" + e.getMessage() + "); the snapshot cannot be"
              + " read. Delete it and take it again.",
          e);
    }
  }

  /** Whether the footer's checksum matches the bytes before it (a newer writer keeps Lucene's footer). */
  private static boolean checksumMatches(byte[] bytes, String source) {
    try (ChecksumIndexInput in =
        new BufferedChecksumIndexInput(
            new ByteBuffersIndexInput(new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), source))) {
      in.seek(bytes.length - CodecUtil.footerLength());
      CodecUtil.checkFooter(in);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return "SnapshotManifest(" + info.name() + ", " + files.size() + " files)";
  }
}
