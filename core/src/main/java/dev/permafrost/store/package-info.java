/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Reading snapshots in place: {@link dev.permafrost.store.BlobDirectory}, a read-only Lucene {@code Directory} over
 * one mounted snapshot, and {@link dev.permafrost.store.SharedRegionCache}, the one bounded on-disk cache that every
 * mounted index of a node reads through. {@link dev.permafrost.store.CacheStats} is what the cache reports, and
 * {@link dev.permafrost.store.CacheSummary} what a cache directory holds, read without opening it.
 * {@link dev.permafrost.store.ColumnPrefetch} and {@link dev.permafrost.store.HitPrefetchingCollector} let a search
 * say what it will read, so that a cold search fetches it together rather than one round trip after another
 * ({@code ColumnPrefetch.columnSlice} lets a codec say which of its sequential slices are columns, and
 * {@code ColumnPrefetch.willRead} where a search reads next);
 * {@link dev.permafrost.store.ReadDeadline} and {@link dev.permafrost.store.ReadCost} bound and count a thread's
 * reads. Everything else is package-private.
 *
 * <h2>Layers</h2>
 *
 * <p>From the top; a class names only classes of its own layer or of the layers below it, and no classes depend on
 * each other in a cycle ({@code ArchitectureTest} checks both on the compiled classes). Where a lower layer must call
 * up, it calls an interface it defines.
 *
 * <ol>
 *   <li><b>Lucene face</b>: {@code BlobDirectory}, {@code SharedRegionCache} (the public facade: builder, stats,
 *       manifests' bytes, clearing, close), {@code BlobIndexInput} (the {@code IndexInput}: windows and the hot path),
 *       {@code IndexFile} (one file of a mounted index: what its inputs share), {@code ColumnPrefetch},
 *       {@code HitPrefetchingCollector} and {@code ReadIntent} (what a thread's reads are for).
 *   <li><b>One blob</b>: {@code CachedBlob} (one blob as the cache sees it: region math, which slot holds which region,
 *       how a read of a region is served, and the direct reads of it inputs may share), {@code DirectRead} (a
 *       column's stretch read directly from the store into heap, and its share of the scan budget) and
 *       {@code BlobTable} (every blob the cache knows; the record of a clean close and its restore).
 *   <li><b>Cache space</b>: {@code Slot} (one slot's life and its fill state: the only code that waits or notifies),
 *       {@code SlotPool} (the file's space as slots of power-of-two sizes, and sampled eviction),
 *       {@code EvictionPolicy} with {@code CostAwareTinyLfu} and {@code FrequencySketch} (what a region is worth),
 *       {@code CacheSpace} (what every slot shares: the cache file, the filler, the wait bound and whether the cache is
 *       open). Its interfaces up:
 *       {@code RegionOwner} (what a slot needs of the blob it holds a region of, and how it tells the blob the region
 *       is gone) and {@code WindowTarget} with {@code SlotGeneration} (how a slot points a reader at readable bytes,
 *       and what the reader checks after reading them).
 *   <li><b>Fetching</b>: {@code Filler} (the lanes: demand, prefetch, and the chunk table blobs of format-2
 *       snapshots, format 3 keeping the tables in the manifest; how fills become requests), {@code PrefetchBatch} (a
 *       thread's prefetches held to be planned together), {@code FetchTask} (a fetch that
 *       can be called off), {@code Fill}, {@code VerifiedFetch} (one request, verified piece by piece) and
 *       {@code BlobChecksums} (what verifies a blob). Its interfaces up: {@code Fillable} (a fill's fetch telling its slot
 *       it is queued, under the slot's monitor, and of written ranges, which wakes readers) and {@code FetchOrigin} (the store, deadlines and counters of the file a
 *       fetch is for).
 *   <li><b>Support</b>, used by all: {@code CacheFile} (the cache file: created, locked, sized, mapped and written
 *       only here), {@code CacheRecord}, {@code CacheSummary}, the stats, {@code ReadCost}, {@code ReadDeadline},
 *       {@code HeapWindow}, {@code DirectReadBudget}, {@code WarnOnce}, {@code CacheSizing} (how large the cache, its
 *       regions and slots are: pure functions of the settings, the disk and the heap).
 * </ol>
 *
 * <h2>Where to look</h2>
 *
 * <ul>
 *   <li>Where is a read served? {@code BlobIndexInput}: a read inside its window is a bounds check, a read from the
 *       mapping and a generation check; a move goes to {@code CachedBlob#window}, which asks the region's
 *       {@code Slot#awaitPage} (cached, joined or fetched) or reads directly from the store.
 *   <li>Who decides what is evicted? {@code SlotPool#take} samples windows of the file and asks the
 *       {@code EvictionPolicy} ({@code CostAwareTinyLfu}) what each is worth against the newcomer; a window with a
 *       slot being filled, or held for a prefetch's work or reader ({@code Slot#isHeld}), is skipped.
 *   <li>How does a search avoid fetching bytes twice? Regions a prefetch announced (fetched or cached) are held
 *       until the work that announced them settles ({@code Slot#prefetch}, {@code ReadCost#settle}), outside any
 *       work until their reader comes; the fills of adjacent regions are one request, and so are those of one blob
 *       whose gaps cost less than a round trip by the store policy's model ({@code Filler#start(List, ...)},
 *       {@code StorePolicy#bridgedGapBytes}), gathered across calls by a {@code PrefetchBatch}, a gap inside one
 *       region kept in its slot ({@code Fillable#fillGap}) since the request reads it anyway; a reader's fill cut
 *       at its region's end is one request with what carries it on;
 *       columns the cache refused, and those one call names past half of the cache
 *       ({@code ReadIntent#COLUMN_SHARE_OF_CACHE}), are read directly from the store once per run ({@code ReadIntent#startWanted}),
 *       and every input of the blob reads from that read while it is alive ({@code CachedBlob#directReadHolding});
 *       a region admitted amid or beside such a read's stretch, and a column a region or less away, come in its
 *       request, the region filled from its bytes ({@code ReadIntent#startWanted}, {@code CachedBlob#directGapBytes},
 *       {@code Slot#offer}).
 *   <li>Where are bytes verified? {@code VerifiedFetch}: every piece against the blob's chunk table (given by the
 *       manifest, {@code BlobChecksums#keep}, or loaded from its blob) or whole-file checksums before any is handed on; restored bytes in {@code Slot#awaitPage} (their first read).
 *   <li>What happens when a fetch fails? {@code Filler}'s tasks end the fill ({@code Fillable#finish}): its waiters in
 *       {@code Slot#awaitPage} throw its error, or start a fetch of their own if it was called off; a failed write to
 *       the cache file sends the reader directly to the store ({@code CachedBlob#window}).
 * </ul>
 *
 * <h2>A slot's life</h2>
 *
 * <p>Every transition goes through {@code Slot} (ownership under its monitor, bracketed by two generation bumps) or
 * {@code SlotPool} (free lists, under the pool's monitor); its concurrency notes are in {@code Slot}'s source.
 *
 * <table>
 *   <caption>The states of a slot</caption>
 *   <tr><th>state</th><th>held by</th><th>entered by</th><th>left by</th></tr>
 *   <tr><td>free</td><td>the pool's free lists</td><td>{@code SlotPool#giveBack} (merged with a free buddy), or cut
 *       from the file</td><td>{@code SlotPool#take} or {@code #carve} (split first if larger: the old slot is
 *       retired)</td></tr>
 *   <tr><td>handed out</td><td>the one caller that took it</td><td>{@code take}, {@code carve}, {@code Slot#tryTake}</td>
 *       <td>{@code Slot#assign} or {@code #restore}; or {@code giveBack}</td></tr>
 *   <tr><td>owned</td><td>one (blob, region); readers read its filled pages without a lock</td><td>{@code assign},
 *       {@code restore}</td><td>a fill registered; or {@code tryTake} (eviction, clearing), which tells the owner
 *       ({@code RegionOwner#regionReleased})</td></tr>
 *   <tr><td>filling</td><td>its owner, and the fills writing into it</td><td>a fill registered
 *       ({@code awaitPage}, {@code prefetch}, {@code carryOn}, {@code offer})</td><td>its last fill's end
 *       ({@code Fillable#progress} or {@code #finish}), or a prefetch's fill taken back unqueued because a direct read
 *       brings its bytes ({@code Slot#withdraw}); never taken meanwhile</td></tr>
 * </table>
 */
package dev.permafrost.store;
