/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/**
 * What a cached region is worth, which is all the {@link SlotPool} asks when it must evict: a region is admitted
 * only if it is worth more than the least valuable of a few sampled windows of the cache, and that window is
 * emptied for it. The pool owns the space and the sampling; the policy owns the values and the use counts behind
 * them. A region is known by its key ({@link RegionOwner#regionKey}). Called with the pool's monitor held (values)
 * or no monitor (accesses): implementations never block.
 */
interface EvictionPolicy {
  /** Counts a use of the region {@code key} (once per region an input moves into, or a sample of them). */
  void recordAccess(long key);

  /**
   * What caching the region {@code key} would be worth: {@code reader} is true when a reader is about to wait for
   * it, false when it is prefetched (fetched beside other ranges, in the same round trip).
   */
  int candidateValue(long key, boolean reader);

  /**
   * What caching the region {@code key} would be worth when it carries on a reader's fill that its region's end cut
   * short, fetched beside it in its round trip: the reader reads on into it, and its move there is a use to come,
   * counted here as made (it is recorded when the reader arrives, not now). By default what a prefetched candidate is
   * worth.
   */
  default int carriedValue(long key) {
    return candidateValue(key, false);
  }

  /**
   * What the cached region {@code key} is worth; {@code readerFetched}: a reader started its fetch and waited for it
   * (read racily from the slot: the pool checks before evicting).
   */
  int residentValue(long key, boolean readerFetched);

  /** The use count of a region, for the record of a clean close. */
  int frequency(long key);

  /** Restores a recorded use count at start. */
  void restoreFrequency(long key, int frequency);
}
