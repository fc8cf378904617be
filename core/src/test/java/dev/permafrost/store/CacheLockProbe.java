/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.nio.file.Path;

/**
 * Run in a second JVM by {@link CacheDirectoryLockTest}: tries to build a cache in the directory given as the first
 * argument, with the size given as the second, and says what happened on stdout. Exit status 0: it opened (and
 * closed) the cache; 3: the directory was locked; 1: anything else.
 */
public final class CacheLockProbe {
  private CacheLockProbe() {}

  public static void main(String[] args) {
    try (SharedRegionCache cache = SharedRegionCache.builder().path(Path.of(args[0])).size(args[1]).regionSize(64 << 10).build()) {
      System.out.println("OPENED " + cache.sizeInBytes());
      System.exit(0);
    } catch (IllegalStateException e) {
      System.out.println("LOCKED " + e.getMessage());
      System.exit(3);
    } catch (Throwable t) {
      System.out.println("FAILED " + t);
      System.exit(1);
    }
  }
}
