/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.snapshot.ChunkTable;
import dev.permafrost.snapshot.FileEntry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What verifies one blob's bytes, as the snapshot recorded it, and what that asks of every fetch: with a
 * {@link ChunkTable} (a blob of more than one chunk), every chunk is checked against its CRC32C, so fetches are
 * aligned to chunks; a blob of at most one chunk has no table and is always fetched whole, checked against its
 * CRC32C and its Lucene checksum; a blob of a snapshot that recorded no tables (format 1) is checked only when a read
 * happens to fetch it whole. Also names the blob in messages.
 *
 * <p>The chunk table is kept here while a directory reads the blob: given by the manifest of a snapshot that keeps its
 * tables (format 3, {@link #keep}) when a directory acquires the blob, never requested; else, for a snapshot whose
 * tables are blobs (format 2), loaded once asked for ({@link Filler#table}, in parallel with the first fill that
 * needs it), a failed load forgotten so that the next fill tries again.
 */
final class BlobChecksums {
  /** Fills of a blob without checksums are aligned to the cache file's pages. */
  static final int UNVERIFIED_UNIT = CacheFile.PAGE_SIZE;

  final String blobName;
  final String fileName;
  final long length;
  /** The Lucene checksum of the file (its footer's last 8 bytes). */
  final long checksum;
  /** The CRC32C of the whole file, when it is at most one chunk long (it has no table). */
  final int wholeCrc32c;
  /** The chunk size of the snapshot's tables, 0 if it recorded none. */
  final int chunkSize;
  /** The blob of the chunk table in a snapshot of format 2, or null if the blob has no table; read only if no manifest gave it. */
  final String tableBlob;
  /** The chunk table, once given ({@link #keep}) or asked for ({@link Filler#table}). */
  final AtomicReference<CompletableFuture<ChunkTable>> table = new AtomicReference<>();

  BlobChecksums(FileEntry file, int chunkSize) {
    this.blobName = file.blobName();
    this.fileName = file.name();
    this.length = file.length();
    this.checksum = file.checksum();
    this.wholeCrc32c = file.wholeCrc32c();
    this.chunkSize = chunkSize;
    this.tableBlob = ChunkTable.hasTable(length, chunkSize) ? ChunkTable.blobName(blobName, chunkSize) : null;
  }

  /** Whether every range is verified against a chunk table. */
  boolean hasTable() {
    return tableBlob != null;
  }

  /** Whether every fetch is of the whole blob, checked against its Lucene checksum (a blob of at most one chunk). */
  boolean fetchedWhole() {
    return tableBlob == null && chunkSize > 0;
  }

  /**
   * The unit the fills of a region in a slot of {@code slotSize} bytes are aligned to, so that each fetch can be
   * verified: a chunk (or the region, if smaller), the region for a blob always fetched whole, or a page for a
   * blob without checksums.
   */
  int fillUnit(int slotSize) {
    if (hasTable()) {
      return Math.min(chunkSize, slotSize);
    }
    return fetchedWhole() ? slotSize : UNVERIFIED_UNIT;
  }

  /** The first byte to fetch so that [start, ...) can be verified. */
  long fetchStart(long start) {
    if (hasTable()) {
      return start - start % chunkSize;
    }
    return fetchedWhole() ? 0 : start;
  }

  /** The end of the fetch that verifies [..., end). */
  long fetchEnd(long end) {
    if (hasTable()) {
      return Math.min(length, (end + chunkSize - 1) / chunkSize * chunkSize);
    }
    return fetchedWhole() ? length : end;
  }

  /**
   * Keeps {@code recorded}, the table a manifest gave, so that no fill asks for it: in place of a load still under way
   * or failed (the same content: the blob is content-addressed), not of a table already loaded or given.
   */
  void keep(ChunkTable recorded) {
    assert hasTable() && recorded.chunkSize() == chunkSize && recorded.fileLength() == length : recorded + " for " + this;
    table.getAndUpdate(t -> t != null && t.isDone() && !t.isCompletedExceptionally() ? t
        : CompletableFuture.completedFuture(recorded));
  }

  /** Drops the chunk table (no directory reads the blob any more: cached regions are read without it). */
  void dropTable() {
    table.set(null);
  }

  @Override
  public String toString() {
    return "blob " + blobName + " (" + fileName + ", " + length + " bytes)";
  }
}
