/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.permafrost.store.CacheSizing.Disk;
import dev.permafrost.store.CacheSizing.Settings;
import dev.permafrost.store.CacheSizing.Sizes;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every sizing rule against disks and heaps given by hand. The expected values are worked out from the rules as the
 * Javadoc and the settings' documentation state them, not by calling the code.
 */
class CacheSizingTest {
  private static final Path DIR = Path.of("cache-dir");
  private static final long KB = 1 << 10;
  private static final long MB = 1 << 20;
  private static final long GB = 1 << 30;
  /** A disk and a heap that hold any cache: the rules under test are the others. */
  private static final Disk ROOMY = new Disk(DIR, Long.MAX_VALUE, Long.MAX_VALUE, 0);
  private static final long HUGE_HEAP = Long.MAX_VALUE;

  private static Settings size(String size) {
    return new Settings(size, "5%", 0, 0, false);
  }

  private static IllegalArgumentException refused(Runnable call) {
    return assertThrows(IllegalArgumentException.class, call::run);
  }

  @Test
  void theDocumentedBounds() {
    assertEquals(16_384, CacheSizing.DEFAULT_REGIONS);
    assertEquals(32 * KB, CacheSizing.MIN_DEFAULT_REGION, "a snapshot's default chunk");
    assertEquals(16 * MB, CacheSizing.MAX_DEFAULT_REGION);
    assertEquals(262_144, CacheSizing.MAX_SLOTS);
  }

  // ---- the size ----

  static Stream<Arguments> absoluteSizes() {
    return Stream.of(
        Arguments.of("10gb", 10 * GB),
        Arguments.of(" 512mb ", 512 * MB),
        Arguments.of("4096", 4096L),
        Arguments.of("3KB", 3 * KB),
        Arguments.of("0", 0L), // refused later: it holds no region
        Arguments.of("9223372036854775807", Long.MAX_VALUE));
  }

  @ParameterizedTest
  @MethodSource("absoluteSizes")
  void anAbsoluteSizeIsTakenAsItIsWhateverTheDisk(String spec, long expected) {
    Disk small = new Disk(DIR, GB, MB, 0); // the disk is checked later, against the size cut into slots
    assertEquals(expected, CacheSizing.resolveSize(spec, "5%", small));
  }

  /** A disk of 1 GiB with 600 MiB usable. */
  static Stream<Arguments> shares() {
    return Stream.of(
        // size, headroom, cache file already there, expected: min(share of the total, usable + file - headroom)
        Arguments.of("50%", "0", 0L, 512 * MB),
        Arguments.of("25%", "25%", 0L, 256 * MB),
        Arguments.of("50%", "25%", 0L, 344 * MB), // 600 - 256 usable past the headroom, less than the 512 wanted
        Arguments.of("50%", "100mb", 0L, 500 * MB),
        Arguments.of("50%", "25%", 200 * MB, 512 * MB), // the existing file counts as room: 600 + 200 - 256 = 544
        Arguments.of("100%", "0", 0L, 600 * MB),
        Arguments.of("12.5%", "0", 0L, 128 * MB),
        Arguments.of(" 50 % ", "0", 0L, 512 * MB));
  }

  @ParameterizedTest
  @MethodSource("shares")
  void aShareOfTheDiskKeepsTheHeadroomFree(String spec, String headroom, long cacheSpace, long expected) {
    Disk disk = new Disk(DIR, GB, 600 * MB, cacheSpace);
    assertEquals(expected, CacheSizing.resolveSize(spec, headroom, disk), spec + " less " + headroom);
  }

