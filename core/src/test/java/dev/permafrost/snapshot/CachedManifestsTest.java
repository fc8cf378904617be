/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What reading a mounted snapshot's manifest through a cache costs and what each way of failing means, with a cache
 * that is a map (the shared region cache's own reads are tested in the store's tests).
 */
class CachedManifestsTest {
  @TempDir Path tmp;
  private CountingBlobStore store;
  private SnapshotRepository repo;
  private String storeId;

  /** Keeps bytes in a map; reads fail with {@link #failure} when it is set, or as a missing blob. */
  private static final class MapCache implements ManifestCache {
    final Map<String, byte[]> kept = new HashMap<>();
    Exception failure;

    @Override
    public void keepManifest(BlobStore store, ManifestRef ref, byte[] bytes) {
      kept.put(ref.blobName(), bytes);
    }

    @Override
    public byte[] manifestBytes(BlobStore store, ManifestRef ref) throws IOException {
      if (failure instanceof IOException e) {
        throw e;
      } else if (failure instanceof RuntimeException e) {
        throw e;
      }
      byte[] bytes = kept.get(ref.blobName());
      if (bytes == null) {
        throw new BlobNotFoundException(store.describe(), ref.blobName());
      }
      return bytes;
    }
  }

  @BeforeEach
  void setUp() throws IOException {
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
    storeId = store.describe();
    try (Directory dir = FSDirectory.open(tmp.resolve("index"))) {
      RandomIndexes.build(dir, new Random(1), 50, 1);
      repo.createSnapshot("snap", dir);
    }
  }

  @Test
  void theFirstReadKeepsTheBytesItReadAndTheNextCostsNoRequest() throws IOException {
    MapCache cache = new MapCache();
    store.reset();
    SnapshotManifest manifest = CachedManifests.read(repo, "snap", cache);
    assertEquals(1, store.requests(), "the manifest blob, once");
    ManifestRef ref = manifest.ref();
    try (InputStream in = store.read(ref.blobName())) {
      assertArrayEquals(in.readAllBytes(), cache.kept.get(ref.blobName()), "the bytes read are the ones kept");
    }
    store.reset();
    SnapshotManifest again = CachedManifests.read(repo, ref, cache);
    assertEquals(0, store.requests());
    assertEquals("snap", again.name());
    assertEquals(ref, again.ref());
    assertEquals(manifest.files().stream().map(FileEntry::name).toList(),
        again.files().stream().map(FileEntry::name).toList());
  }

  @Test
  void aManifestGoneIsNotFound() throws IOException {
    MapCache cache = new MapCache();
    ManifestRef ref = repo.readManifest("snap").ref();
    String gone = "the manifest of snapshot 'snap' (" + ref.blobName() + " in " + storeId + ") is gone: the snapshot"
        + " was deleted since it was mounted";
    SnapshotException.NotFound e = assertThrows(SnapshotException.NotFound.class,
        () -> CachedManifests.read(repo, ref, cache)); // nothing kept: the map's own "blob not found"
    assertEquals(gone, e.getMessage());
    IOException wrapped = new IOException("fetch failed", new BlobNotFoundException(storeId, ref.blobName()));
    cache.failure = wrapped;
    e = assertThrows(SnapshotException.NotFound.class, () -> CachedManifests.read(repo, ref, cache));
    assertEquals(gone, e.getMessage(), "a cause that is a missing blob");
    assertSame(wrapped, e.getCause());
  }

  @Test
  void aManifestThatFailsItsChecksumsIsCorrupt() throws IOException {
    MapCache cache = new MapCache();
    ManifestRef ref = repo.readManifest("snap").ref();
    CorruptIndexException mismatch = new CorruptIndexException("checksum mismatch", "the manifest");
    cache.failure = mismatch;
    SnapshotException.CorruptManifest e = assertThrows(SnapshotException.CorruptManifest.class,
        () -> CachedManifests.read(repo, ref, cache));
    assertEquals("the manifest of snapshot 'snap' (" + ref.blobName() + " in " + storeId + ") is no longer the one"
        + " that was mounted: checksum mismatch (resource=the manifest)", e.getMessage());
    assertSame(mismatch, e.getCause());
  }

  @Test
  void aFailedReadOfABlobOfAnotherLengthIsCorruptAndOfTheSameLengthIsNot() throws IOException {
    MapCache cache = new MapCache();
    ManifestRef ref = repo.readManifest("snap").ref();
    IOException reset = new IOException("connection reset");
    cache.failure = reset;
    SnapshotException e = assertThrows(SnapshotException.class, () -> CachedManifests.read(repo, ref, cache));
    assertEquals(SnapshotException.class, e.getClass(), "the blob is as long as it was: it may read next time");
    assertEquals("cannot read the manifest of snapshot 'snap' (" + ref.blobName() + " in " + storeId + "): connection"
        + " reset", e.getMessage());
    assertSame(reset, e.getCause());
    ManifestRef longer = new ManifestRef("snap", ref.blobName(), ref.length() + 1, ref.footerChecksum(), ref.crc32c());
    SnapshotException.CorruptManifest changed = assertThrows(SnapshotException.CorruptManifest.class,
        () -> CachedManifests.read(repo, longer, cache));
    assertEquals("the manifest of snapshot 'snap' (" + ref.blobName() + " in " + storeId + ") is no longer the one"
        + " that was mounted: it is not " + (ref.length() + 1) + " bytes long any more", changed.getMessage());
  }

  @Test
  void aClosedCacheIsNotASnapshotFailure() throws IOException {
    MapCache cache = new MapCache();
    ManifestRef ref = repo.readManifest("snap").ref();
    AlreadyClosedException closed = new AlreadyClosedException("the cache is closed");
    cache.failure = closed;
    assertSame(closed, assertThrows(AlreadyClosedException.class, () -> CachedManifests.read(repo, ref, cache)));
  }
}
