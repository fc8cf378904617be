/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import dev.permafrost.blob.BlobStore;
import java.io.IOException;

/**
 * Where a mount keeps the bytes of its snapshot's manifest, so that reopening the index costs no request while they
 * stay: the shared region cache is one. It holds bytes; {@link CachedManifests} reads manifests through it and says
 * what a failure means for the snapshot.
 */
public interface ManifestCache {
  /** Keeps the bytes of the manifest {@code ref} names, just read from {@code store}, while it has room for them. */
  void keepManifest(BlobStore store, ManifestRef ref, byte[] bytes);

  /**
   * The bytes of the manifest {@code ref} names: those kept, else read from {@code store} (one request) and kept,
   * verified against {@code ref} either way.
   *
   * @throws org.apache.lucene.index.CorruptIndexException if the bytes are not those {@code ref} names
   * @throws dev.permafrost.blob.BlobNotFoundException (or an exception caused by one) if the blob is gone
   */
  byte[] manifestBytes(BlobStore store, ManifestRef ref) throws IOException;
}
