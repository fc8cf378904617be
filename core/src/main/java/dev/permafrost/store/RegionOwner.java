/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/**
 * What a slot and the pool need of the blob whose region a slot holds: where the region is, what verifies its bytes,
 * its key in the eviction policy's counts, and a way to tell the blob that a slot no longer holds one of its regions.
 * Defined by the cache's space, implemented by the one-blob layer ({@link CachedBlob}). Regions are numbered from 0 in
 * the blob.
 */
interface RegionOwner {
  /** The file offset of region {@code index}'s first byte. */
  long regionStart(int index);

  /** The bytes of region {@code index}. */
  int regionLength(int index);

  /** The size of the slot region {@code index} takes: a power of two at least its length. */
  int slotSize(int index);

  /** Region {@code index}'s key in the {@link EvictionPolicy}'s counts. */
  long regionKey(int index);

  /** What verifies the blob's bytes, and names it in messages. */
  BlobChecksums checksums();

  /**
   * The slot that held region {@code index} no longer does (it was taken back, or found stale): forget it. Called
   * with no slot monitor held (the pool's may be).
   */
  void regionReleased(int index);
}