  @Test
  void aShareThatLeavesNothingPastTheHeadroomIsRefused() {
    Disk disk = new Disk(DIR, GB, 100 * MB, 0);
    IllegalArgumentException e = refused(() -> CacheSizing.resolveSize("50%", "25%", disk));
    assertEquals("cache size 50% of the disk at cache-dir leaves nothing once the headroom of 25% is kept free"
        + " (usable: 104857600 bytes)", e.getMessage());
    // exactly the headroom usable: nothing is left either
    Disk full = new Disk(DIR, GB, 256 * MB, 0);
    e = refused(() -> CacheSizing.resolveSize("50%", "25%", full));
    assertEquals("cache size 50% of the disk at cache-dir leaves nothing once the headroom of 25% is kept free"
        + " (usable: 268435456 bytes)", e.getMessage());
    assertEquals(1, CacheSizing.resolveSize("50%", "25%", new Disk(DIR, GB, 256 * MB + 1, 0)), "one byte past it");
  }

  @ParameterizedTest
  @ValueSource(strings = {"lots", "-1", "10 parsecs", "9999999999tb", "", "1.5gb"})
  void aSizeThatIsNeitherBytesNorAShareIsRefused(String spec) {
    IllegalArgumentException e = refused(() -> CacheSizing.resolveSize(spec, "5%", ROOMY));
    assertEquals("cache size must be a byte size (10gb) or a share of the disk (80%), got '" + spec.trim() + "'",
        e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"0%", "-5%", "100.5%", "many%", "%"})
  void aShareOutsideZeroToAHundredIsRefused(String spec) {
    IllegalArgumentException e = refused(() -> CacheSizing.resolveSize(spec, "5%", ROOMY));
    assertEquals("cache size share must be between 0% and 100%, got '" + spec + "'", e.getMessage());
    e = refused(() -> CacheSizing.resolveSize("50%", spec, ROOMY));
    assertEquals("cache headroom share must be between 0% and 100%, got '" + spec + "'", e.getMessage());
  }

  @Test
  void aSizeMustBeSet() {
    IllegalArgumentException e = refused(() -> CacheSizing.resolve(size(null), ROOMY, HUGE_HEAP));
    assertEquals("the cache size is not set: give size(\"10gb\") or size(\"80%\")", e.getMessage());
    e = refused(() -> CacheSizing.resolve(new Settings(null, "5%", 3, 3, false), ROOMY, HUGE_HEAP));
    assertEquals("the cache size is not set: give size(\"10gb\") or size(\"80%\")", e.getMessage(), "checked first");
  }

  // ---- the disk ----

  @Test
  void aCacheTooLargeForTheDiskIsRefusedNamingTheSizeAndTheRoom() {
    Disk disk = new Disk(DIR, 10 * GB, 100 * MB, 0);
    IllegalArgumentException e = refused(() -> CacheSizing.checkDisk(disk, 200 * MB, "200mb"));
    assertEquals("cache size 200mb (200mb) does not fit on the disk at cache-dir: 104857600 bytes usable there; give a"
        + " smaller size, or a share of the disk such as \"80%\"", e.getMessage());
    e = refused(() -> CacheSizing.checkDisk(disk, 100 * MB + 1, "104857601"));
    assertEquals("cache size 104857601 (104857601b) does not fit on the disk at cache-dir: 104857600 bytes usable"
        + " there; give a smaller size, or a share of the disk such as \"80%\"", e.getMessage());
    CacheSizing.checkDisk(disk, 100 * MB, "100mb"); // exactly the room: fits
    // a cache file already there is room the new one takes back
    CacheSizing.checkDisk(new Disk(DIR, 10 * GB, 100 * MB, 150 * MB), 250 * MB, "250mb");
    e = refused(() -> CacheSizing.checkDisk(new Disk(DIR, 10 * GB, 100 * MB, 150 * MB), 250 * MB + 1, "x"));
    assertEquals("cache size x (262144001b) does not fit on the disk at cache-dir: 262144000 bytes usable there;"
        + " give a smaller size, or a share of the disk such as \"80%\"", e.getMessage());
  }

