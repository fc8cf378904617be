/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CacheSummary#read} tells what a closed cache holds, from its record, and changes nothing. */
class CacheSummaryTest {
  private static final long SIZE = 16 << 20;
  private static final long REGION = 1 << 20;
  @TempDir Path tmp;

  @Test
  void summarizesTheRecordOfACleanCloseAndLeavesItForTheNextStart() throws IOException {
    Path cacheDir = tmp.resolve("cache");
    CountingBlobStore store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotRepository repo = SnapshotRepository.open(store);
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, new Random(42), 2000, 2);
      repo.createSnapshot("snap", local);
    }
    SnapshotManifest manifest;
    try (SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir).size(SIZE).regionSize(REGION).build()) {
      manifest = CachedManifests.read(repo, "snap", cache);
      try (BlobDirectory dir = BlobDirectory.open(repo, manifest, cache, "snap")) {
        for (FileEntry f : manifest.files()) {
          MountedIndexTest.readAll(dir, f.name());
        }
      }
    }
    Path record = cacheDir.resolve(CacheRecord.FILE_NAME);
    byte[] recordBytes = Files.readAllBytes(record);

    CacheSummary summary = CacheSummary.read(cacheDir);

    assertTrue(summary.recorded(), summary.coldReason());
    assertEquals(SIZE, summary.sizeInBytes());
    assertEquals(REGION, summary.regionSize());
    assertEquals(Files.size(cacheDir.resolve(CacheFile.FILE_NAME)), summary.cacheFileBytes());
    Set<String> blobs = new HashSet<>();
    for (CacheSummary.Blob b : summary.blobs()) {
      assertEquals(store.describe(), b.store(), "the store as the cache knew it");
      assertTrue(b.regions() > 0 && b.slotBytes() > 0 && b.filledBytes() > 0, b.toString());
      assertTrue(b.filledBytes() <= b.length() && b.filledBytes() <= b.slotBytes(), b.toString());
      blobs.add(b.blobName());
    }
    Set<String> expected = new HashSet<>();
    for (FileEntry f : manifest.files()) {
      if (f.blobName() != null) {
        expected.add(f.blobName());
      }
    }
    expected.add(manifest.ref().blobName());
    assertEquals(expected, blobs, "every blob read whole, and the manifest");
    assertEquals(summary.blobs().stream().mapToInt(CacheSummary.Blob::regions).sum(), summary.regions());

    assertArrayEquals(recordBytes, Files.readAllBytes(record), "reading changes nothing");
    try (SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir).size(SIZE).regionSize(REGION).build()) {
      assertTrue(cache.stats().regionsInUse() > 0, "the next start still restores from the record");
    }
  }

  @Test
  void saysWhyThereIsNothingToRestore() throws IOException {
    Path cacheDir = tmp.resolve("cache");
    SharedRegionCache open = SharedRegionCache.builder().path(cacheDir).size(SIZE).regionSize(REGION).build();
    try {
      CacheSummary inUse = CacheSummary.read(cacheDir);
      assertFalse(inUse.recorded());
      assertTrue(inUse.coldReason().contains("no record"), inUse.coldReason());
      assertEquals(SIZE, inUse.cacheFileBytes());
      assertTrue(inUse.blobs().isEmpty());
    } finally {
      open.close();
    }
    Path record = cacheDir.resolve(CacheRecord.FILE_NAME);
    byte[] bytes = Files.readAllBytes(record);
    bytes[bytes.length / 2] ^= 0x55;
    Files.write(record, bytes);
    CacheSummary damaged = CacheSummary.read(cacheDir);
    assertNotNull(damaged.coldReason());
    assertTrue(damaged.coldReason().contains("damaged"), damaged.coldReason());
    assertTrue(Files.exists(record), "a damaged record is left where it is");

    Files.delete(record);
    Files.createDirectories(record.resolve("in-the-way"));
    CacheSummary unreadable = CacheSummary.read(cacheDir);
    assertTrue(unreadable.coldReason().contains("cannot be read"), unreadable.coldReason());
    assertTrue(Files.isDirectory(record.resolve("in-the-way")), "left where it is");

    assertThrows(NoSuchFileException.class, () -> CacheSummary.read(tmp.resolve("missing")));
  }
}
