/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.snapshot.PointRange;
import java.util.Map;

/**
 * A mounted index as {@link Catalog#list()} reports it: its state and the facts its snapshot's manifest records,
 * which are known without opening it.
 *
 * @param name the name it is mounted under
 * @param snapshot the snapshot it mounts
 * @param repository where the snapshot is ({@code BlobStore.describe()})
 * @param mode how it is mounted
 * @param state closed, opening or open
 * @param leases searches holding its reader now
 * @param readerHeapBytes an estimate of the heap its open reader holds (0 when closed)
 * @param numDocs live documents
 * @param maxDoc documents including deleted ones
 * @param sizeInBytes bytes of its files
 * @param fileCount its files
 * @param pointRanges min and max of the point fields the snapshot recorded (an engine's shard: its date fields, recorded
 *     at mount), by field
 * @param userData the commit's user data
 * @param localCopyProgress for a full copy, the share of its bytes copied and verified locally (0 to 1); else 0
 * @param keptHeapBytes heap kept with the mount, open or closed, to open its reader with no request: what its source
 *     keeps of what opening reads (an engine's shard, {@link dev.permafrost.snapshot.SnapshotSource#checkAndKeep});
 *     0 for a Permafrost snapshot, whose manifest is read again through the cache
 */
public record MountInfo(
    String name,
    String snapshot,
    String repository,
    MountMode mode,
    MountState state,
    int leases,
    long readerHeapBytes,
    long numDocs,
    long maxDoc,
    long sizeInBytes,
    int fileCount,
    Map<String, PointRange> pointRanges,
    Map<String, String> userData,
    double localCopyProgress,
    long keptHeapBytes) {}