  @Test
  void theDiskIsCheckedAgainstTheSizeCutIntoSlots() {
    // 1,000,000 bytes in slots of 4 KiB: 244 of them, 999,424 bytes; the disk needs room for those only
    Disk exact = new Disk(DIR, GB, 999_424, 0);
    Settings settings = new Settings("1000000", "5%", 64 * KB, 0, false);
    assertEquals(999_424, CacheSizing.resolve(settings, exact, HUGE_HEAP).sizeInBytes());
    IllegalArgumentException e = refused(() -> CacheSizing.resolve(settings, new Disk(DIR, GB, 999_423, 0), HUGE_HEAP));
    assertEquals("cache size 1000000 (976kb) does not fit on the disk at cache-dir: 999423 bytes usable there; give a"
        + " smaller size, or a share of the disk such as \"80%\"", e.getMessage());
    e = refused(() -> CacheSizing.resolve(size("10gb"), new Disk(DIR, 100 * GB, GB, 0), HUGE_HEAP));
    assertEquals("cache size 10gb (10gb) does not fit on the disk at cache-dir: 1073741824 bytes usable there; give a"
        + " smaller size, or a share of the disk such as \"80%\"", e.getMessage());
  }

  // ---- the heap ----

  @Test
  void aSlotTableOfMoreThanAQuarterOfTheHeapIsRefused() {
    // 1 GiB in slots of one 4 KiB page: 262,144 slots of 256 + 8 (a one-word bitmap) bytes, and 32 bytes for each
    // of the sketch's 1,024 regions: 69,206,016 + 32,768 = 69,238,784 bytes (66 MB)
    long needed = 69_238_784;
    CacheSizing.checkHeap(GB, (int) MB, 4096, 4096, 1024, 4 * needed); // exactly a quarter: allowed
    IllegalArgumentException e = refused(() -> CacheSizing.checkHeap(GB, (int) MB, 4096, 4096, 1024, 4 * needed - 1));
    assertEquals("a cache of 1gb in slots of 4kb to 1mb needs up to about 66 MB of heap for its slot table, more than"
        + " a quarter of this JVM's 264 MB: give a larger regionSize (or tailRegionSize), a smaller size, or more heap",
        e.getMessage());
    // slots of 512 KiB hold 128 pages: a bitmap of two words; 2,048 slots of 272 bytes and 2,048 sketch regions
    long larger = 2048 * 272 + 32 * 2048;
    CacheSizing.checkHeap(GB, (int) MB, 512 * (int) KB, 4096, 2048, 4 * larger);
    refused(() -> CacheSizing.checkHeap(GB, (int) MB, 512 * (int) KB, 4096, 2048, 4 * larger - 1));
  }

  @Test
  void resolvingChecksTheHeapItIsGiven() {
    // 64 MiB in 16,384 slots of 4 KiB (264 bytes each) and 2,048 sketch regions: 4,390,912 bytes
    long needed = 4_390_912;
    assertEquals(64 * MB, CacheSizing.resolve(size("64mb"), ROOMY, 4 * needed).sizeInBytes());
    IllegalArgumentException e = refused(() -> CacheSizing.resolve(size("64mb"), ROOMY, 4 * needed - 1));
    assertEquals("a cache of 64mb in slots of 4kb to 32kb needs up to about 4 MB of heap for its slot table, more than"
        + " a quarter of this JVM's 16 MB: give a larger regionSize (or tailRegionSize), a smaller size, or more heap",
        e.getMessage());
  }

  // ---- regions and slots ----

  static Stream<Arguments> defaultRegions() {
    return Stream.of(
        // the cache's size / 16,384, down to a power of two, between 32 KiB and 16 MiB
        Arguments.of(-5L, 32 * KB),
        Arguments.of(0L, 32 * KB),
        Arguments.of(MB, 32 * KB),
        Arguments.of(GB - 1, 32 * KB), // 65,535 down to a power of two
        Arguments.of(512 * MB, 32 * KB), // exactly the smallest
        Arguments.of(GB, 64 * KB),
        Arguments.of(10 * GB, 512 * KB), // 655,360 down to a power of two
        Arguments.of((256 * GB) - 1, 8 * MB),
        Arguments.of(256 * GB, 16 * MB), // exactly the largest
        Arguments.of(1024 * GB, 16 * MB),
        Arguments.of(Long.MAX_VALUE, 16 * MB));
  }

