/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStore;

/**
 * Where a fetch reads from and what it reports to: the store of the mounted file that asked for it, how long the
 * store policy lets a read of it take, and the counters of that file. Defined here, in the fetching layer, and
 * implemented by the file the reads are for ({@link IndexFile}); its {@code toString} names the file in messages.
 */
interface FetchOrigin {
  BlobStore store();

  /** The store, as messages name it (no credentials). */
  String storeDescription();

  /** The counters this file's fetches, direct reads and checksum mismatches go to. */
  CacheStatsCounter counter();

  /**
   * When a reader waiting for a fetch of {@code bytes} bytes asked at {@code now} gives up: the longest the store
   * policy lets such a read take, retries included; Long.MAX_VALUE without a policy.
   */
  long deadlineAfter(long now, long bytes);

  /**
   * The longest gap between two ranges of the blob that a fetch reads across, to bring both in one request (the store
   * policy's {@link dev.permafrost.blob.StorePolicy#bridgedGapBytes()}); 0 without a policy.
   */
  long bridgedGap();

  /** How deadlines are set, for messages. */
  String deadlineExplained();

  /**
   * The heap that reads straight from the store may hold while the work that made them runs, for other inputs to read
   * ({@link DirectRead}); null if such reads are not kept.
   */
  default DirectReadBudget directReadBudget() {
    return null;
  }
}
