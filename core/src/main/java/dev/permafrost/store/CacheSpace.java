/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.RandomAccessInput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache file as its slots use it: the file and its mapping ({@link CacheFile}), the {@link Filler} that writes
 * fetched bytes into it, the longest a reader waits for the store, and whether the cache is still open. One per cache,
 * shared by every slot; it knows nothing of slots or blobs.
 */
final class CacheSpace {
  private static final Logger log = LoggerFactory.getLogger(CacheSpace.class);

  final CacheFile cacheFile;
  final Filler filler;
  /** The longest a reader waits for the store: see {@link SharedRegionCache.Builder#maxReadWait}. */
  final long maxReadWaitNanos;
  private final WarnOnce restoredMismatches = new WarnOnce(log);
  private volatile boolean closed;

  CacheSpace(CacheFile cacheFile, Filler filler, long maxReadWaitNanos) {
    this.cacheFile = cacheFile;
    this.filler = filler;
    this.maxReadWaitNanos = maxReadWaitNanos;
  }

  /** The memory mapping of the whole cache file, for positional reads from any thread. */
  RandomAccessInput mapped() {
    return cacheFile.mapped();
  }

  boolean isClosed() {
    return closed;
  }

  /** Marks the cache closed: from now on {@link #ensureOpen} throws, and waiting readers notice within 200 ms. */
  void markClosed() {
    closed = true;
  }

  void ensureOpen() {
    if (closed) {
      throw new AlreadyClosedException("the shared region cache at " + cacheFile.path() + " is closed");
    }
  }

  /** Logs (once at WARN, then at DEBUG) a restored unit that did not match its recorded checksum. */
  void restoredMismatch(BlobChecksums blob, int index, long regionOffset, int length, int expected, int actual) {
    restoredMismatches.warn("restored", "bytes [{}, +{}) of region {} of blob {} ({}) in the cache file {} do not match"
        + " the crc32c recorded at the last clean close ({} recorded, {} found): the file was changed while the cache"
        + " was closed; the region's unverified bytes are dropped and fetched again", regionOffset, length, index,
        blob.blobName, blob.fileName, cacheFile.path(), Integer.toHexString(expected), Integer.toHexString(actual));
  }
}