  @ParameterizedTest
  @MethodSource("defaultRegions")
  void theDefaultRegionFollowsTheCacheWithinItsBounds(long cacheSize, long expected) {
    assertEquals(expected, CacheSizing.defaultRegionSize(cacheSize), "a cache of " + cacheSize);
  }

  @Test
  void theDefaultTailRegionIsASixteenthButAtLeastAChunk() {
    long[][] regionAndTail = {
        {512, 512}, {4096, 4096}, // a region smaller than a chunk: the tail is the region
        {32 * KB, 32 * KB}, {64 * KB, 32 * KB}, {512 * KB, 32 * KB}, {MB, 64 * KB}, {16 * MB, MB}};
    for (long[] row : regionAndTail) {
      assertEquals(row[1], CacheSizing.defaultTailRegionSize((int) row[0]), "region " + row[0]);
    }
  }

  @Test
  void theSmallestSlotGrowsSoThatNoCacheHoldsMoreThanMaxSlots() {
    long[][] sizePageTailAndMin = {
        {GB, 4096, MB, 4096}, // 262,144 pages: exactly MAX_SLOTS
        {GB + 1, 4096, MB, 8192},
        {10 * GB, 4096, MB, 64 * KB}, // at least 40,960 bytes, as a power of two
        {10 * GB, 4096, 32 * KB, 32 * KB}, // never more than a tail region
        {1024 * GB, 4096, MB, MB},
        {Long.MAX_VALUE, 4096, GB, GB},
        {0, 4096, 32 * KB, 4096},
        {-1, 1024, 1024, 1024}};
    for (long[] row : sizePageTailAndMin) {
      assertEquals(row[3], CacheSizing.minSlotSize(row[0], (int) row[1], (int) row[2]),
          "size " + row[0] + ", page " + row[1] + ", tail " + row[2]);
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {512, 4096, 1 << 30})
  void aRegionSizeIsAPowerOfTwoFrom512BytesTo1Gb(long value) {
    assertEquals(value, CacheSizing.checkPowerOfTwo("regionSize", value));
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -512, 256, 511, 513, 3000, 1L << 31, 1L << 62, Long.MIN_VALUE, Long.MAX_VALUE})
  void anyOtherRegionSizeIsRefusedNamingTheSetting(long value) {
    IllegalArgumentException e = refused(() -> CacheSizing.checkPowerOfTwo("tailRegionSize", value));
    assertEquals("tailRegionSize must be a power of two between 512 bytes and 1gb, got " + value, e.getMessage());
  }

  // ---- all of it ----

  static Stream<Arguments> resolved() {
    return Stream.of(
        // 64 MiB: default regions of 32 KiB (64 MiB / 16,384 is 4 KiB), tails of a chunk, slots down to a page;
        // the sketch counts 64 MiB / 32 KiB regions
        Arguments.of(size("64mb"), new Sizes(64 * MB, 32 * 1024, 32 * 1024, 4096, 4096, 2048)),
        // 10 GiB: regions of 512 KiB, tails of 32 KiB; slots of at least 10 GiB / 262,144 = 40 KiB, up to a tail
        // region: 32 KiB; the sketch's regions are capped at MAX_SLOTS
        Arguments.of(size("10gb"), new Sizes(10 * GB, 512 * 1024, 32 * 1024, 32 * 1024, 4096, 262_144)),
        // a size that is no whole number of pages: cut down to 244 of them; regions of 64 KiB as set, tails of a chunk
        Arguments.of(new Settings("1000000", "5%", 64 * KB, 0, false),
            new Sizes(999_424, 64 * 1024, 32 * 1024, 4096, 4096, 30)),
        // full regions only: every slot is a full region, so 15 of them; a tail size set is not looked at
        Arguments.of(new Settings("1000000", "5%", 64 * KB, 3, true),
            new Sizes(983_040, 64 * 1024, 64 * 1024, 64 * 1024, 4096, 15)),
        // tails smaller than a page: the page shrinks to the tail
        Arguments.of(new Settings("1mb", "5%", 4096, 1024, false), new Sizes(MB, 4096, 1024, 1024, 1024, 256)),
        // a region smaller than a chunk: the default tail is the region itself
        Arguments.of(new Settings("1mb", "5%", 4096, 0, false), new Sizes(MB, 4096, 4096, 4096, 4096, 256)),
        // the largest long: regions of 16 MiB, tails of 1 MiB, slots of 1 MiB (the tail bounds them), cut down to
        // 2^63 - 2^20 bytes; on a disk and heap that would hold it
        Arguments.of(size(Long.toString(Long.MAX_VALUE)),
            new Sizes(Long.MAX_VALUE - (MB - 1), 16 << 20, 1 << 20, 1 << 20, 4096, 262_144)));
  }

