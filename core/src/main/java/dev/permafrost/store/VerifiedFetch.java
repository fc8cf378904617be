/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.FilterBlobInputStream;
import dev.permafrost.snapshot.ChunkTable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.util.BitUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fetch of a range of a blob from its store, verified piece by piece before any piece is handed on: chunk by chunk
 * against the blob's {@link ChunkTable}, or as a whole against its CRC32C and Lucene checksum (see
 * {@link BlobChecksums}). A piece that does not match is fetched once more; if it still does not match, the fetch
 * fails with a {@link CorruptIndexException} naming the blob, the file, the store, the range and both checksums, and
 * nothing of the piece is handed on. Its requests and bytes count as fills or as direct reads in the file's counters
 * as they are sent and read; in the cost of the work that asked for it ({@link ReadCost}), its first request was
 * counted when the fetch was asked for, and a piece asked again counts as it is sent.
 */
final class VerifiedFetch {
  private static final Logger log = LoggerFactory.getLogger(VerifiedFetch.class);
  /** The piece size of fetches that cannot be verified (snapshots without checksums). */
  private static final int UNVERIFIED_PIECE = 64 << 10;

  /** What verified bytes go to. */
  interface PieceSink {
    /** {@code length} verified bytes of {@code bytes} from {@code offset} are the blob's bytes at {@code position}. */
    void accept(byte[] bytes, int offset, int length, long position) throws IOException;
  }

  private final BlobChecksums blob;
  private final FetchOrigin origin;
  /** Whether this is a read directly from the store (counted as a direct read), not a fill of the cache. */
  private final boolean direct;
  private final FetchTask task;
  /** The cache's own counters, which count fills too; null for a direct read. */
  private final CacheStatsCounter global;
  /** Whether a request was sent yet, and the last one (null without a cost): a piece asked again follows it. */
  private boolean opened;
  private ReadCost.Request request;

  VerifiedFetch(BlobChecksums blob, FetchOrigin origin, boolean direct, FetchTask task, CacheStatsCounter global) {
    this.blob = blob;
    this.origin = origin;
    this.direct = direct;
    this.task = task;
    this.global = global;
  }

  /**
   * Fetches [from, to) (aligned with {@link BlobChecksums#fetchStart}/{@link BlobChecksums#fetchEnd}), handing each
   * verified piece to {@code sink}, in order.
   *
   * @param table the blob's chunk table, asked for before the data request so that both travel together (null for a
   *     blob without one)
   * @param deadlineNanos how long to wait for the table
   */
  void fetch(long from, long to, CompletableFuture<ChunkTable> table, long deadlineNanos, PieceSink sink)
      throws IOException {
    assert from < to && to <= blob.length;
    if (blob.hasTable()) {
      fetchChunks(from, to, table, deadlineNanos, sink);
    } else if (from == 0 && to == blob.length) {
      fetchWhole(sink);
    } else {
      fetchUnverified(from, to, sink);
    }
  }

  private InputStream open(long from, long to) throws IOException {
    // the task's own request first (counted when the fetch was asked for); a piece asked again is a request of its own
    ReadCost.Request r = !opened ? task.request : request == null ? null : request.again(from, to);
    opened = true;
    request = r;
    InputStream in = counted(r, () -> origin.store().read(blob.blobName, from, to - from));
    task.reading(in);
    if (direct) {
      origin.counter().directReads.increment();
    } else {
      origin.counter().fetches.increment();
      global.fetches.increment();
    }
    return in;
  }

  /** A request about to be sent. */
  private interface Send {
    InputStream send() throws IOException;
  }

