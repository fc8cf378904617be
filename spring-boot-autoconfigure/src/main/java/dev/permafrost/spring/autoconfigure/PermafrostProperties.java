/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.catalog.MountMode;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The {@code permafrost.*} settings of the beans {@link PermafrostAutoConfiguration} makes, checked at start-up: a
 * value Permafrost would refuse stops the application with a message naming the property. Paths left unset live under
 * {@code permafrost.home}. Settings left unset take the library's defaults.
 *
 * @param home where the cache, a local repository and full copies go unless set otherwise
 * @param cache the shared region cache
 * @param repository the snapshot repository and how its store is talked to
 * @param pool the catalog: its reader pool and its searches
 * @param fullCopy full-copy mounts
 * @param mounts snapshots to mount at start-up, by the name to mount them under
 */
@ConfigurationProperties("permafrost")
@Validated
public record PermafrostProperties(
    @DefaultValue("permafrost-data") @NotNull Path home,
    @DefaultValue @Valid Cache cache,
    @DefaultValue @Valid Repository repository,
    @DefaultValue @Valid Pool pool,
    @DefaultValue @Valid FullCopy fullCopy,
    @DefaultValue Map<String, @Valid Mount> mounts) {

  /**
   * The shared region cache.
   *
   * @param path the directory of the cache file (default {@code home/cache})
   * @param size bytes ({@code 512mb}) or a share of the disk ({@code 80%})
   * @param regionSize the size of a full region, a power of two (default the library's: the cache's size / 16,384,
   *     between 32kb and 16mb)
   * @param fetchThreads fetches readers wait for running at once (default the library's, 32)
   * @param maxReadWait the longest a read waits for the store (default the library's, 30s)
   */
  public record Cache(
      Path path,
      @DefaultValue("512mb") @NotBlank @ByteSize(share = true) String size,
      @ByteSize String regionSize,
      @Min(1) Integer fetchThreads,
      Duration maxReadWait) {
    public Cache {
      positive("permafrost.cache.max-read-wait", maxReadWait);
    }
  }

  /**
   * The repository. The store policy settings are added to the URI's query (set each one way only).
   *
   * @param uri the repository: {@code file:///path}, {@code s3://bucket/prefix?...}, {@code gs://...},
   *     {@code azblob://...} (default a {@code file:} URI of {@code home/repository})
   * @param requestTimeout the fixed part of every read request's deadline
   * @param maxRetries retries of a failed request that may pass
   * @param retryTimeLimit no retry starts once a call has run this long
   * @param hedgeAfter send a second copy of a ranged read with no response after this long
   * @param maxBytesPerSec the most bytes per second read from the store ({@code 0}: unlimited)
   * @param maxConcurrentRequests the most requests in flight to the store ({@code 0}: unlimited)
   * @param retryBudget retries the store may make before it counts as failing ({@code 0}: no budget)
   */
  public record Repository(
      URI uri,
      Duration requestTimeout,
      @Min(0) Integer maxRetries,
      Duration retryTimeLimit,
      Duration hedgeAfter,
      @ByteSize(zero = true) String maxBytesPerSec,
      @Min(0) Integer maxConcurrentRequests,
      @Min(0) Integer retryBudget) {
    public Repository {
      positive("permafrost.repository.request-timeout", requestTimeout);
      notNegative("permafrost.repository.retry-time-limit", retryTimeLimit);
      notNegative("permafrost.repository.hedge-after", hedgeAfter);
    }
  }

  /**
   * The catalog.
   *
   * @param maxOpenReaders readers open at once
   * @param maxReaderHeap the most estimated heap open readers may hold (default a quarter of the heap)
   * @param maxKeptHeap the most heap all mounts keep to open their readers with no request (an engine's shards: what
   *     opening each reads); past it a mount keeps nothing (default an eighth of the heap)
   * @param idleTimeout a reader with no lease for this long is closed
   * @param acquireTimeout how long a search waits for room to open a reader
   * @param unmountTimeout how long an unmount waits for searches to give the index back
   * @param searchThreads indices searched at once by one search (default the library's, 64)
   * @param searchTimeout the timeout of a search that sets none (default none)
   * @param slowSearchThreshold searches at least this long are logged with their cost (default none)
   */
  public record Pool(
      @DefaultValue("100") @Min(1) int maxOpenReaders,
      @ByteSize String maxReaderHeap,
      @ByteSize String maxKeptHeap,
      @DefaultValue("5m") @NotNull Duration idleTimeout,
      @DefaultValue("30s") @NotNull Duration acquireTimeout,
      @DefaultValue("30s") @NotNull Duration unmountTimeout,
      @Min(1) Integer searchThreads,
      Duration searchTimeout,
      Duration slowSearchThreshold) {
    public Pool {
      positive("permafrost.pool.idle-timeout", idleTimeout);
      positive("permafrost.pool.acquire-timeout", acquireTimeout);
      positive("permafrost.pool.unmount-timeout", unmountTimeout);
      positive("permafrost.pool.search-timeout", searchTimeout);
      notNegative("permafrost.pool.slow-search-threshold", slowSearchThreshold);
    }
  }

  /**
   * Full-copy mounts.
   *
   * @param path where full copies go (default {@code home/full-copies})
   * @param maxBytesPerSec the rate all full copies together fetch at ({@code 0}: unlimited)
   */
  public record FullCopy(Path path, @DefaultValue("64mb") @NotNull @ByteSize(zero = true) String maxBytesPerSec) {}

  /**
   * A mount declared in properties: {@code permafrost.mounts.<name>.snapshot}.
   *
   * @param snapshot the snapshot, or a glob ({@code logs-*}): every matching snapshot is mounted under its own name
   * @param mode how to mount it (default shared-cache)
   */
  public record Mount(@NotBlank String snapshot, @DefaultValue("shared-cache") @NotNull MountMode mode) {}

  private static void positive(String property, Duration d) {
    if (d != null && (d.isNegative() || d.isZero())) {
      throw new IllegalArgumentException(property + " must be positive, got " + d);
    }
  }

  private static void notNegative(String property, Duration d) {
    if (d != null && d.isNegative()) {
      throw new IllegalArgumentException(property + " must not be negative, got " + d);
    }
  }

  /** The cache's directory. */
  public Path cachePath() {
    return cache.path() != null ? cache.path() : home.resolve("cache");
  }

  /** Where full copies go. */
  public Path fullCopyPath() {
    return fullCopy.path() != null ? fullCopy.path() : home.resolve("full-copies");
  }

  /** The repository's URI, without the policy settings. */
  public URI repositoryUri() {
    return repository.uri() != null ? repository.uri() : home.resolve("repository").toAbsolutePath().toUri();
  }
}
