/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cache file's mapping: one, whatever the size, so that every cache reads its bytes through the same code. */
class CacheFileTest {
  @TempDir Path tmp;

  @Test
  void aCacheFilePastLucenesDefaultChunkIsOneMappingAsASmallOneIs() throws IOException {
    // sparse: not preallocated, the file takes no disk space for its size
    long large = (16L << 30) + (1 << 20);
    try (CacheFile small = CacheFile.open(Files.createDirectories(tmp.resolve("small")), 1 << 20, false);
        CacheFile big = CacheFile.open(Files.createDirectories(tmp.resolve("big")), large, false)) {
      assertSame(small.mapped().getClass(), big.mapped().getClass(),
          "a cache file of " + large + " bytes is read through another class than a small one");
      // bytes written across the 16 GiB mark read back through the mapping, at every width
      byte[] bytes = new byte[64];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) (i * 37 + 11);
      }
      long at = (16L << 30) - 29;
      big.write(bytes, 0, bytes.length, at);
      for (int i = 0; i < bytes.length; i++) {
        assertEquals(bytes[i], big.mapped().readByte(at + i), "byte " + i);
      }
      for (int i = 0; i + Long.BYTES <= bytes.length; i++) {
        long expected = 0;
        for (int b = Long.BYTES - 1; b >= 0; b--) {
          expected = (expected << 8) | (bytes[i + b] & 0xFF);
        }
        assertEquals(expected, big.mapped().readLong(at + i), "long at " + i);
        assertEquals((int) expected, big.mapped().readInt(at + i), "int at " + i);
      }
      assertEquals(large, big.size());
    }
  }
}
