/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/**
 * The shipped policy: TinyLFU weighted by the round trips a region saves. A region's value is its use count (an
 * ageing {@link FrequencySketch}) times {@link #READER_WEIGHT} if a reader had to start its fetch and wait for it,
 * times one if it came in a prefetch. A reader's fetch is a dependent round trip on a query's critical path (a
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

  private static long key(CachedBlob blob, int index) {
    return FrequencySketch.key(blob.id, index);
  }

  @Override
  public void recordAccess(CachedBlob blob, int index) {
    sketch.increment(key(blob, index));
  }

  @Override
  public int candidateValue(CachedBlob blob, int index, boolean reader) {
    int frequency = sketch.frequency(key(blob, index));
    return reader ? frequency * READER_WEIGHT : frequency;
  }

  @Override
  public int residentValue(Slot slot, CachedBlob owner, int index) {
    int frequency = sketch.frequency(key(owner, index));
    return slot.readerFetched ? frequency * READER_WEIGHT : frequency;
  }

  @Override
  public int frequency(CachedBlob blob, int index) {
    return sketch.frequency(key(blob, index));
  }

  @Override
  public void restoreFrequency(CachedBlob blob, int index, int frequency) {
    for (int i = 0; i < frequency; i++) {
      sketch.increment(key(blob, index));
    }
  }
}
