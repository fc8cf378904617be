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
 * checksum, blob, the bytes kept in the manifest and the checksums of its chunks. Stored as one blob, framed by Lucene's
 * {@link CodecUtil} header and checksummed footer, so that truncation and corruption are detected when it is read.
 *
 * <p>Format versions: 1, files with their Lucene checksums; 2, a chunk size, the CRC32C of each file of at most one
 * chunk, and a {@link ChunkTable} blob beside each larger file's blob; 3 (written now), each larger file's chunk
 * table in its entry instead (a count of chunks, checked against the file's length, then a CRC32C per chunk), so
 * that a snapshot has no table blobs and a search makes no request for them. All three are read.
 */
public final class SnapshotManifest {
  static final String CODEC = "PermafrostSnapshot";
  static final int VERSION_START = 1;
  /** Adds the chunk size of the files' {@link ChunkTable}s, and the CRC32C of each file of at most one chunk. */
  static final int VERSION_CHUNK_TABLES = 2;
  /**
   * Keeps every file's {@link ChunkTable} in the manifest, in the file's entry (before: a blob beside the file's), so
   * that a search's fetches are verified with no request for a table.
   */
  static final int VERSION_TABLES_IN_MANIFEST = 3;
  static final int VERSION_CURRENT = VERSION_TABLES_IN_MANIFEST;

  private final SnapshotInfo info;
  private final String segmentsFileName;
  private final int chunkSize;
  private final List<FileEntry> files;
  private final Map<String, FileEntry> byName;
  /** Whether the files' chunk tables are in the manifest (format 3), not blobs beside the files' (format 2). */
  private final boolean tablesInManifest;
  /** Where the manifest came from, when it was read from bytes (null for one being written). */
  private final ManifestRef ref;

  /** A manifest whose files' chunk tables are blobs (format 2), or that records none: see the one below. */
  SnapshotManifest(SnapshotInfo info, String segmentsFileName, int chunkSize, List<FileEntry> files) {
    this(info, segmentsFileName, chunkSize, files, false, null);
  }

  /**
   * @param tablesInManifest whether every file with a chunk table carries it ({@link FileEntry#chunkTable()}, format 3)
   *     rather than having it in a blob (format 2): all or none
   */
  SnapshotManifest(SnapshotInfo info, String segmentsFileName, int chunkSize, List<FileEntry> files,
      boolean tablesInManifest) {
    this(info, segmentsFileName, chunkSize, files, tablesInManifest, null);
  }

  private SnapshotManifest(SnapshotInfo info, String segmentsFileName, int chunkSize, List<FileEntry> files,
      boolean tablesInManifest, ManifestRef ref) {
    this.ref = ref;
    this.tablesInManifest = tablesInManifest;
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
    assert files.stream().allMatch(f -> (f.chunkTable() != null) == (tablesInManifest && hasTable(f)))
        : "a manifest keeps the table of every file that has one, or of none: " + files;
  }

  /** Whether {@code file} is a blob of more than one chunk: its ranges are verified against a chunk table. */
  private boolean hasTable(FileEntry file) {
    return file.blobName() != null && ChunkTable.hasTable(file.length(), chunkSize);
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

  /**
   * Whether the files' chunk tables are kept in the manifest ({@link FileEntry#chunkTable()}, format 3 on), rather than
   * in blobs beside the files' ({@link #chunkTableBlob}, format 2).
   */
  public boolean tablesInManifest() {
    return tablesInManifest;
  }

  /**
   * The blob of {@code file}'s chunk table, or null if it has none: kept whole, at most one chunk, no tables recorded,
   * or its table kept in the manifest ({@link FileEntry#chunkTable()}). With the files' own blobs, what a snapshot
   * has in its repository: the one rule that taking, deleting, garbage collection and verification follow.
   */
  public String chunkTableBlob(FileEntry file) {
    return !tablesInManifest && hasTable(file) ? ChunkTable.blobName(file.blobName(), chunkSize) : null;
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
    return new SnapshotManifest(info, segmentsFileName, 0, List.copyOf(files), false, ref);
  }

  /** The manifest as a blob (to read it again), or null if it was not read from a store. */
  public ManifestRef ref() {
    return ref;
  }

  /** The named file, or null. */
  public FileEntry file(String name) {
    return byName.get(name);
  }

  /** Heap held by the file entries (names, whole files, warm ranges and chunk tables). */
  public long heapBytes() {
    long bytes = 256;
    for (FileEntry f : files) {
      bytes += f.heapBytes();
    }
    return bytes;
  }

  /** The manifest in the current format, or in format 2 if its chunk tables are blobs (a manifest made by tests). */
  byte[] toBytes() throws IOException {
    return toBytes(tablesInManifest ? VERSION_CURRENT : VERSION_CHUNK_TABLES);
  }

  /** The manifest in format {@code version} (an older one only for tests of reading old snapshots). */
  byte[] toBytes(int version) throws IOException {
    if (version < VERSION_CHUNK_TABLES && chunkSize != 0) {
      throw new IllegalArgumentException("format " + version + " cannot record chunk tables");
    }
    boolean anyTable = files.stream().anyMatch(this::hasTable);
    if (anyTable && tablesInManifest != version >= VERSION_TABLES_IN_MANIFEST) {
      throw new IllegalArgumentException("format " + version + (tablesInManifest ? " cannot keep chunk tables in the"
          + " manifest" : " keeps chunk tables in the manifest, and this manifest's are blobs"));
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
          } else if (version >= VERSION_TABLES_IN_MANIFEST && hasTable(f)) {
            int[] checksums = f.chunkTable().checksums();
            out.writeVInt(checksums.length);
            for (int c : checksums) {
              out.writeInt(c);
            }
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
          if (rangeCount < 0 || rangeCount > bytes.length) { // each range takes bytes of the manifest
            throw new CorruptIndexException("warm range count " + rangeCount + " of " + fileName + " is out of bounds",
                source);
          }
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
          ChunkTable table = version >= VERSION_TABLES_IN_MANIFEST && ChunkTable.hasTable(length, chunkSize)
              ? readTable(in, name, fileName, length, chunkSize, bytes.length, source) : null;
          files.add(new FileEntry(fileName, length, checksum, blobName, null, ranges, wholeCrc32c, table));
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
      return new SnapshotManifest(info, segmentsFileName, chunkSize, files, version >= VERSION_TABLES_IN_MANIFEST, ref);
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

  /**
   * Reads the chunk table of file {@code fileName} ({@code length} bytes) of snapshot {@code snapshot}: its count of
   * chunks, checked against the file's length, then their checksums.
   */
  private static ChunkTable readTable(DataInput in, String snapshot, String fileName, long length, int chunkSize,
      int manifestLength, String source) throws IOException {
    int count = in.readVInt();
    long expected = (length + chunkSize - 1) / chunkSize;
    if (count != expected) {
      throw new CorruptIndexException("the chunk table of file " + fileName + " of snapshot '" + snapshot + "' has "
          + count + " chunks, but a file of " + length + " bytes has " + expected + " chunks of " + chunkSize
          + " bytes", source);
    }
    if ((long) count * Integer.BYTES > manifestLength) {
      throw new CorruptIndexException("the chunk table of file " + fileName + " of snapshot '" + snapshot + "' ("
          + count + " chunks) is longer than the manifest", source);
    }
    int[] checksums = new int[count];
    in.readInts(checksums, 0, count);
    return ChunkTable.of(length, chunkSize, checksums);
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
