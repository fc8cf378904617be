/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/**
 * How a snapshot is taken.
 *
 * @param pointFields point fields whose min and max values the manifest records (e.g. {@code @timestamp})
 * @param uploadThreads how many files upload at once (default 4)
 * @param keepWholeLimit files up to this many bytes are kept whole in the manifest (default 16 KiB)
 * @param metadataKeepWholeLimit metadata files ({@code .si}, {@code .fnm}, {@code .cfe} and the codecs' {@code *m}
 *     meta files) up to this many bytes are kept whole (default 1 MiB)
 * @param warmBytesPerFile at most this many recorded bytes of one file not kept whole are kept in the manifest
 *     (default 1 MiB)
 * @param chunkSize every file's bytes are checksummed in chunks of this size ({@link ChunkTable}), a power of two
 *     from 4 KiB to 1 MiB (default 32 KiB); every range read from the store is verified chunk by chunk, so reads
 *     are aligned to chunks and a chunk is the smallest fetch
 * @param listener receives progress reports
 * @param warmSearches searches whose reads are kept in the manifest with the open's (the snapshot's warm set), so
 *     that their first run on a cold mount starts from those bytes (default none; see {@link #withWarmQueries})
 * @param warmBytesLimit at most this many bytes of the warm searches' reads are kept, the smallest ranges first
 *     (default 2 MiB; a mounted index holds them on heap while a reader is open)
 * @param basedOn an earlier snapshot of the same index in the same repository, or null (default): a file whose blob
 *     that snapshot has is not read again, its chunk checksums taken from that snapshot's manifest (see
 *     {@link #withBasedOn})
 */
