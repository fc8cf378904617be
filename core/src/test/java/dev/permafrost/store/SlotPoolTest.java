/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The buddy allocator on its own: slots handed out never overlap, and space given back merges into its roots. */
class SlotPoolTest {
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);

  private SlotPool randomPool() {
    int max = 1 << (12 + random.nextInt(6));
    int min = Math.max(512, max >>> random.nextInt(8));
    long bytes = (long) max * random.nextInt(4) + random.nextInt(max) + min;
    return new SlotPool(bytes, max, min, Math.min(min, 4096), "test", new CostAwareTinyLfu(64), null);
  }

  private static boolean overlaps(List<Slot> held, Slot s) {
    return held.stream().anyMatch(h -> h.cacheOffset < s.cacheOffset + s.size && s.cacheOffset < h.cacheOffset + h.size);
  }

  @Test
  void randomTakesAndGiveBacksKeepTheFilePartitionedAndFreeBuddiesMerged() {
    for (int round = 0; round < 20; round++) {
      SlotPool pool = randomPool();
      Slot[] roots = pool.slots();
      assertEquals(pool.bytes, Arrays.stream(roots).mapToLong(s -> s.size).sum(), "seed " + seed);
      List<Slot> held = new ArrayList<>();
      int orders = Integer.numberOfTrailingZeros(pool.maxSize) - Integer.numberOfTrailingZeros(pool.minSize) + 1;
      for (int op = 0; op < 2000; op++) {
        if (held.isEmpty() || random.nextInt(5) < 3) {
          int size = pool.minSize << random.nextInt(orders);
          boolean room = Arrays.stream(pool.slots()).anyMatch(s -> s.free && s.size >= size);
          Slot s = pool.take(size, 0, 0); // nothing is owned: nothing can be evicted
          assertEquals(room, s != null, "seed " + seed + ": a slot of " + size + " is handed out iff a free piece holds it");
          if (s != null) {
            assertEquals(size, s.size);
            assertEquals(0, s.cacheOffset % size, "aligned to its size");
            assertFalse(s.free);
            assertFalse(overlaps(held, s), "seed " + seed + ": " + s + " overlaps a slot handed out");
            held.add(s);
          }
        } else {
          pool.giveBack(held.remove(random.nextInt(held.size())));
        }
        assertTrue(pool.checkInvariants(), "seed " + seed + " after op " + op);
      }
      for (Slot s : held) {
        pool.giveBack(s);
      }
      assertTrue(pool.checkInvariants());
      Slot[] after = pool.slots();
      assertEquals(roots.length, after.length, "seed " + seed + ": everything merged back into the roots");
      for (int i = 0; i < roots.length; i++) {
        assertEquals(roots[i].cacheOffset, after[i].cacheOffset);
        assertEquals(roots[i].size, after[i].size);
        assertTrue(after[i].free);
      }
    }
  }

  @Test
  void carveCutsExactlyTheSlotAskedForOnceAndOnlyFromFreeSpace() {
    SlotPool pool = new SlotPool(3 * 65536 + 16384, 65536, 1024, 1024, "test", new CostAwareTinyLfu(64), null);
    Slot a = pool.carve(65536 + 8192, 4096);
    assertNotNull(a);
    assertEquals(65536 + 8192, a.cacheOffset);
    assertEquals(4096, a.size);
    assertNull(pool.carve(65536 + 8192, 4096), "taken already");
    assertNull(pool.carve(65536, 16384), "overlaps a slot handed out");
    assertNull(pool.carve(65536 + 1024, 4096), "not aligned to its size");
    assertNull(pool.carve(3 * 65536, 32768), "larger than the small root there");
    assertNull(pool.carve(65536, 3000), "not a power of two");
    Slot b = pool.carve(3 * 65536, 16384);
    assertNotNull(b, "the whole small root");
    assertTrue(pool.checkInvariants());
    pool.giveBack(a);
    pool.giveBack(b);
    assertTrue(pool.checkInvariants());
    assertEquals(4, pool.slots().length, "three whole roots and a small one again");
  }

  @Test
  void aPieceGivenBackIsHandedOutAgainBeforeAnyLargerPieceIsSplit() {
    SlotPool pool = new SlotPool(2 * 65536, 65536, 4096, 4096, "test", new CostAwareTinyLfu(64), null);
    Slot first = pool.take(4096, 0, 0);
    Slot second = pool.take(4096, 0, 0);
    assertEquals(0, first.cacheOffset);
    assertEquals(4096, second.cacheOffset, "the lowest free piece is split first");
    Slot big = pool.take(65536, 0, 0);
    assertEquals(65536, big.cacheOffset, "the untouched root");
    assertNull(pool.take(65536, 0, 0), "no free piece that large");
    pool.giveBack(first);
    Slot again = pool.take(4096, 0, 0);
    assertEquals(0, again.cacheOffset);
    assertSame(again, pool.slots()[0]);
  }
}