  /** Sends {@code request} (if counted: see {@link ReadCost.Request}); its clock wave ends when its response is closed. */
  private static InputStream counted(ReadCost.Request request, Send open) throws IOException {
    if (request == null) {
      return open.send();
    }
    request.sent();
    InputStream in;
    try {
      in = open.send();
    } catch (IOException | RuntimeException e) {
      request.end();
      throw e;
    }
    return new FilterBlobInputStream(in) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public void close() throws IOException {
        request.end();
        super.close();
      }
    };
  }

  private void readFully(InputStream in, byte[] buffer, int length, long position) throws IOException {
    int n = in.readNBytes(buffer, 0, length);
    (direct ? origin.counter().bytesReadDirect : origin.counter().bytesFetched).add(n);
    if (n != length) {
      throw new EOFException("the store returned " + n + " of the " + length + " bytes at " + position + " of blob "
          + blob.blobName + " (" + blob.length + " bytes)");
    }
  }

  private void fetchChunks(long from, long to, CompletableFuture<ChunkTable> tableFuture, long deadlineNanos,
      PieceSink sink) throws IOException {
    int chunkSize = blob.chunkSize;
    assert from % chunkSize == 0 && (to % chunkSize == 0 || to == blob.length) : "[" + from + ", " + to + ")";
    byte[] buffer = new byte[(int) Math.min(chunkSize, to - from)];
    long position = from;
    long refetched = -1;
    InputStream in = open(from, to);
    try {
      while (position < to) {
        int n = (int) Math.min(chunkSize, to - position);
        readFully(in, buffer, n, position);
        ChunkTable table = awaitTable(tableFuture, deadlineNanos);
        int chunk = (int) (position / chunkSize);
        int expected = table.checksum(chunk);
        int actual = ChunkTable.crc32c(buffer, 0, n);
        if (actual != expected) {
          origin.counter().checksumMismatches.increment();
          if (refetched == position) {
            throw mismatch(position, n, "crc32c", Integer.toHexString(expected), Integer.toHexString(actual));
          }
          log.warn("chunk {} of blob {} ({}, {} in {}) does not match its checksum; fetching it again", chunk,
              blob.blobName, blob.fileName, BlobStoreException.range(position, n), origin.storeDescription());
          refetched = position;
          in.close();
          in = open(position, to);
          continue;
        }
        sink.accept(buffer, 0, n, position);
        position += n;
      }
    } finally {
      in.close();
    }
  }

  private ChunkTable awaitTable(CompletableFuture<ChunkTable> table, long deadlineNanos) throws IOException {
    try {
      return deadlineNanos == Long.MAX_VALUE ? table.get() : table.get(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CorruptIndexException c) {
        throw new CorruptIndexException(c.getOriginalMessage(), c.getResourceDescription(), c);
      }
      throw new IOException(cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new BlobStoreTimeoutException(origin.storeDescription(), blob.tableBlob,
          "timed out waiting for the chunk table of blob " + blob.blobName + " (deadline from the store policy: "
              + origin.deadlineExplained() + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the chunk table of " + blob.blobName);
    }
  }

  /**
   * Fetches a whole blob and checks it: against its CRC32C (a file of at most one chunk) and against its Lucene
   * checksum (the CRC32 of all but the footer's last 8 bytes); without a CRC32C (a snapshot of format 1), the
   * footer's last 8 bytes must hold that checksum too.
   */
  private void fetchWhole(PieceSink sink) throws IOException {
    assert blob.length <= Integer.MAX_VALUE : blob;
    byte[] bytes = new byte[(int) blob.length];
    for (int attempt = 1; ; attempt++) {
      try (InputStream in = open(0, blob.length)) {
        readFully(in, bytes, bytes.length, 0);
      }
      String mismatch = wholeMismatch(bytes);
      if (mismatch == null) {
        sink.accept(bytes, 0, bytes.length, 0);
        return;
      }
      origin.counter().checksumMismatches.increment();
      if (attempt == 2) {
        throw new CorruptIndexException("checksum mismatch in blob " + blob.blobName + " (file " + blob.fileName
            + ", " + blob.length + " bytes) from " + origin.storeDescription() + ": " + mismatch + ", twice; nothing of"
            + " it was cached", blob.blobName);
      }
      log.warn("blob {} ({}) from {} does not match its checksum ({}); fetching it again", blob.blobName,
          blob.fileName, origin.storeDescription(), mismatch);
    }
  }

  /** What is wrong with a whole blob's bytes, or null if they match every checksum the snapshot recorded. */
  private String wholeMismatch(byte[] bytes) {
    if (blob.chunkSize > 0) {
      int crc32c = ChunkTable.crc32c(bytes, 0, bytes.length);
      if (crc32c != blob.wholeCrc32c) {
        return "the snapshot recorded crc32c " + Integer.toHexString(blob.wholeCrc32c) + " but the store returned bytes"
            + " with " + Integer.toHexString(crc32c);
      }
    }
    if (bytes.length < Long.BYTES) {
      return null;
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    if (crc.getValue() != blob.checksum) {
      return "the snapshot recorded the Lucene checksum (crc32) " + Long.toHexString(blob.checksum) + " but the store"
          + " returned bytes with " + Long.toHexString(crc.getValue());
    }
    long footer = (long) BitUtil.VH_BE_LONG.get(bytes, bytes.length - Long.BYTES);
    if (blob.chunkSize == 0 && footer != blob.checksum) {
      return "the footer holds checksum " + Long.toHexString(footer) + ", not " + Long.toHexString(blob.checksum);
    }
    return null;
  }

  private void fetchUnverified(long from, long to, PieceSink sink) throws IOException {
    byte[] buffer = new byte[(int) Math.min(UNVERIFIED_PIECE, to - from)];
    try (InputStream in = open(from, to)) {
      for (long position = from; position < to; ) {
        int n = (int) Math.min(buffer.length, to - position);
        readFully(in, buffer, n, position);
        sink.accept(buffer, 0, n, position);
        position += n;
      }
    }
  }

  private CorruptIndexException mismatch(long position, int length, String algorithm, String expected, String actual) {
    return new CorruptIndexException("checksum mismatch in " + BlobStoreException.range(position, length) + " of blob "
        + blob.blobName + " (file " + blob.fileName + ") from " + origin.storeDescription() + ": the snapshot recorded "
        + algorithm + " " + expected + " but the store returned bytes with " + actual + ", twice; nothing of it was"
        + " cached", blob.blobName);
  }

  /**
   * Reads and parses {@code blob}'s chunk table (a damaged one is read once more), as {@code request} (null: not
   * counted), which was counted when the table was asked for.
   */
  static ChunkTable readTable(BlobChecksums blob, FetchOrigin origin, ReadCost.Request request) throws IOException {
    String source = origin.storeDescription() + " blob " + blob.tableBlob;
    ReadCost.Request r = request;
    for (int attempt = 1; ; attempt++) {
      byte[] bytes;
      try (InputStream in = counted(r, () -> origin.store().read(blob.tableBlob))) {
        bytes = in.readAllBytes();
      } catch (IOException e) {
        throw new IOException("cannot read the chunk table " + blob.tableBlob + " of blob " + blob.blobName + " ("
            + blob.fileName + ") from " + origin.storeDescription() + ": " + e.getMessage(), e);
      }
      origin.counter().chunkTableFetches.increment();
      try {
        return ChunkTable.parse(bytes, blob.fileName, blob.length, blob.checksum, blob.chunkSize, source);
      } catch (CorruptIndexException e) {
        origin.counter().checksumMismatches.increment();
        if (attempt == 2) {
          throw e;
        }
        log.warn("chunk table {} is damaged ({}); fetching it again", source, e.getMessage());
        r = r == null ? null : r.again(0, tableLength(blob));
      }
    }
  }

  /** The length of {@code blob}'s chunk table, as the snapshot wrote it: what a request for it asks for. */
  static long tableLength(BlobChecksums blob) {
    return ChunkTable.blobLength(blob.length, blob.chunkSize);
  }
}
