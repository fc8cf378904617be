/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One cache per directory, across processes: while a cache holds a directory, a cache in a second JVM fails to
 * open it (and cannot resize or write its file, whatever size it asks for); once the first closes, it opens.
 */
class CacheDirectoryLockTest {
  @TempDir Path tmp;

  /** Runs {@link CacheLockProbe} in a new JVM; returns its exit status and what it printed. */
  private static Object[] probe(Path dir, String size) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), CacheLockProbe.class.getName(),
        dir.toString(), size).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the probe JVM did not exit: " + out);
    return new Object[] {p.exitValue(), out};
  }

  @Test
  void aSecondProcessCannotOpenTheDirectoryUntilTheFirstClosesIt() throws Exception {
    Path dir = tmp.resolve("cache");
    byte[] bytes = new byte[300_000];
    new Random(42).nextBytes(bytes);
    FileSystemBlobStore store = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    SnapshotManifest manifest = TestManifests.upload(store, "s", "s-", Map.of("f.bin", bytes));
    try (SharedRegionCache cache = SharedRegionCache.builder().path(dir).size("2mb").regionSize(64 << 10).build();
        BlobDirectory mounted = BlobDirectory.open(manifest, store, cache, "s")) {
      assertArrayEquals(bytes, MountedIndexTest.readAll(mounted, "f.bin"));
      long size = Files.size(cache.file());
      for (String otherSize : List.of("1mb", "2mb")) { // smaller would truncate it; the same would overwrite regions
        Object[] result = probe(dir, otherSize);
        assertEquals(3, result[0], "the second JVM must find the directory locked: " + result[1]);
        String message = (String) result[1];
        assertTrue(message.contains(dir.toString()) && message.contains("in use") && message.contains("in this process or another"),
            message);
        assertEquals(size, Files.size(cache.file()), "the second JVM did not resize the cache file");
      }
      cache.clear();
      assertArrayEquals(bytes, MountedIndexTest.readAll(mounted, "f.bin"), "the first cache still works");
      IllegalStateException inProcess = assertThrows(IllegalStateException.class,
          () -> SharedRegionCache.builder().path(dir).size("2mb").build());
      assertTrue(inProcess.getMessage().contains("in use"), inProcess.getMessage());
    }
    Object[] after = probe(dir, "1mb");
    assertEquals(0, after[0], "once the first cache closed, the directory is free: " + after[1]);
  }
}
