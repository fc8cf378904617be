/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Reading snapshots in place: {@link dev.permafrost.store.BlobDirectory}, a read-only Lucene {@code Directory} over
 * one mounted snapshot, and {@link dev.permafrost.store.SharedRegionCache}, the one bounded on-disk cache that every
 * mounted index of a node reads through. {@link dev.permafrost.store.CacheStats} is what the cache reports, and
 * {@link dev.permafrost.store.CacheSummary} what a cache directory holds, read without opening it.
 * {@link dev.permafrost.store.ColumnPrefetch} and {@link dev.permafrost.store.HitPrefetchingCollector} let a search
 * say what it will read, so that a cold search fetches it together rather than one round trip after another;
 * {@link dev.permafrost.store.ReadDeadline} and {@link dev.permafrost.store.ReadCost} bound and count a thread's
 * reads. Everything else is package-private.
 *
 * <p>The read path, in five files:
 *
 * <ol>
 *   <li>{@code BlobIndexInput}: the {@code IndexInput}; a read inside its current window is a bounds check, a read
 *       from the cache file's mapping and a generation check; anything else moves the window.
 *   <li>{@code CachedBlob}: one blob as the cache sees it (shared by every index that uses it): region math, which
 *       slot holds each region, how its bytes are verified (chunk table, whole-file checksum), direct reads.
 *   <li>{@code Slot}: one slot of the cache file lent to one region: which pages are filled, the fills under way and
 *       the generation that tells lock-free readers the slot changed hands. The only code that waits or notifies;
 *       its concurrency notes are in its source.
 *   <li>{@code Filler}: the fetch threads: fetch a range, verify every chunk, write it, mark it filled; and the
 *       threads that load chunk tables in parallel with the first fill of a blob.
 *   <li>{@code RegionFile}: the cache file itself: created, locked (through a separate lock file), sized, mapped and
 *       written only here.
 * </ol>
 *
 * <p>Around them: {@code SlotPool} (the cache file's space as slots of power-of-two sizes, split and merged on demand,
 * and sampled eviction), {@code EvictionPolicy} (what a region is worth when one must go: the seam the {@code jmh}
 * simulator replays through) with {@code CostAwareTinyLfu} (the shipped one) and {@code FrequencySketch},
 * {@code ScanRead} (a column the cache does not admit, read in one request into heap bytes), {@code CacheRecord} (what a clean close writes down so that the
 * next start keeps the cache), {@code BlobFile} (what the inputs of one file of one mounted index share), {@code Fill},
 * {@code HeapWindow}, and the stats counters.
 */
package dev.permafrost.store;
