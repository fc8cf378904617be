/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import dev.permafrost.blob.BlobStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * Manifests over arbitrary bytes (not Lucene files), for testing the read path with files of any content and
 * length: each file is uploaded as a blob, with its chunk table (a blob beside it, as format 2 keeps it, unless asked
 * to keep tables in the manifest, as format 3 does), and kept in the manifest only where asked.
 *
 * <p>The "Lucene checksum" the manifest records for each file is the CRC32 of all but its last 8 bytes, as
 * Lucene's footer checksum is; the bytes are not changed (a snapshot without chunk tables, which checks the
 * footer's bytes too, needs files that end in their checksum: see {@link #stampChecksum}).
 */
public final class TestManifests {
  /** The chunk size of the tables these manifests record unless told otherwise. */
  public static final int CHUNK_SIZE = ChunkTable.MIN_CHUNK_SIZE;

  private TestManifests() {}

  /** Uploads every file to {@code blobs/<prefix><name>} and returns a manifest for them, with nothing kept whole. */
  public static SnapshotManifest upload(BlobStore store, String snapshot, String prefix, Map<String, byte[]> files) throws IOException {
    return upload(store, snapshot, prefix, files, 0);
  }

  /**
   * As {@link #upload(BlobStore, String, String, Map)}, but files up to {@code keepWholeLimit} bytes are kept whole in
   * the manifest, and other files keep their first and last 16 bytes there.
   */
  public static SnapshotManifest upload(BlobStore store, String snapshot, String prefix, Map<String, byte[]> files, int keepWholeLimit)
      throws IOException {
    return upload(store, snapshot, prefix, files, keepWholeLimit, CHUNK_SIZE);
  }

  /** As above, with chunk tables of {@code chunkSize} bytes (0: none, as a snapshot of format 1 has) in blobs. */
  public static SnapshotManifest upload(
      BlobStore store, String snapshot, String prefix, Map<String, byte[]> files, int keepWholeLimit, int chunkSize)
      throws IOException {
    return upload(store, snapshot, prefix, files, keepWholeLimit, chunkSize, false);
  }

  /**
   * As above, with the chunk tables kept in the manifest ({@code tablesInManifest}, format 3: no table blob is
   * written) or in blobs (format 2).
   */
  public static SnapshotManifest upload(BlobStore store, String snapshot, String prefix, Map<String, byte[]> files,
      int keepWholeLimit, int chunkSize, boolean tablesInManifest) throws IOException {
    List<FileEntry> entries = new ArrayList<>();
    long total = 0;
    for (Map.Entry<String, byte[]> e : new TreeMap<>(files).entrySet()) {
      byte[] bytes = e.getValue();
      total += bytes.length;
      long checksum = luceneChecksum(bytes);
      if (bytes.length <= keepWholeLimit) {
        entries.add(new FileEntry(e.getKey(), bytes.length, checksum, null, bytes, List.of()));
        continue;
      }
      String blob = "blobs/" + prefix + e.getKey();
      store.write(blob, new ByteArrayInputStream(bytes), bytes.length);
      ChunkTable kept = null;
      if (ChunkTable.hasTable(bytes.length, chunkSize)) {
        ChunkTable.Builder table = new ChunkTable.Builder(bytes.length, chunkSize);
        table.update(bytes, 0, bytes.length);
        if (tablesInManifest) {
          kept = table.build();
        } else {
          byte[] tableBytes = table.build().toBytes(checksum);
          store.write(ChunkTable.blobName(blob, chunkSize), new ByteArrayInputStream(tableBytes), tableBytes.length);
        }
      }
      List<FileEntry.WarmRange> hot = new ArrayList<>();
      if (keepWholeLimit > 0 && bytes.length > 64) {
        hot.add(new FileEntry.WarmRange(0, Arrays.copyOf(bytes, 16)));
        hot.add(new FileEntry.WarmRange(bytes.length - 16, Arrays.copyOfRange(bytes, bytes.length - 16, bytes.length)));
      }
      int wholeCrc32c = chunkSize > 0 && !ChunkTable.hasTable(bytes.length, chunkSize) ? ChunkTable.crc32c(bytes, 0, bytes.length) : 0;
      entries.add(new FileEntry(e.getKey(), bytes.length, checksum, blob, null, hot, wholeCrc32c, kept));
    }
    String first = entries.isEmpty() ? null : entries.getFirst().name();
    if (first == null) {
      entries.add(new FileEntry("segments_0", 0, 0, null, new byte[0], List.of()));
      first = "segments_0";
    }
    SnapshotInfo info = new SnapshotInfo(snapshot, Instant.now(), "", 0, 0, 0, 0, entries.size(), total, Map.of(), Map.of());
    return new SnapshotManifest(info, first, chunkSize, entries, tablesInManifest);
  }

