/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.permafrost.snapshot.FileEntry;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped eviction policy through the real cache and pool: a full cache of four regions, where regions a reader
 * waited for outweigh prefetched ones used as often, and prefetched ones compete by use.
 */
class CostAwareTinyLfuTest {
  private static final int REGION = 32 << 10;
  @TempDir Path tmp;
  private SharedRegionCache cache;
  private CachedBlob structure;
  private CachedBlob column;

  @BeforeEach
  void setUp() throws IOException {
    cache = SharedRegionCache.builder().path(tmp).size(4 * REGION).regionSize(REGION).tailRegionSize(REGION).build();
    structure = cache.acquire("store", FileEntry.ofBlob("a.tim", 16L * REGION, 1, "blob-a"), 0);
    column = cache.acquire("store", FileEntry.ofBlob("b.dvd", 16L * REGION, 2, "blob-b"), 0);
  }

  @AfterEach
  void tearDown() throws IOException {
    cache.close();
  }

  /** Fills the cache with four regions of {@code blob}, each used once, fetched by a reader or prefetched. */
  private void fill(CachedBlob blob, boolean reader) {
    for (int i = 0; i < 4; i++) {
      blob.recordAccess(i);
      Slot slot = blob.slotFor(i, reader);
      assertNotNull(slot, "the cache has room for four regions");
      slot.readerFetched = reader; // as a reader's fill (Slot.startFill) or a prefetch's would leave it
    }
  }

  private void use(CachedBlob blob, int index, int times) {
    for (int i = 0; i < times; i++) {
      blob.recordAccess(index);
    }
  }

  @Test
  void aPrefetchedRegionUsedMoreOftenDoesNotPushOutRegionsAReaderWaitedFor() {
    fill(structure, true);
    use(column, 8, 3); // three uses against one: plain TinyLFU would admit it
    assertNull(column.slotFor(8, false), "a prefetch is worth less than a reader's round trip");
    for (int i = 0; i < 4; i++) {
      assertNotNull(structure.slot(i), "region " + i + " a reader waited for is still cached");
    }
    assertNotNull(column.slotFor(8, true), "a reader waiting for a region used more often is admitted");
  }

  @Test
  void prefetchedRegionsGiveWayToAReadersRegionUsedAsOften() {
    fill(column, false);
    use(structure, 0, 1); // as often as each cached column region
    Slot slot = structure.slotFor(0, true);
    assertNotNull(slot, "a reader's round trip outweighs a prefetched region used as often");
    assertSame(slot, structure.slot(0));
  }

  @Test
  void prefetchedRegionsCompeteByUse() {
    fill(column, false);
    use(column, 9, 1);
    assertNull(column.slotFor(9, false), "used as often as the cached ones: not admitted");
    use(column, 9, 1);
    assertNotNull(column.slotFor(9, false), "used more often: admitted");
  }
}
