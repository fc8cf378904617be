/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a {@link SharedRegionCache} directory holds, as the record of its last clean close
 * ({@code permafrost-regions.record}) describes it: the cache's layout and, for every blob it keeps regions of, how
 * many regions, how many bytes of slots and how many bytes of filled units. Read with {@link #read(Path)}, which only
 * reads: it takes no lock and writes, deletes and maps nothing, so it may look into a directory that a cache has open
 * (it then finds no record, since a cache deletes it when it starts).
 *
 * <p>A record exists only between a clean close and the next start, so no record means a new cache, a cache open now,
 * or one whose last run did not close it (whose next start is cold): {@link #coldReason()} says which record was not
 * found or could not be used, and the summary then lists no blobs.
 *
 * @param directory the cache directory, absolute
 * @param cacheFileBytes the length of the cache file ({@code permafrost-regions.cache}), or -1 if there is none
 * @param coldReason why the directory's next start would be cold (no usable record), or null if a record was read
 * @param sizeInBytes the recorded cache size (0 without a record)
 * @param regionSize the recorded full region size (0 without a record)
 * @param tailRegionSize the recorded tail region size (0 without a record)
 * @param blobs the blobs the record keeps regions of, by store and blob name
 */
public record CacheSummary(
    Path directory,
    long cacheFileBytes,
    String coldReason,
    long sizeInBytes,
    int regionSize,
    int tailRegionSize,
    List<Blob> blobs) {

  public CacheSummary {
    blobs = List.copyOf(blobs);
  }

  /**
   * One blob the record keeps regions of.
   *
   * @param store the store it was read from, as {@code BlobStore.describe()} gave it (no credentials)
   * @param blobName the blob's name in that store
   * @param fileName the index file it holds (for a manifest, the manifest's blob)
   * @param length the blob's length
   * @param regions how many of its regions have a slot
   * @param slotBytes the bytes of the slots those regions take
   * @param filledBytes the bytes of their filled units, at most {@code length} (the last unit of a blob may be
   *     shorter than a unit, so this may exceed what was really fetched by less than a unit per region)
   */
  public record Blob(String store, String blobName, String fileName, long length, int regions, long slotBytes,
      long filledBytes) {}

  /** Whether a record of a clean close was read: the next start on this directory keeps what it lists. */
  public boolean recorded() {
    return coldReason == null;
  }

  /** Regions recorded, over all blobs. */
  public int regions() {
    return blobs.stream().mapToInt(Blob::regions).sum();
  }

  /** Bytes of the slots recorded, over all blobs. */
  public long slotBytes() {
    return blobs.stream().mapToLong(Blob::slotBytes).sum();
  }

  /** Bytes of filled units recorded, over all blobs. */
  public long filledBytes() {
    return blobs.stream().mapToLong(Blob::filledBytes).sum();
  }

  /**
   * Reads what the cache directory {@code directory} holds, without opening the cache, taking its lock or changing
   * any file.
   *
   * @throws java.nio.file.NoSuchFileException if {@code directory} does not exist
   * @throws java.nio.file.NotDirectoryException if it is not a directory
   * @throws IOException if the record exists but cannot be read
   */
  public static CacheSummary read(Path directory) throws IOException {
    Path dir = directory.toAbsolutePath();
    if (!Files.exists(dir)) {
      throw new NoSuchFileException(dir.toString(), null, "no such cache directory");
    }
    if (!Files.isDirectory(dir)) {
      throw new NotDirectoryException(dir + " (a cache directory holds " + CacheFile.FILE_NAME + ")");
    }
    Path file = dir.resolve(CacheFile.FILE_NAME);
    long cacheFileBytes = Files.exists(file) ? Files.size(file) : -1;
    CacheRecord.Loaded loaded = CacheRecord.peek(dir);
    if (loaded.coldReason() != null) {
      return new CacheSummary(dir, cacheFileBytes, loaded.coldReason(), 0, 0, 0, List.of());
    }
    int count = loaded.blobs().size();
    int[] regions = new int[count];
    long[] slotBytes = new long[count];
    long[] filledBytes = new long[count];
    for (CacheRecord.SlotState s : loaded.slots()) {
      regions[s.blob()]++;
      slotBytes[s.blob()] += s.size();
      long units = 0;
      for (long word : s.units()) {
        units += Long.bitCount(word);
      }
      filledBytes[s.blob()] += Math.min(units * s.unit(), s.size());
    }
    List<Blob> blobs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      CacheRecord.BlobFacts f = loaded.blobs().get(i);
      if (regions[i] == 0) {
        continue;
      }
      // a blob's key in the cache is "<store>\n<blob name>\n<chunk size>" (SharedRegionCache.key)
      int newline = f.key().indexOf('\n');
      String store = newline >= 0 ? f.key().substring(0, newline) : "";
      blobs.add(new Blob(store, f.blobName(), f.fileName(), f.length(), regions[i], slotBytes[i],
          Math.min(filledBytes[i], f.length())));
    }
    blobs.sort(Comparator.comparing(Blob::store).thenComparing(Blob::blobName));
    CacheRecord.Layout layout = loaded.layout();
    return new CacheSummary(dir, cacheFileBytes, null, layout.sizeInBytes(), layout.regionSize(),
        layout.tailRegionSize(), blobs);
  }
}
