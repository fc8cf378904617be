/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

/**
 * A point-in-time view of a {@link Catalog}.
 *
 * @param mounted indices mounted
 * @param open indices whose reader is open or opening (what {@code maxOpenReaders} bounds)
 * @param opening of those, the ones still opening
 * @param readerHeapBytes the estimated heap of the open readers
 * @param readerOpens readers opened since the catalog started
 * @param readerCloses readers closed
 * @param readersClosedIdle of those, closed for being idle past the time-out
 * @param readersClosedForRoom of those, closed to make room for another (the least recently used idle ones)
 * @param leaseWaitNanos time acquires spent waiting for room to open a reader
 * @param searches multi-index searches run
 * @param indicesSearched indices those searches searched
 * @param indicesSkipped indices they skipped without opening: their recorded point ranges could not match, or
 *     (for a top-N sorted on a point field) could not beat the hits already found
 * @param indicesFailed indices whose search failed
 */
public record CatalogStats(
    int mounted,
    int open,
    int opening,
    long readerHeapBytes,
    long readerOpens,
    long readerCloses,
    long readersClosedIdle,
    long readersClosedForRoom,
    long leaseWaitNanos,
    long searches,
    long indicesSearched,
    long indicesSkipped,
    long indicesFailed) {}
