/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/**
 * The shipped policy: TinyLFU weighted by the round trips a region saves. A region's value is its use count (an
 * ageing {@link FrequencySketch}) times {@link #READER_WEIGHT} if a reader had to start its fetch and wait for it (or
 * a search asked for it as its next read, {@code ColumnPrefetch.willRead}: the same bytes, asked for a round trip
 * sooner), times one if it came in a prefetch. A reader's fetch is a dependent round trip on a query's critical path (a
 * terms index, a terms block, the head of a postings list, a point tree's inner nodes): losing such a region costs
 * the next cold query a whole wave. A prefetched region (a doc-values column a collector named, a range Lucene
 * announced) comes back beside the others in one wave: losing it costs bytes, not waits. So under pressure the
 * columns that a scan reads once give way to the structure every query walks, and prefetched regions compete with
 * each other by use, as in plain TinyLFU.
 */
final class CostAwareTinyLfu implements EvictionPolicy {
  /** How much more a region a reader waited for is worth than a prefetched one used as often. */
  static final int READER_WEIGHT = 4;
  private final FrequencySketch sketch;

  /** @param regions about how many regions the sketch should tell apart */
  CostAwareTinyLfu(int regions) {
    this.sketch = new FrequencySketch(Math.max(1, regions));
  }

  @Override
  public void recordAccess(long key) {
    sketch.increment(key);
  }

  @Override
  public int candidateValue(long key, boolean reader) {
    int frequency = sketch.frequency(key);
    return reader ? frequency * READER_WEIGHT : frequency;
  }

  @Override
  public int carriedValue(long key) {
    return sketch.frequency(key) + 1; // fetched beside the reader's fill, in its round trip: a prefetch's weight
  }

  @Override
  public int residentValue(long key, boolean readerFetched) {
    int frequency = sketch.frequency(key);
    return readerFetched ? frequency * READER_WEIGHT : frequency;
  }

  @Override
  public int frequency(long key) {
    return sketch.frequency(key);
  }

  @Override
  public void restoreFrequency(long key, int frequency) {
    for (int i = 0; i < frequency; i++) {
      sketch.increment(key);
    }
  }
}