  /**
   * Rewrites snapshot {@code name} of the repository in {@code store}, taken by this version (format 3), as the
   * previous writer wrote it: each chunk table a blob beside its file's blob, the manifest in format 2 without them.
   * Returns the rewritten manifest.
   */
  public static SnapshotManifest rewriteAsFormat2(BlobStore store, String name) throws IOException {
    SnapshotManifest manifest = SnapshotRepository.open(store).readManifest(name);
    if (!manifest.tablesInManifest()) {
      throw new IllegalArgumentException("snapshot " + name + " keeps no tables in its manifest");
    }
    List<FileEntry> entries = new ArrayList<>();
    for (FileEntry f : manifest.files()) {
      ChunkTable table = f.chunkTable();
      if (table == null) {
        entries.add(f);
        continue;
      }
      byte[] tableBytes = table.toBytes(f.checksum());
      store.write(ChunkTable.blobName(f.blobName(), manifest.chunkSize()), new ByteArrayInputStream(tableBytes),
          tableBytes.length);
      entries.add(f.withChunkTable(null));
    }
    SnapshotManifest old = new SnapshotManifest(manifest.info(), manifest.segmentsFileName(), manifest.chunkSize(),
        entries, false);
    byte[] bytes = old.toBytes(SnapshotManifest.VERSION_CHUNK_TABLES);
    store.write(SnapshotRepository.manifestBlob(name), new ByteArrayInputStream(bytes), bytes.length);
    return old;
  }

  /** The CRC32 of all but the last 8 bytes, as Lucene's footer records it; 0 for fewer than 8 bytes. */
  public static long luceneChecksum(byte[] bytes) {
    if (bytes.length < Long.BYTES) {
      return 0;
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    return crc.getValue();
  }

  /** Writes the CRC32 of all but the last 8 bytes into the last 8 bytes (big-endian), as a Lucene footer ends. */
  public static long stampChecksum(byte[] bytes) {
    if (bytes.length < Long.BYTES) {
      return 0;
    }
    long checksum = luceneChecksum(bytes);
    for (int i = 0; i < Long.BYTES; i++) {
      bytes[bytes.length - 1 - i] = (byte) (checksum >>> (8 * i));
    }
    return checksum;
  }

  /** The bytes of {@code manifest} in format {@code version}, to write an old snapshot. */
  public static byte[] manifestBytes(SnapshotManifest manifest, int version) throws IOException {
    return manifest.toBytes(version);
  }

  /**
   * Writes a copy of {@code manifest} as snapshot {@code name} of a repository in {@code store}: another snapshot of
   * the same files (the same blobs), as many snapshots of one index would be.
   */
  public static void writeCopy(BlobStore store, SnapshotManifest manifest, String name) throws IOException {
    SnapshotInfo i = manifest.info();
    SnapshotInfo renamed = new SnapshotInfo(name, i.createdAt(), i.luceneVersion(), i.generation(), i.segmentCount(),
        i.maxDoc(), i.numDocs(), i.fileCount(), i.totalBytes(), i.userData(), i.pointRanges());
    SnapshotManifest copy = new SnapshotManifest(renamed, manifest.segmentsFileName(), manifest.chunkSize(),
        manifest.files(), manifest.tablesInManifest());
    byte[] bytes = copy.toBytes();
    store.write(SnapshotRepository.manifestBlob(name), new ByteArrayInputStream(bytes), bytes.length);
  }

  /** Writes {@code manifest} as snapshot {@code manifest.name()} of a repository in {@code store}. */
  public static void writeManifest(BlobStore store, SnapshotManifest manifest, int version) throws IOException {
    byte[] bytes = manifest.toBytes(version);
    store.write(SnapshotRepository.manifestBlob(manifest.name()), new ByteArrayInputStream(bytes), bytes.length);
  }
}
