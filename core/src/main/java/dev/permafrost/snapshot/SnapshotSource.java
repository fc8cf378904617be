/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import dev.permafrost.blob.BlobStore;
import java.io.IOException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.Directory;

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
}
