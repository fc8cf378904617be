/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

/** What a slot points at readable bytes: an input's window. */
interface WindowTarget {
  /**
   * The file bytes [start, end) are readable in the cache file at {@code position + cacheDelta} for as long as
   * {@code slot}'s generation is still {@code generation}.
   */
  void setCacheWindow(long start, long end, long cacheDelta, Slot slot, int generation);

  /** The file bytes [start, end) are {@code bytes} (from position 0), for good. */
  void setHeapWindow(long start, long end, org.apache.lucene.store.RandomAccessInput bytes);
}
