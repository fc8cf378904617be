/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.RandomIndexes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100,000 mounted snapshots in a JVM of 512 MB: all mount (with {@link Catalog#mountAll}), a closed mount holds at most
 * 5 KB of heap, a random sample is searched from several threads with readers opened on demand, the bound on open
 * readers holds throughout, and a glob search over 1,111 of them answers for all. Prints the heap per idle mount and
 * the mount time per 1,000 (for the README; nothing is asserted on time).
 */
class MountScaleTest {
  private static final int MOUNTS = 100_000;
  @TempDir Path tmp;

  @Test
  void aHundredThousandMountsFitInA512MbHeap() throws Exception {
    Path repoDir = tmp.resolve("repo");
    long docs;
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, new Random(7), 60, 1);
      try (DirectoryReader reader = DirectoryReader.open(local)) {
        docs = reader.numDocs();
      }
      FileSystemBlobStore store = FileSystemBlobStore.open(repoDir, false);
      SnapshotRepository repo = SnapshotRepository.open(store);
      repo.createSnapshot("snap-0", local);
      SnapshotManifest manifest = repo.readManifest("snap-0");
      for (int i = 1; i < MOUNTS; i++) {
        TestManifests.writeCopy(store, manifest, "snap-" + i); // snapshots of the same small index: shared blobs
      }
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "-cp",
        System.getProperty("java.class.path"), MountScaleProbe.class.getName(), repoDir.toString(),
        tmp.resolve("cache").toString(), Integer.toString(MOUNTS), Long.toString(docs)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the probe did not finish:\n" + out);
    assertEquals(0, p.exitValue(), out);
    Matcher heap = Pattern.compile("HEAP_PER_MOUNT=(\\d+)").matcher(out);
    assertTrue(heap.find(), out);
    long perMount = Long.parseLong(heap.group(1));
    System.out.println("heap per mounted, closed index: " + perMount + " bytes; " + out.lines().filter(l ->
        l.startsWith("MAX_OPEN") || l.startsWith("SEARCHED") || l.startsWith("MOUNT_MILLIS")).toList());
    assertTrue(perMount <= 5 * 1024, "a mounted, closed index holds " + perMount + " bytes of heap, over 5 KB");
  }
}
