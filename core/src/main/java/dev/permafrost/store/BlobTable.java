/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.snapshot.FileEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The blobs the cache knows, by store, blob name and chunk size: each one {@link CachedBlob} however many mounted
 * indices read it (blobs are content-addressed, so the same name in the same store always has the same bytes, but for a
 * snapshot's manifest: see {@link #acquire}). A blob is kept while a directory reads it or a slot holds a region of
 * it. Also what a clean close records of them, and what the next start restores.
 *
 * <p>Lock order: the table's map is updated under its per-key locks (compute); they are taken with the pool's
 * monitor held (an eviction that empties a blob), never the other way round, and no slot monitor is taken under them.
 */
final class BlobTable {
  private final ConcurrentHashMap<String, CachedBlob> blobs = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final SlotPool pool;
  private final CacheSpace cacheSpace;
  private final int tailRegionSize;

  BlobTable(SlotPool pool, CacheSpace cacheSpace, int tailRegionSize) {
    this.pool = pool;
    this.cacheSpace = cacheSpace;
    this.tailRegionSize = tailRegionSize;
  }

  private static String key(String storeId, String blobName, int chunkSize) {
    return storeId + '\n' + blobName + '\n' + chunkSize;
  }

  private CachedBlob newBlob(String key, FileEntry file, int chunkSize, boolean listed) {
    return new CachedBlob(ids.incrementAndGet(), key, new BlobChecksums(file, chunkSize), pool, cacheSpace,
        tailRegionSize, listed, this::noRegionsLeft);
  }

  /**
   * The cached view of a blob, shared by every directory that uses it; release it with {@link #release}. Keeps the
   * chunk table {@code file} carries (a manifest of format 3) while the blob is read. A blob known with another length
   * or checksum that no directory reads gives way, its regions freed: a snapshot's manifest keeps its name when the
   * snapshot is written again, and a mount of a saved spec that is no longer the snapshot's leaves its version
   * behind (what it read failed verification, or was never served).
   *
   * <p>A blob known with another length or checksum that a directory reads now (a stale and a current saved spec of
   * one snapshot, mounted at once) stays; the version asked for is then a blob of its own, not listed: it caches and
   * verifies its bytes as any other, for the one directory that acquired it, and its regions are freed when that
   * directory releases it. Neither version is ever served the other's bytes: each has its own regions, and checks
   * what it reads against its own checksums.
   */
  CachedBlob acquire(String storeId, FileEntry file, int chunkSize) {
    String key = key(storeId, file.blobName(), chunkSize);
    CachedBlob[] replaced = new CachedBlob[1];
    CachedBlob[] acquired = new CachedBlob[1]; // the listed blob, or a version of its own read beside it
    blobs.compute(key, (k, listed) -> {
      CachedBlob own = null;
      if (listed != null && !listed.isVersionOf(file)) {
        if (listed.refs > 0) {
          own = newBlob(k, file, chunkSize, false); // not listed: the version read now stays as it is
        } else {
          replaced[0] = listed;
          listed = null;
        }
      }
      if (listed == null) {
        listed = newBlob(k, file, chunkSize, true);
      }
      CachedBlob b = own != null ? own : listed;
      if (file.chunkTable() != null) {
        b.checksums.keep(file.chunkTable());
      }
      b.refs++;
      acquired[0] = b;
      return listed;
    });
    if (replaced[0] != null) {
      replaced[0].evictAll(); // outside the map's lock: a freed slot tells its (old) blob, which looks the key up
    }
    return acquired[0];
  }

  /**
   * Ends a directory's use of {@code blob}. Its cached regions stay: they leave by eviction or clearing; a version
   * that is not listed (read beside another, see {@link #acquire}) is forgotten at once, its regions freed.
   */
  void release(CachedBlob blob) {
    if (!blob.listed) {
      assert blob.refs == 1 : blob.refs;
      blob.refs = 0;
      blob.checksums.dropTable();
      blob.evictAll(); // no directory can acquire it again: what it cached would only take space
      return;
    }
    blobs.compute(blob.key, (k, b) -> {
      assert b == blob;
      if (--b.refs > 0) {
        return b;
      }
      b.checksums.dropTable();
      return b.slotsHeld() == 0 ? null : b;
    });
  }

  /** No slot holds a region of {@code blob} any more: forgets it if no directory reads it. */
  private void noRegionsLeft(CachedBlob blob) {
    blobs.computeIfPresent(blob.key, (k, b) -> b == blob && b.refs == 0 && b.slotsHeld() == 0 ? null : b);
  }

  /** The blob known by these names, or null. */
  CachedBlob get(String storeId, String blobName, int chunkSize) {
    return blobs.get(key(storeId, blobName, chunkSize));
  }

  /** Frees, at once, the regions of the given blobs of a store that no directory is reading (an unmount). */
  void evict(String storeId, Iterable<FileEntry> files, int chunkSize) {
    for (FileEntry f : files) {
      if (f.blobName() != null) {
        evictIfUnread(get(storeId, f.blobName(), chunkSize));
      }
    }
  }

  /** Frees the regions of {@code blob} (null: none) if no directory reads it. */
  void evictIfUnread(CachedBlob blob) {
    if (blob != null && blob.refs == 0) {
      blob.evictAll();
    }
  }

  // ---- the record of a clean close ----

  /** What a clean close writes down: every blob a slot holds a region of, and each such slot. */
  record Recorded(List<CacheRecord.BlobFacts> blobs, List<CacheRecord.SlotState> slots, long slotBytes) {}

  /** Every slot that holds filled units of a known blob, and those blobs' facts. Called once fills have stopped. */
  Recorded record() {
    List<CacheRecord.BlobFacts> facts = new ArrayList<>();
    List<CacheRecord.SlotState> states = new ArrayList<>();
    long bytes = 0;
    for (CachedBlob b : blobs.values()) {
      int ordinal = -1;
      for (int index = 0; index < b.regionCount(); index++) {
        Slot s = b.slot(index);
        if (s == null || !s.holds(b, index)) {
          continue; // none, or a stale entry (the slot moved on)
        }
        if (ordinal < 0) {
          BlobChecksums c = b.checksums;
          facts.add(new CacheRecord.BlobFacts(b.key, c.blobName, c.chunkSize, c.fileName, c.length, c.checksum,
              c.wholeCrc32c));
          ordinal = facts.size() - 1;
        }
        CacheRecord.SlotState state = s.recordState(b, ordinal, pool.frequency(b.regionKey(index)));
        if (state != null) {
          states.add(state);
          bytes += s.size;
        }
      }
    }
    return new Recorded(facts, states, bytes);
  }

  /**
   * Takes back the slots a record names, their units to be verified when first read; says what it did. A record
   * that does not fit this cache leaves it empty (cold).
   */
  String restore(CacheRecord.Loaded loaded) {
    List<CachedBlob> byOrdinal = new ArrayList<>();
    for (CacheRecord.BlobFacts f : loaded.blobs()) {
      FileEntry entry = FileEntry.ofWholeBlob(f.fileName(), f.blobName(), f.length(), f.checksum(), f.wholeCrc32c());
      CachedBlob blob = newBlob(f.key(), entry, f.chunkSize(), true);
      byOrdinal.add(blob);
      blobs.put(blob.key, blob);
    }
    long bytes = 0;
    for (CacheRecord.SlotState state : loaded.slots()) {
      CachedBlob blob = byOrdinal.get(state.blob());
      String misfit = null;
      if (state.index() < 0 || state.index() >= blob.regionCount() || blob.slotSize(state.index()) != state.size()) {
        misfit = "region " + state.index() + " of " + blob.blobName + " does not take a slot of " + state.size() + " bytes";
      } else {
        Slot slot = pool.carve(state.cacheOffset(), state.size());
        if (slot == null) {
          misfit = "no slot of " + state.size() + " bytes can be cut at " + state.cacheOffset();
        } else if (!slot.restore(blob, state.index(), state.unit(), state.units(), state.crcs())) {
          pool.giveBack(slot);
          misfit = "region " + state.index() + " of " + blob.blobName + " is not verified in units of " + state.unit();
        } else if (!blob.publishSlot(state.index(), slot)) {
          pool.free(slot, blob);
          misfit = "region " + state.index() + " of " + blob.blobName + " is recorded twice";
        } else {
          pool.restoreFrequency(blob.regionKey(state.index()), state.frequency());
          bytes += state.size();
        }
      }
      if (misfit != null) {
        pool.clear();
        blobs.clear();
        return "starting cold: the record of the last close does not fit this cache file (" + misfit + ")";
      }
    }
    blobs.values().removeIf(b -> b.slotsHeld() == 0);
    return "restored " + loaded.slots().size() + " regions of " + blobs.size() + " blobs ("
        + ByteSizes.format(bytes) + " of slots) from the record of the last clean close; each chunk"
        + " is verified when first read";
  }
}
