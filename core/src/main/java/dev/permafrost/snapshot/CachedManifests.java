/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import java.io.IOException;
import org.apache.lucene.index.CorruptIndexException;

/**
 * Reads a snapshot's manifest for a mount through a {@link ManifestCache}: the first time from the repository, its
 * bytes then kept; again (each time a closed index reopens) from the cache, checked to be the very manifest that was
 * mounted. A failure is reported as what it means for the snapshot: gone, changed, or not readable now.
 */
public final class CachedManifests {
  private CachedManifests() {}

  /**
   * Reads the named snapshot's manifest from {@code repository} (one request) and keeps its bytes in {@code cache},
   * so that {@link #read(SnapshotSource, ManifestRef, ManifestCache)} can read it again without a request while they
   * stay.
   *
   * @throws SnapshotException.NotFound if there is no such snapshot
   * @throws SnapshotException.CorruptManifest if its manifest is truncated or corrupt
   * @see SnapshotRepository#readManifest(String)
   */
  public static SnapshotManifest read(SnapshotSource repository, String snapshot, ManifestCache cache)
      throws IOException {
    byte[] bytes = repository.readManifestBytes(snapshot);
    SnapshotManifest manifest = repository.parseManifest(snapshot, bytes);
    cache.keepManifest(repository.store(), manifest.ref(), bytes);
    return manifest;
  }

  /**
   * Reads a manifest again: from {@code cache} when it is there (no request), else from the repository (one
   * request), checked to be the very manifest {@code ref} names.
   *
   * @throws SnapshotException.NotFound naming the snapshot and blob if the manifest is gone
   * @throws SnapshotException.CorruptManifest naming them if it is no longer the same
   * @throws SnapshotException naming them if it cannot be read for another reason
   */
  public static SnapshotManifest read(SnapshotSource repository, ManifestRef ref, ManifestCache cache)
      throws IOException {
    BlobStore store = repository.store();
    String storeId = store.describe();
    byte[] bytes;
    try {
      bytes = cache.manifestBytes(store, ref);
    } catch (CorruptIndexException e) {
      throw new SnapshotException.CorruptManifest("the manifest of snapshot '" + ref.snapshot() + "' (" + ref.blobName()
          + " in " + storeId + ") is no longer the one that was mounted: " + e.getMessage(), e);
    } catch (BlobNotFoundException e) {
      throw gone(ref, storeId, e);
    } catch (IOException e) {
      Throwable notFound = e;
      while (notFound != null && !(notFound instanceof BlobNotFoundException)) {
        notFound = notFound.getCause();
      }
      if (notFound != null) {
        throw gone(ref, storeId, e);
      }
      if (lengthChanged(store, ref)) {
        throw new SnapshotException.CorruptManifest("the manifest of snapshot '" + ref.snapshot() + "' ("
            + ref.blobName() + " in " + storeId + ") is no longer the one that was mounted: it is not " + ref.length()
            + " bytes long any more", e);
      }
      throw new SnapshotException("cannot read the manifest of snapshot '" + ref.snapshot() + "' (" + ref.blobName()
          + " in " + storeId + "): " + e.getMessage(), e);
    }
    return repository.parseManifest(ref.snapshot(), bytes);
  }

  private static SnapshotException.NotFound gone(ManifestRef ref, String storeId, IOException cause) {
    return new SnapshotException.NotFound("the manifest of snapshot '" + ref.snapshot() + "' (" + ref.blobName()
        + " in " + storeId + ") is gone: the snapshot was deleted since it was mounted", cause);
  }

  /** Whether the manifest's blob is now of another length: it was replaced. False if that cannot be told. */
  private static boolean lengthChanged(BlobStore store, ManifestRef ref) {
    try {
      return store.length(ref.blobName()) != ref.length();
    } catch (IOException | RuntimeException e) {
      return false; // the read's own failure is the one to report
    }
  }
}
