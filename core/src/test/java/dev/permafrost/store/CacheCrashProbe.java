/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import java.nio.file.Path;

/**
 * Run in a second JVM by {@link CacheRestartTest}: opens the cache in the directory given as the first argument
 * (size and region size as the second and third), says how many regions it restored, empties it, reads every file
 * of the snapshot named fifth from the repository at the fourth into it, and halts without closing the cache: a
 * crash after the cache file was written again. Exit status 0 once it halted as planned; 1 on anything else.
 */
public final class CacheCrashProbe {
  private CacheCrashProbe() {}

  public static void main(String[] args) {
    try {
      SharedRegionCache cache = SharedRegionCache.builder().path(Path.of(args[0])).size(Long.parseLong(args[1]))
          .regionSize(Long.parseLong(args[2])).build();
      System.out.println("RESTORED " + cache.stats().regionsInUse());
      cache.clear();
      SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(Path.of(args[3]), false));
      SnapshotManifest manifest = repo.readManifest(args[4]);
      BlobDirectory dir = BlobDirectory.open(repo, manifest, cache, args[4]);
      for (String name : dir.listAll()) {
        MountedIndexTest.readAll(dir, name);
      }
      System.out.println("WROTE " + cache.stats().regionsInUse());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    } catch (Throwable t) {
      System.out.println("FAILED " + t);
      System.exit(1);
    }
  }
}
