/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.ManifestRef;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One blob name, two versions (a snapshot's manifest written again keeps its name): a version no one reads gives way
 * to the one a manifest names now, its regions freed; a version asked for while another is read is a blob of its own,
 * each served its own bytes, and the one not listed leaves the cache when its reader releases it.
 */
class BlobVersionTest {
  private static final int REGION = 64 << 10;
  @TempDir Path tmp;

  @Test
  void aVersionNoOneReadsGivesWayAndOneInUseStaysBesideTheOther() throws Exception {
    byte[] old = new byte[2 * REGION];
    new Random(7).nextBytes(old);
    FileEntry before = FileEntry.ofWholeBlob("m", "snapshots/s.manifest", old.length, 0xAAL, 1);
    FileEntry after = FileEntry.ofWholeBlob("m", "snapshots/s.manifest", old.length, 0xABL, 2);
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp).size(8 * REGION).regionSize(REGION).build()) {
      CachedBlob first = cache.acquire("store", before, Integer.MAX_VALUE);
      first.offerWhole(old);
      assertEquals(2, cache.stats().regionsInUse());

      CachedBlob beside = cache.acquire("store", after, Integer.MAX_VALUE);
      assertNotSame(first, beside, "the first version is read now: the second is a blob of its own");
      assertTrue(first.listed && !beside.listed);
      assertEquals(0xABL, beside.checksums.checksum);
      assertSame(first, cache.acquire("store", before, Integer.MAX_VALUE), "the listed version is still shared");
      cache.release(first);
      byte[] other = old.clone();
      other[0] ^= 1;
      beside.offerWhole(other);
      assertEquals(4, cache.stats().regionsInUse(), "each version in its own regions");
      assertNotSame(first.slot(0), beside.slot(0));
      cache.release(beside);
      assertNull(beside.slot(0), "the version not listed leaves the cache with its reader");
      assertEquals(2, cache.stats().regionsInUse(), "and the one in use keeps its regions");

      cache.release(first);
      CachedBlob second = cache.acquire("store", after, Integer.MAX_VALUE);
      assertNotSame(first, second);
      assertTrue(second.listed, "no one reads the first version now: the second takes its place");
      assertEquals(0xABL, second.checksums.checksum);
      assertNull(first.slot(0), "the old version's regions are freed");
      assertNull(second.slot(0), "and none of them serve the new one");
      assertEquals(0, cache.stats().regionsInUse());
      cache.release(second);
    }
  }

  /**
   * A stale and a current saved spec of one snapshot, mounting at once: the current manifest is read (from the store,
   * then from the cache) while a reader holds the stale version, each version served its own bytes. Before, the
   * current one failed ("is read now as ..."), and whichever came second of the two could not be mounted.
   */
  @Test
  void twoVersionsOfAManifestReadAtOnceAreEachServedTheirOwnBytes() throws Exception {
    Random random = new Random(11);
    byte[] v1 = randomBytes(random, REGION + 4321);
    byte[] v2 = randomBytes(random, REGION + 1234);
    try (BlobStore store = FileSystemBlobStore.open(tmp.resolve("repo"), true); SharedRegionCache cache = cache(8)) {
      ManifestRef ref1 = ref(v1);
      ManifestRef ref2 = ref(v2);
      write(store, NAME, v1);
      assertArrayEquals(v1, cache.manifestBytes(store, ref1));
      CachedBlob stale = cache.acquire(store.describe(), entry(v1), Integer.MAX_VALUE);

      write(store, NAME, v2); // the snapshot written again: its manifest keeps its name
      assertArrayEquals(v2, cache.manifestBytes(store, ref2), "the current version, while the stale one is read");
      assertArrayEquals(v1, cache.manifestBytes(store, ref1),
          "the stale version from its own regions (the store has only the current one now)");
      assertArrayEquals(v2, cache.manifestBytes(store, ref2), "and the current one again");

      cache.release(stale);
      assertArrayEquals(v2, cache.manifestBytes(store, ref2), "no one reads the stale version: the current is listed");
      IOException gone = assertThrows(IOException.class, () -> cache.manifestBytes(store, ref1));
      assertTrue(gone.getMessage().contains(NAME), gone.getMessage());
    }
  }

  /**
   * Threads reading both versions at once, some holding the stale one between reads: a read of the current version
   * always gets its bytes; a read of the stale one gets its bytes while the cache has them, else fails verification
   * (the store has only the current one); no read ever gets the other version's bytes. (The verdict holds for any
   * interleaving; more threads than cores make many.)
   */
  @Test
  void threadsReadingBothVersionsAreNeverServedTheOthersBytes() throws Exception {
    Random random = new Random(13);
    byte[] v1 = randomBytes(random, REGION + 777);
    byte[] v2 = randomBytes(random, REGION + 777); // the same length: only the checksums tell them apart
    try (BlobStore store = FileSystemBlobStore.open(tmp.resolve("repo"), true); SharedRegionCache cache = cache(16)) {
      ManifestRef ref1 = ref(v1);
      ManifestRef ref2 = ref(v2);
      FileEntry stale = entry(v1);
      write(store, NAME, v1);
      assertArrayEquals(v1, cache.manifestBytes(store, ref1));
      write(store, NAME, v2);
      int threads = 6;
      java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
      java.util.concurrent.atomic.AtomicInteger staleServed = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicInteger staleRefused = new java.util.concurrent.atomic.AtomicInteger();
      try {
        List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
          long seed = 100 + t;
          done.add(pool.submit(() -> {
            Random r = new Random(seed);
            for (int i = 0; i < 300; i++) {
              CachedBlob held = r.nextInt(3) == 0 ? cache.acquire(store.describe(), stale, Integer.MAX_VALUE) : null;
              try {
                if (r.nextBoolean()) {
                  assertArrayEquals(v2, cache.manifestBytes(store, ref2), "the current version");
                } else {
                  try {
                    assertArrayEquals(v1, cache.manifestBytes(store, ref1), "the stale version, from the cache");
                    staleServed.incrementAndGet();
                  } catch (org.apache.lucene.index.CorruptIndexException e) {
                    assertTrue(e.getMessage().contains(NAME), e.getMessage());
                    staleRefused.incrementAndGet(); // gone from the cache: the store has the current one only
                  }
                }
              } finally {
                if (held != null) {
                  cache.release(held);
                }
              }
            }
            return null;
          }));
        }
        for (java.util.concurrent.Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      assertTrue(staleServed.get() + staleRefused.get() > 0);
      assertArrayEquals(v2, cache.manifestBytes(store, ref2), "and the current one after");
    }
  }

  private static final String NAME = "snapshots/s.manifest";

  private SharedRegionCache cache(int regions) throws IOException {
    return SharedRegionCache.builder().path(tmp.resolve("cache")).size(regions * REGION).regionSize(REGION).build();
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** The reference a saved spec keeps of a manifest of these bytes. */
  private static ManifestRef ref(byte[] bytes) {
    return new ManifestRef("s", NAME, bytes.length, luceneChecksum(bytes), crc32c(bytes));
  }

  /** The entry the cache knows a manifest of these bytes by. */
  private static FileEntry entry(byte[] bytes) {
    return FileEntry.ofWholeBlob(NAME, NAME, bytes.length, luceneChecksum(bytes), crc32c(bytes));
  }

  /** What a snapshot records of a file: the CRC32 of all but its footer's last 8 bytes. */
  private static long luceneChecksum(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    return crc.getValue();
  }

  private static int crc32c(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  private static void write(BlobStore store, String name, byte[] bytes) throws IOException {
    store.write(name, new ByteArrayInputStream(bytes), bytes.length);
  }
}
