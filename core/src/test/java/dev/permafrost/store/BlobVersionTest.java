/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.snapshot.FileEntry;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One blob name, two versions (a snapshot's manifest written again keeps its name): a version no one reads gives way
 * to the one a manifest names now, its regions freed; two versions read at the same moment are refused, naming both.
 */
class BlobVersionTest {
  private static final int REGION = 64 << 10;
  @TempDir Path tmp;

  @Test
  void aVersionNoOneReadsGivesWayAndOneInUseIsNot() throws Exception {
    byte[] old = new byte[2 * REGION];
    new Random(7).nextBytes(old);
    FileEntry before = FileEntry.ofWholeBlob("m", "snapshots/s.manifest", old.length, 0xAAL, 1);
    FileEntry after = FileEntry.ofWholeBlob("m", "snapshots/s.manifest", old.length, 0xABL, 2);
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp).size(8 * REGION).regionSize(REGION).build()) {
      CachedBlob first = cache.acquire("store", before, Integer.MAX_VALUE);
      first.offerWhole(old);
      assertEquals(2, cache.stats().regionsInUse());

      IllegalStateException inUse = assertThrows(IllegalStateException.class,
          () -> cache.acquire("store", after, Integer.MAX_VALUE), "the first version is read now");
      assertTrue(inUse.getMessage().contains("snapshots/s.manifest") && inUse.getMessage().contains("aa")
          && inUse.getMessage().contains("ab"), inUse.getMessage());
      assertEquals(2, cache.stats().regionsInUse(), "the version in use keeps its regions");

      cache.release(first);
      CachedBlob second = cache.acquire("store", after, Integer.MAX_VALUE);
      assertNotSame(first, second);
      assertEquals(0xABL, second.checksums.checksum);
      assertNull(first.slot(0), "the old version's regions are freed");
      assertNull(second.slot(0), "and none of them serve the new one");
      assertEquals(0, cache.stats().regionsInUse());
      cache.release(second);
    }
  }
}
