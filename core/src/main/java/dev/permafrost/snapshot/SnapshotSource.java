/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import dev.permafrost.blob.BlobStore;
import java.io.IOException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.IOSupplier;

/**
 * Where mounted snapshots come from: a store, and how a snapshot's manifest is read from it. A
 * {@link SnapshotRepository} is one; a reader of another format (a repository written by Elasticsearch or
 * OpenSearch) is another, that presents each of its Lucene commits as a {@link SnapshotManifest} whose
 * {@link SnapshotManifest#ref() ref} names the one blob its facts are read from.
 *
 * <p>{@link CachedManifests} reads a manifest once with {@link #readManifestBytes}, keeps those bytes in the shared
 * cache, and turns them into a manifest with {@link #parseManifest} whenever it is needed again (each time a closed
 * index reopens), so a source must parse the same bytes into the same manifest every time, reading at most what it
 * keeps of its repository once read (never per parse).
 */
public interface SnapshotSource {
  /** The store the manifest and the index files are read from. */
  BlobStore store();

  /**
   * The bytes of the named snapshot's manifest blob, read from the store and not yet checked.
   *
   * @throws SnapshotException.NotFound if there is no such snapshot
   */
  byte[] readManifestBytes(String snapshot) throws IOException;

  /**
   * Parses and checks bytes that {@link #readManifestBytes} returned for {@code snapshot}.
   *
   * @throws SnapshotException.CorruptManifest if they are truncated or corrupt
   * @throws SnapshotException.UnsupportedFormat if they are of a format this source does not read
   */
  SnapshotManifest parseManifest(String snapshot, byte[] bytes) throws SnapshotException;

  /**
   * Opens the reader a mounted snapshot is searched through, over the directory of its files. By default the
   * commit as Lucene reads it; a source whose engine hides documents (soft deletes, nested documents) wraps it.
   */
  default DirectoryReader openReader(Directory directory) throws IOException {
    return DirectoryReader.open(directory);
  }

  /**
   * Checks, when {@code snapshot} is mounted (after its manifest is read, before the mount is registered), that this
   * build can read what the snapshot holds, so that a format it cannot read fails the mount, naming it, and never a
   * search. By default nothing: a manifest this source parsed is one it reads. A source whose manifest does not say
   * which formats its files are in (an engine's shard) opens the commit over {@code directory}, a directory of the
   * snapshot's files read through the shared cache (its bytes stay there for the first search), and closes it.
   *
   * @throws SnapshotException.UnsupportedFormat naming the snapshot, file, format and version this build cannot read
   */
  default void checkReadable(String snapshot, IOSupplier<Directory> directory) throws IOException {}

  /**
   * Checks {@code snapshot} at mount, as {@link #checkReadable} does, and returns what the mount keeps in memory to
   * open its reader from for as long as it is mounted, or null to read {@code manifest} again through the shared cache
   * each time the index opens. By default: {@link #checkReadable}, then null (a Permafrost manifest keeps what opening
   * reads itself, and its bytes are read again with no request while the cache holds them).
   *
   * <p>A source whose manifest keeps none of what opening its commit reads (an engine's shard keeps only its
   * {@code segments_N} and {@code .si} files) records those reads here, through {@code directory}, and returns
   * {@code manifest} with them kept ({@link FileEntry#withWarmRanges}), each verified before it is kept, so that opening
   * the index later on a cache emptied meanwhile makes no request. The catalog counts what it keeps
   * ({@link SnapshotManifest#heapBytes}) in the mount's heap; the source bounds it. Such a source may also record, from
   * the reader it opened, point ranges its metadata lacks ({@link SnapshotInfo#withPointRanges}, from
   * {@link PointRange#of}): the catalog then skips the index for a search whose ranges it cannot match, and orders a
   * sorted search's indices by them, as it does with the ranges a Permafrost manifest records.
   *
   * @throws SnapshotException.UnsupportedFormat naming the snapshot, file, format and version this build cannot read
   * @throws SnapshotException.CorruptManifest naming the snapshot and file if a byte to keep is not what it must be
   */
  default SnapshotManifest checkAndKeep(String snapshot, SnapshotManifest manifest, IOSupplier<Directory> directory)
      throws IOException {
    checkReadable(snapshot, directory);
    return null;
  }
}
