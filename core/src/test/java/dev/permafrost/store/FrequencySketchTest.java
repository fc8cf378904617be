/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The sketch's counts: they grow to a ceiling, and are halved after as many uses that grew a count as the sample
 * size; a use of a region at the ceiling grows nothing, counts nothing, and so writes nothing shared.
 */
class FrequencySketchTest {
  private static final int MAX = 15;

  @Test
  void countsGrowToTheCeilingAndAgeOnlyWithUsesThatGrewACount() {
    FrequencySketch sketch = new FrequencySketch(1); // 128 counters, halved every 64 growing uses
    long hot = FrequencySketch.key(1, 0);
    for (int i = 0; i < MAX; i++) {
      assertEquals(i, sketch.frequency(hot));
      sketch.increment(hot);
    }
    assertEquals(MAX, sketch.frequency(hot));
    for (int i = 0; i < 1000; i++) {
      sketch.increment(hot); // at the ceiling: not counted towards ageing
    }
    assertEquals(MAX, sketch.frequency(hot), "no ageing from uses that grew nothing");
    int growing = 0;
    for (int file = 2; sketch.frequency(hot) == MAX; file++) {
      long other = FrequencySketch.key(file, 0);
      if (sketch.frequency(other) < MAX) {
        growing++;
      }
      sketch.increment(other);
      assertTrue(file < 10_000, "the sketch never aged");
    }
    assertEquals(64 - MAX, growing, "aged at the 64th use that grew a count, the hot key's 15 among them");
    assertEquals(MAX / 2, sketch.frequency(hot), "halved");
  }
}
