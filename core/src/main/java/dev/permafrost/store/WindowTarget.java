/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import org.apache.lucene.store.RandomAccessInput;

/**
 * Where a slot points a reader at readable bytes: an input's window. Defined by the cache's space, implemented by the
 * Lucene inputs ({@link BlobIndexInput}) and called by {@link Slot} and {@link CachedBlob}.
 */
interface WindowTarget {
  /**
   * The file bytes [start, end) are readable in the cache file's {@code mapping} at {@code position + cacheDelta} for
   * as long as {@code slot}'s generation is still {@code generation}. The mapping is Lucene's memory-mapped
   * {@code IndexInput} of the whole cache file (a {@code RandomAccessInput} too).
   */
  void setCacheWindow(long start, long end, long cacheDelta, RandomAccessInput mapping, SlotGeneration slot, int generation);

  /** The file bytes [start, end) are {@code bytes} (from position 0), for good. */
  void setHeapWindow(long start, long end, RandomAccessInput bytes);
}
