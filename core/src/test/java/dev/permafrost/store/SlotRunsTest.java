/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The runs of filled pages a slot points readers at, found word by word, against a walk page by page. */
class SlotRunsTest {
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);

  private static boolean set(long[] bitmap, int page) {
    return (bitmap[page >>> 6] & (1L << page)) != 0;
  }

  @Test
  void runsAroundEverySetBitMatchAPageByPageWalk() {
    for (int round = 0; round < 2000; round++) {
      int pages = 1 + random.nextInt(random.nextBoolean() ? 70 : 300);
      long[] bitmap = new long[(pages + 63) >>> 6];
      double density = random.nextDouble();
      for (int p = 0; p < pages; p++) {
        if (random.nextDouble() < density) {
          bitmap[p >>> 6] |= 1L << p;
        }
      }
      if (random.nextInt(4) == 0) { // long runs across words: whole words set
        for (int w = 0; w < bitmap.length; w++) {
          if (random.nextBoolean()) {
            bitmap[w] = pages >= (w + 1) * 64 ? -1L : (1L << (pages - w * 64)) - 1;
          }
        }
      }
      for (int page = 0; page < pages; page++) {
        if (!set(bitmap, page)) {
          continue;
        }
        int start = page;
        while (start > 0 && set(bitmap, start - 1)) {
          start--;
        }
        int end = page + 1;
        while (end < pages && set(bitmap, end)) {
          end++;
        }
        assertEquals(start, Slot.runStart(bitmap, page), "run start around " + page + " of " + pages + ", seed " + seed);
        assertEquals(end, Slot.runEnd(bitmap, page, pages), "run end around " + page + " of " + pages + ", seed " + seed);
      }
    }
  }
}