  @ParameterizedTest
  @MethodSource("resolved")
  void settingsResolveToTheSizesTheRulesGive(Settings settings, Sizes expected) {
    assertEquals(expected, CacheSizing.resolve(settings, ROOMY, HUGE_HEAP));
  }

  @Test
  void aShareOfTheDiskIsCutIntoSlotsToo() {
    // 100% of a disk with 100,000,000 bytes usable: 24,414 pages; default regions of 32 KiB, 3,051 of them whole
    Disk disk = new Disk(DIR, GB, 100_000_000, 0);
    assertEquals(new Sizes(99_999_744, 32 * 1024, 32 * 1024, 4096, 4096, 3051),
        CacheSizing.resolve(new Settings("100%", "0", 0, 0, false), disk, HUGE_HEAP));
  }

  @Test
  void theLargestSizeIsRefusedOnARealHeap() {
    // 2^43 - 1 slots of 1 MiB at 256 + 32 bytes, and 262,144 sketch regions: 2,533,274,798,784,224 bytes
    IllegalArgumentException e = refused(
        () -> CacheSizing.resolve(size(Long.toString(Long.MAX_VALUE)), ROOMY, 64 * GB));
    assertEquals("a cache of 8796093022207mb in slots of 1mb to 16mb needs up to about 2415919111 MB of heap for its"
        + " slot table, more than a quarter of this JVM's 65536 MB: give a larger regionSize (or tailRegionSize), a"
        + " smaller size, or more heap", e.getMessage());
  }

  @Test
  void regionsThatDoNotFitAreRefused() {
    IllegalArgumentException e = refused(
        () -> CacheSizing.resolve(new Settings("1mb", "5%", 64 * KB, 128 * KB, false), ROOMY, HUGE_HEAP));
    assertEquals("tailRegionSize (131072) must not exceed regionSize (65536)", e.getMessage());
    e = refused(() -> CacheSizing.resolve(size("1000"), ROOMY, HUGE_HEAP));
    assertEquals("cache size 1000 bytes holds no region of 4096 bytes; give a larger size", e.getMessage());
    e = refused(() -> CacheSizing.resolve(size("0"), ROOMY, HUGE_HEAP));
    assertEquals("cache size 0 bytes holds no region of 4096 bytes; give a larger size", e.getMessage());
    e = refused(() -> CacheSizing.resolve(new Settings("100000", "5%", 128 * KB, 0, true), ROOMY, HUGE_HEAP));
    assertEquals("cache size 100000 bytes holds no region of 131072 bytes; give a larger size", e.getMessage());
    e = refused(() -> CacheSizing.resolve(new Settings("1mb", "5%", -4096, 0, false), ROOMY, HUGE_HEAP));
    assertEquals("regionSize must be a power of two between 512 bytes and 1gb, got -4096", e.getMessage());
    e = refused(() -> CacheSizing.resolve(new Settings("1mb", "5%", 0, 3000, false), ROOMY, HUGE_HEAP));
    assertEquals("tailRegionSize must be a power of two between 512 bytes and 1gb, got 3000", e.getMessage());
  }
}