public record SnapshotOptions(
    List<String> pointFields,
    int uploadThreads,
    int keepWholeLimit,
    int metadataKeepWholeLimit,
    int warmBytesPerFile,
    int chunkSize,
    SnapshotProgress.Listener listener,
    List<WarmSearch> warmSearches,
    int warmBytesLimit,
    String basedOn) {

  /** The default chunk size: 32 KiB. */
  public static final int DEFAULT_CHUNK_SIZE = 32 << 10;

  /** The default bound on a snapshot's warm set: 2 MiB. */
  public static final int DEFAULT_WARM_BYTES_LIMIT = 2 << 20;

  public static final SnapshotOptions DEFAULTS = new SnapshotOptions(List.of(), 4, 16 << 10, 1 << 20, 1 << 20,
      DEFAULT_CHUNK_SIZE, SnapshotProgress.Listener.NONE, List.of(), DEFAULT_WARM_BYTES_LIMIT, null);

  /**
   * A search run on the index when its snapshot is taken, whose reads become part of the snapshot's warm set: the
   * queries of a dashboard, the searches an application runs first. Run once over a reader of the commit being
   * snapshotted, before its files are uploaded.
   */
  @FunctionalInterface
  public interface WarmSearch {
    void run(IndexSearcher searcher) throws IOException;

    /** The best ten hits of {@code query} by score: the terms, postings and norms it reads. */
    static WarmSearch topHits(Query query) {
      Objects.requireNonNull(query, "query");
      return searcher -> searcher.search(query, 10);
    }
  }

  public SnapshotOptions {
    pointFields = List.copyOf(pointFields);
    warmSearches = List.copyOf(warmSearches);
    Objects.requireNonNull(listener, "listener");
    if (warmBytesLimit < 0) {
      throw new IllegalArgumentException("warmBytesLimit must not be negative, got " + warmBytesLimit);
    }
    if (uploadThreads < 1) {
      throw new IllegalArgumentException("uploadThreads must be at least 1, got " + uploadThreads);
    }
    if (keepWholeLimit < 0 || metadataKeepWholeLimit < 0 || warmBytesPerFile < 0) {
      throw new IllegalArgumentException("keep-whole and warm-bytes limits must not be negative");
    }
    if (chunkSize < ChunkTable.MIN_CHUNK_SIZE || chunkSize > ChunkTable.MAX_CHUNK_SIZE || Integer.bitCount(chunkSize) != 1) {
      throw new IllegalArgumentException("chunkSize must be a power of two from " + ChunkTable.MIN_CHUNK_SIZE + " to "
          + ChunkTable.MAX_CHUNK_SIZE + " bytes, got " + chunkSize);
    }
  }

  public SnapshotOptions withPointFields(String... fields) {
    return new SnapshotOptions(List.of(fields), uploadThreads, keepWholeLimit, metadataKeepWholeLimit, warmBytesPerFile,
        chunkSize, listener, warmSearches, warmBytesLimit, basedOn);
  }

  public SnapshotOptions withUploadThreads(int threads) {
    return new SnapshotOptions(pointFields, threads, keepWholeLimit, metadataKeepWholeLimit, warmBytesPerFile,
        chunkSize, listener, warmSearches, warmBytesLimit, basedOn);
  }

  public SnapshotOptions withKeepWholeLimits(int keepWhole, int metadataKeepWhole) {
    return new SnapshotOptions(pointFields, uploadThreads, keepWhole, metadataKeepWhole, warmBytesPerFile, chunkSize,
        listener, warmSearches, warmBytesLimit, basedOn);
  }

  public SnapshotOptions withWarmBytesPerFile(int limit) {
    return new SnapshotOptions(pointFields, uploadThreads, keepWholeLimit, metadataKeepWholeLimit, limit, chunkSize,
        listener, warmSearches, warmBytesLimit, basedOn);
  }

  public SnapshotOptions withChunkSize(int bytes) {
    return new SnapshotOptions(pointFields, uploadThreads, keepWholeLimit, metadataKeepWholeLimit, warmBytesPerFile,
        bytes, listener, warmSearches, warmBytesLimit, basedOn);
  }

  public SnapshotOptions withListener(SnapshotProgress.Listener l) {
    return new SnapshotOptions(pointFields, uploadThreads, keepWholeLimit, metadataKeepWholeLimit, warmBytesPerFile,
        chunkSize, l, warmSearches, warmBytesLimit, basedOn);
  }

  /**
   * Keeps in the manifest the bytes that the best ten hits of each of {@code queries} read (terms, postings, norms),
   * up to {@link #warmBytesLimit()}: the first such search of a cold mount costs fewer round trips. The queries
   * replace any warm searches given before.
   */
  public SnapshotOptions withWarmQueries(Query... queries) {
    List<WarmSearch> searches = new ArrayList<>(queries.length);
    for (Query q : queries) {
      searches.add(WarmSearch.topHits(q));
    }
    return withWarmSearches(searches);
  }

  /**
   * Keeps in the manifest the bytes that {@code searches} read (any collector: an aggregation reads its columns'
   * dictionaries too), up to {@link #warmBytesLimit()}. Replaces any warm searches given before.
   */
  public SnapshotOptions withWarmSearches(List<WarmSearch> searches) {
    return new SnapshotOptions(pointFields, uploadThreads, keepWholeLimit, metadataKeepWholeLimit, warmBytesPerFile,
        chunkSize, listener, searches, warmBytesLimit, basedOn);
  }

  /**
   * Takes the snapshot as an increment of {@code snapshot}, an earlier snapshot of the same index in the same
   * repository (null: none). A file whose blob the repository has is then read neither for upload nor for its chunk
   * checksums, which are taken from {@code snapshot}'s manifest: a grown index's daily snapshot reads only its new
   * files, where without it every file is read once, locally, for the checksums the new manifest keeps. A blob's name
   * stands for its file's content (the file's name, length, Lucene checksum and header, which holds its segment's
   * unique id), so the checksums are the ones reading the file would give. The taking fails at once, naming it, if
   * {@code snapshot} is not in the repository; a snapshot taken with another chunk size, or one whose manifest keeps
   * no chunk tables (written before format 3), is no help: every file is then read, as without it.
   */
  public SnapshotOptions withBasedOn(String snapshot) {
    return new SnapshotOptions(pointFields, uploadThreads, keepWholeLimit, metadataKeepWholeLimit, warmBytesPerFile,
        chunkSize, listener, warmSearches, warmBytesLimit, snapshot);
  }

  public SnapshotOptions withWarmBytesLimit(int limit) {
    return new SnapshotOptions(pointFields, uploadThreads, keepWholeLimit, metadataKeepWholeLimit, warmBytesPerFile,
        chunkSize, listener, warmSearches, limit, basedOn);
  }
}
