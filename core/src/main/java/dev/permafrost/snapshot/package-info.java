/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The snapshot format and its repository: {@link dev.permafrost.snapshot.SnapshotRepository} takes, lists and
 * deletes snapshots of Lucene commits in a blob store; a {@link dev.permafrost.snapshot.SnapshotManifest} describes
 * one (files, their checksums, the bytes it keeps: those a cold open reads and, if the snapshot was taken
 * with warm searches ({@link dev.permafrost.snapshot.SnapshotOptions#withWarmSearches}), those they read; the facts
 * a search can use without opening the index);
 * {@link dev.permafrost.snapshot.ChunkTable}s hold the checksum of every chunk of every file, against which reads are
 * verified, in the manifest (format 3; a blob beside each file's in format 2). {@link dev.permafrost.snapshot.CachedManifests} reads a mounted snapshot's manifest through a
 * {@link dev.permafrost.snapshot.ManifestCache} (the shared region cache), again without a request while it keeps it.
 */
package dev.permafrost.snapshot;
