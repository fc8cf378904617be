/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/**
 * What a cached region is worth, which is all the {@link SlotPool} asks when it must evict: a region is admitted
 * only if it is worth more than the least valuable of a few sampled windows of the cache, and that window is
 * emptied for it. The pool owns the space and the sampling; the policy owns the values and the use counts behind
 * them. Called with the pool's monitor held (values) or no monitor (accesses): implementations never block.
 */
interface EvictionPolicy {
  /** Counts a use of region {@code index} of {@code blob} (once per region an input moves into, or a sample of them). */
  void recordAccess(CachedBlob blob, int index);

  /**
   * What caching region {@code index} of {@code blob} would be worth: {@code reader} is true when a reader is about
   * to wait for it, false when it is prefetched (fetched beside other ranges, in the same round trip).
   */
  int candidateValue(CachedBlob blob, int index, boolean reader);

  /** What the region {@code slot} holds is worth (its owner and index read racily: the pool checks before evicting). */
  int residentValue(Slot slot, CachedBlob owner, int index);

  /** The use count of a region, for the record of a clean close. */
  int frequency(CachedBlob blob, int index);

  /** Restores a recorded use count at start. */
  void restoreFrequency(CachedBlob blob, int index, int frequency);
}
