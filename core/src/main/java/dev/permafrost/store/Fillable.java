/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.util.List;

/**
 * What a fill writes into: the slot of the cache file that holds the region being filled. The fetching layer's one
 * way up: a fill's fetch tells the slot it is queued, and of each verified range it wrote (which wakes the readers waiting for it) and of its
 * end. Implemented by {@link Slot}; while a fill is registered, the slot keeps its region, so {@link #regionStart}
 * is stable for as long as the fill runs.
 */
interface Fillable {
  /** Where the region's first byte is in the cache file. */
  long cacheOffset();

  /** The file offset of the region's first byte. */
  long regionStart();

  /**
   * The CRC32C of each unit of the region offsets [from, to) (whole units, but for the region's last), whose bytes
   * are {@code bytes} from {@code offset}: what a clean close records to verify them after a restart.
   */
  int[] unitCrcs(byte[] bytes, int offset, long from, long to);

  /**
   * {@code fill}, registered in this slot, is fetched by {@code task} from now on: recorded under the slot's monitor,
   * so that a reader who comes to wait for it moves {@code task} to the demand lane, and one who gives up calls it
   * off. Returns how the fetch is to start, from what readers did before it had a task.
   */
  Fill.Start queued(Fill fill, FetchTask task);

  /** The region offsets [from, to) of {@code fill} are verified and written, with these units' CRC32Cs. */
  void progress(Fill fill, long from, long to, int[] crcs);

  /** {@code fill} ended without writing the rest: its waiters see {@code error} (or try again if it is null). */
  void finish(Fill fill, IOException error);

  /**
   * Registers fills for what is neither filled nor being fetched of the region offsets [from, to), the gap after
   * {@code before} (a fill of this slot, registered and not queued yet) that one request reads anyway, and returns
   * them in order (none if {@code before} is not registered here): bytes the request brings are kept rather than
   * dropped. Called without the slot's monitor; never blocks.
   */
  List<Fill> fillGap(Fill before, long from, long to, FetchOrigin file);
}
