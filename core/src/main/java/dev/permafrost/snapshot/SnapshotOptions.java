/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.util.List;
import java.util.Objects;

/**
 * How a snapshot is taken.
 *
 * @param pointFields point fields whose min and max values the manifest records (e.g. {@code @timestamp})
 * @param uploadThreads how many files upload at once (default 4)
 * @param inlineLimit files up to this many bytes are kept whole in the manifest (default 16 KiB)
 * @param metadataInlineLimit metadata files ({@code .si}, {@code .fnm}, {@code .cfe} and the codecs' {@code *m}
 *     meta files) up to this many bytes are kept whole (default 1 MiB)
 * @param hotBytesLimit at most this many recorded bytes of one non-inlined file are kept in the manifest
 *     (default 1 MiB)
 * @param chunkSize every file's bytes are checksummed in chunks of this size ({@link ChunkTable}), a power of two
 *     from 4 KiB to 1 MiB (default 32 KiB); every range read from the store is verified chunk by chunk, so reads
 *     are aligned to chunks and a chunk is the smallest fetch
 * @param listener receives progress reports
 */
public record SnapshotOptions(
    List<String> pointFields,
    int uploadThreads,
    int inlineLimit,
    int metadataInlineLimit,
    int hotBytesLimit,
    int chunkSize,
    SnapshotProgress.Listener listener) {

  /** The default chunk size: 32 KiB. */
  public static final int DEFAULT_CHUNK_SIZE = 32 << 10;

  public static final SnapshotOptions DEFAULTS =
      new SnapshotOptions(List.of(), 4, 16 << 10, 1 << 20, 1 << 20, DEFAULT_CHUNK_SIZE, SnapshotProgress.Listener.NONE);

  public SnapshotOptions {
    pointFields = List.copyOf(pointFields);
    Objects.requireNonNull(listener, "listener");
    if (uploadThreads < 1) {
      throw new IllegalArgumentException("uploadThreads must be at least 1, got " + uploadThreads);
    }
    if (inlineLimit < 0 || metadataInlineLimit < 0 || hotBytesLimit < 0) {
      throw new IllegalArgumentException("inline and hot-bytes limits must not be negative");
    }
    if (chunkSize < ChunkTable.MIN_CHUNK_SIZE || chunkSize > ChunkTable.MAX_CHUNK_SIZE || Integer.bitCount(chunkSize) != 1) {
      throw new IllegalArgumentException("chunkSize must be a power of two from " + ChunkTable.MIN_CHUNK_SIZE + " to "
          + ChunkTable.MAX_CHUNK_SIZE + " bytes, got " + chunkSize);
    }
  }

  public SnapshotOptions withPointFields(String... fields) {
    return new SnapshotOptions(List.of(fields), uploadThreads, inlineLimit, metadataInlineLimit, hotBytesLimit, chunkSize, listener);
  }

  public SnapshotOptions withUploadThreads(int threads) {
    return new SnapshotOptions(pointFields, threads, inlineLimit, metadataInlineLimit, hotBytesLimit, chunkSize, listener);
  }

  public SnapshotOptions withInlineLimits(int inline, int metadataInline) {
    return new SnapshotOptions(pointFields, uploadThreads, inline, metadataInline, hotBytesLimit, chunkSize, listener);
  }

  public SnapshotOptions withHotBytesLimit(int limit) {
    return new SnapshotOptions(pointFields, uploadThreads, inlineLimit, metadataInlineLimit, limit, chunkSize, listener);
  }

  public SnapshotOptions withChunkSize(int bytes) {
    return new SnapshotOptions(pointFields, uploadThreads, inlineLimit, metadataInlineLimit, hotBytesLimit, bytes, listener);
  }

  public SnapshotOptions withListener(SnapshotProgress.Listener l) {
    return new SnapshotOptions(pointFields, uploadThreads, inlineLimit, metadataInlineLimit, hotBytesLimit, chunkSize, l);
  }
}
