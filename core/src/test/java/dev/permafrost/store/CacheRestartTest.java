/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.ManifestRef;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache survives a clean restart: what a closed cache held is served again by the next cache on its directory
 * without a store request, verified when first read, and never when it was changed in between; any other restart
 * (other sizes, another record format, a crash) starts cold.
 */
class CacheRestartTest {
  private static final long SIZE = 32 << 20;
  private static final long REGION = 1 << 20;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private Directory local;
  private CountingBlobStore store;
  private SnapshotRepository repo;
  private SearchOracle oracle;
  private List<String> expected;
  private Path cacheDir;
  private SharedRegionCache cache;

  @BeforeEach
  void setUp() throws IOException {
    local = FSDirectory.open(tmp.resolve("local"));
    RandomIndexes.build(local, random, 3000, 2);
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
    repo.createSnapshot("snap", local);
    oracle = new SearchOracle(random, 12);
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      expected = oracle.answers(new IndexSearcher(reader));
    }
    cacheDir = tmp.resolve("cache");
  }

  @AfterEach
  void tearDown() throws IOException {
    if (cache != null) {
      cache.close();
    }
    local.close();
  }

  private SharedRegionCache open(long size, long regionSize) throws IOException {
    cache = SharedRegionCache.builder().path(cacheDir).size(size).regionSize(regionSize).build();
    return cache;
  }

  /** Mounts the snapshot from its manifest reference, searches it, reads every file whole, and closes the mount. */
  private void searchAndReadAll(ManifestRef ref) throws IOException {
    SnapshotManifest manifest = CachedManifests.read(repo, ref, cache);
    try (BlobDirectory dir = BlobDirectory.open(repo, manifest, cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      assertEquals(expected, oracle.answers(new IndexSearcher(reader)), "seed " + seed);
      for (String name : local.listAll()) {
        if (!name.equals("write.lock")) {
          assertArrayEquals(MountedIndexTest.readAll(local, name), MountedIndexTest.readAll(dir, name), "seed " + seed + " " + name);
        }
      }
    }
  }

  /** A first run: mounts by name, searches and reads everything, closes the cache cleanly. */
  private ManifestRef firstRun() throws IOException {
    open(SIZE, REGION);
    ManifestRef ref = CachedManifests.read(repo, "snap", cache).ref();
    searchAndReadAll(ref);
    assertTrue(store.readRequests.get() > 1, "the first run fetches");
    assertEquals(0, cache.stats().evictions(), "the cache holds everything");
    cache.close();
    cache = null;
    assertTrue(Files.exists(cacheDir.resolve(CacheRecord.FILE_NAME)), "a clean close leaves a record");
    return ref;
  }

  @Test
  void aCleanRestartServesWhatTheCacheHeldWithoutAStoreRequest() throws IOException {
    ManifestRef ref = firstRun();
    for (int run = 0; run < 2; run++) {
      open(SIZE, REGION);
      assertFalse(Files.exists(cacheDir.resolve(CacheRecord.FILE_NAME)), "the record is consumed at start");
      assertTrue(cache.stats().regionsInUse() > 0, "the regions are restored");
      store.reset();
      searchAndReadAll(ref);
      assertEquals(0, store.requests(), "seed " + seed + ", run " + run + ": a restart costs no store request; " + cache.stats().total());
      assertEquals(0, cache.stats().total().checksumMismatches());
      for (Slot s : cache.pool.slots()) {
        assertTrue(s.owner == null || s.complete, "every byte was read, so verified: " + s + " is read lock-free again");
      }
      cache.close();
      cache = null;
    }
  }

  @Test
  void bytesChangedWhileTheCacheWasClosedAreDetectedAndFetchedAgain() throws IOException {
    open(SIZE, REGION);
    ManifestRef ref = CachedManifests.read(repo, "snap", cache).ref();
    searchAndReadAll(ref);
    // flip a byte in a quarter of the cached pages, at random
    List<Long> damaged = new ArrayList<>();
    for (Slot s : cache.pool.slots()) {
      for (long at = 0; at < s.size; at += 4096) {
        if (s.hasBytesAt(at) && random.nextInt(4) == 0) {
          damaged.add(s.cacheOffset + at + random.nextInt(4096));
        }
      }
    }
    assertTrue(damaged.size() > 10, "seed " + seed + ": " + damaged.size());
    cache.close();
    cache = null;
    try (FileChannel file = FileChannel.open(cacheDir.resolve(SharedRegionCache.FILE_NAME), StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      for (long at : damaged) {
        ByteBuffer b = ByteBuffer.allocate(1);
        file.read(b, at);
        b.put(0, (byte) ~b.get(0)).rewind();
        file.write(b, at);
      }
    }
    open(SIZE, REGION);
    assertTrue(cache.stats().regionsInUse() > 0, "the regions are restored: the damage is found when they are read");
    store.reset();
    searchAndReadAll(ref); // the local answers and bytes: no damaged byte was served
    CacheStats.Counts total = cache.stats().total();
    assertTrue(total.checksumMismatches() > 0, "seed " + seed + ": the damage is counted: " + total);
    assertTrue(total.fetches() > 0 && store.readRequests.get() > 0, "the damaged regions are fetched again: " + total);
    store.reset();
    searchAndReadAll(ref);
    assertEquals(0, store.requests(), "once fetched again, they are cached");
  }

  @Test
  void otherSizesAnotherRecordFormatOrAMissingCacheFileStartCold() throws IOException {
    ManifestRef ref = firstRun();
    open(SIZE / 2, REGION);
    assertEquals(0, cache.stats().regionsInUse(), "another cache size starts cold");
    cache.close();
    cache = null;
    open(SIZE / 2, REGION / 2);
    assertEquals(0, cache.stats().regionsInUse(), "another region size starts cold");
    cache.close();
    cache = null;

    open(SIZE, REGION);
    assertEquals(0, cache.stats().regionsInUse(), "the record of the smaller cache does not fit");
    searchAndReadAll(ref);
    cache.close();
    cache = null;
    Path record = cacheDir.resolve(CacheRecord.FILE_NAME);
    byte[] bytes = Files.readAllBytes(record);
    int version = CodecUtil.headerLength(CacheRecord.CODEC) - Integer.BYTES;
    ByteBuffer.wrap(bytes).putInt(version, CacheRecord.VERSION + 1);
    Files.write(record, bytes);
    open(SIZE, REGION);
    assertEquals(0, cache.stats().regionsInUse(), "a record of another format is not used");
    assertFalse(Files.exists(record));
    searchAndReadAll(ref);
    cache.close();
    cache = null;
    bytes = Files.readAllBytes(record);
    bytes[bytes.length / 2] ^= 1;
    Files.write(record, bytes);
    open(SIZE, REGION);
    assertEquals(0, cache.stats().regionsInUse(), "a damaged record is not used");
    store.reset();
    searchAndReadAll(ref);
    assertTrue(store.readRequests.get() > 1, "a cold start fetches");
    cache.close();
    cache = null;
    Files.delete(cacheDir.resolve(SharedRegionCache.FILE_NAME));
    open(SIZE, REGION);
    assertEquals(0, cache.stats().regionsInUse(), "a record without its cache file is not used");
    assertFalse(Files.exists(record));
  }

  @Test
  void aRecordThatIsADirectoryStartsColdAndIsCleanedUp() throws IOException {
    ManifestRef ref = firstRun();
    Path record = cacheDir.resolve(CacheRecord.FILE_NAME);
    Files.delete(record);
    Files.createDirectory(record); // as an operator's mistake might leave it
    open(SIZE, REGION);
    assertEquals(0, cache.stats().regionsInUse(), "a record that cannot be read is not used");
    assertFalse(Files.exists(record), "the empty directory in the record's place was removed");
    searchAndReadAll(ref);
    cache.close();
    cache = null;
    assertTrue(Files.isRegularFile(record), "the next clean close records again");

    // a directory with files in it cannot be removed: the cache still starts (cold), and says why
    Files.delete(record);
    Files.createDirectories(record.resolve("keep"));
    String reason = CacheRecord.load(cacheDir, new CacheRecord.Layout(SIZE, (int) REGION, 1, 1, 1)).coldReason();
    assertTrue(reason.contains(record.toString()) && reason.contains("cannot be read") && reason.contains("remove it"),
        "the INFO line says which file and what to do: " + reason);
    open(SIZE, REGION);
    assertEquals(0, cache.stats().regionsInUse());
    searchAndReadAll(ref);
    cache.close(); // cannot record (logged), but closes
    cache = null;
    assertTrue(Files.isDirectory(record.resolve("keep")), "nothing of the operator's was deleted");
  }

  @Test
  void aRunThatDoesNotCloseCleanlyLeavesNoRecordBehind() throws Exception {
    ManifestRef ref = firstRun();
    // a second JVM restores the record, writes other data into the cache file, and dies without closing
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        CacheCrashProbe.class.getName(), cacheDir.toString(), Long.toString(SIZE), Long.toString(REGION),
        tmp.resolve("repo").toString(), "snap").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the probe JVM did not exit: " + out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("RESTORED ") && !out.contains("RESTORED 0"), "the crashed run had restored the record: " + out);
    assertFalse(Files.exists(cacheDir.resolve(CacheRecord.FILE_NAME)), "the crashed run consumed the record at start");

    open(SIZE, REGION);
    assertEquals(0, cache.stats().regionsInUse(), "after a crash the cache starts cold");
    store.reset();
    searchAndReadAll(ref);
    assertTrue(store.readRequests.get() > 1, "a cold start fetches");
    assertEquals(0, cache.stats().total().checksumMismatches());
  }

  /**
   * A small slice (read whole on a miss, {@code BlobIndexInput.readWhole}) whose first unit alone was cached before a
   * clean close: its read after the restart is served from what was recorded, and fetches nothing; the recorded bytes
   * are not a miss that fetches the rest of the slice. (Found by a catalog search whose terms block was prefetched
   * and read before the block's file tail was.)
   */
  @Test
  void aRecordedUnitOfASmallSliceIsNotAMissThatFetchesTheRest() throws Exception {
    int unit = 32 << 10;
    byte[] bytes = new byte[unit + 16_000];
    random.nextBytes(bytes);
    FetchOnceTest.RecordingBlobStore recording = new FetchOnceTest.RecordingBlobStore(store);
    SnapshotManifest manifest = TestManifests.upload(recording, "t", "t-", Map.of("t.bin", bytes), 0, unit);
    int sliceLength = unit + 8_000; // not the whole file, and no longer than a fill: read whole on a miss
    int at = random.nextInt(unit - 8);
    for (int run = 0; run < 2; run++) {
      open(SIZE, REGION);
      recording.reads.clear();
      try (BlobDirectory dir = BlobDirectory.open(manifest, recording, cache, "t");
          IndexInput in = dir.openInput("t.bin", IOContext.DEFAULT)) {
        IndexInput slice = in.slice("a terms block", 0, sliceLength);
        if (run == 0) {
          slice.prefetch(at, 8); // its unit alone, and then read from the cache
          awaitNoFetch(cache);
          assertEquals(List.of("[0, " + unit + ")"), ranges(recording), "seed " + seed);
        }
        assertArrayEquals(Arrays.copyOfRange(bytes, at, at + 8), readAt(slice, at), "seed " + seed);
        awaitNoFetch(cache);
        assertEquals(run == 0 ? List.of("[0, " + unit + ")") : List.of(), ranges(recording),
            "seed " + seed + ", run " + run + ": the read of a recorded unit fetches nothing");
      }
      cache.close();
      cache = null;
    }
  }

  private static byte[] readAt(IndexInput in, long at) throws IOException {
    byte[] b = new byte[8];
    in.seek(at);
    in.readBytes(b, 0, 8);
    return b;
  }

  private static List<String> ranges(FetchOnceTest.RecordingBlobStore recording) {
    List<String> out = new ArrayList<>();
    for (List<long[]> rs : recording.reads.values()) {
      synchronized (rs) {
        for (long[] r : rs) {
          out.add("[" + r[0] + ", " + r[1] + ")");
        }
      }
    }
    return out;
  }
}
