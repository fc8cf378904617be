/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Every {@code permafrost.*} setting of the service, validated at start-up: a bad one stops it with a message naming
 * the property. Paths left unset live under {@code permafrost.home}. The defaults are listed in
 * {@code examples/README.md}.
 *
 * @param home where the cache, the local repository, full copies and the sample data go unless set otherwise
 * @param cache the shared region cache
 * @param repository the snapshot repository
 * @param pool the catalog's reader pool
 * @param fullCopy full-copy mounts
 * @param search searches and histograms
 * @param snapshots local index directories the service may snapshot
 * @param sample the sample data generated on first start
 */
@ConfigurationProperties("permafrost")
@Validated
public record PermafrostProperties(
    @DefaultValue("permafrost-data") @NotNull Path home,
    @DefaultValue @Valid Cache cache,
    @DefaultValue @Valid Repository repository,
    @DefaultValue @Valid Pool pool,
    @DefaultValue @Valid FullCopy fullCopy,
    @DefaultValue @Valid Search search,
    @DefaultValue @Valid Snapshots snapshots,
    @DefaultValue @Valid Sample sample) {

  /**
   * The shared region cache.
   *
   * @param path the directory of the cache file (default {@code home/cache})
   * @param size bytes ({@code 512mb}) or a share of the disk ({@code 80%})
   * @param regionSize the size of a full region, a power of two (default the library's, 16mb)
   * @param fetchThreads threads fetching ranges into the cache (default the library's, 8)
   */
  public record Cache(
      Path path,
      @DefaultValue("512mb") @NotBlank @ByteSize(share = true) String size,
      @ByteSize String regionSize,
      @Min(1) Integer fetchThreads) {}

  /**
   * The snapshot repository and the store policy of its blob store. The policy settings are added to the URI's
   * query (where they can also be given, as {@code request_timeout} and so on, but not both ways).
   *
   * @param uri the repository: {@code file:///path}, {@code s3://bucket/prefix?...}, {@code gs://...},
   *     {@code azblob://...} (default a {@code file:} URI of {@code home/repository})
   * @param requestTimeout the fixed part of every read request's deadline
   * @param maxRetries retries of a failed request that may pass
   * @param retryTimeLimit no retry starts once a call has run this long
   * @param hedgeAfter send a second copy of a ranged read with no response after this long
   * @param maxBytesPerSec the most bytes per second read from the store ({@code 0}: unlimited)
   * @param maxConcurrentRequests the most requests in flight to the store ({@code 0}: unlimited)
   */
  public record Repository(
      URI uri,
      @DurationMin(millis = 1) Duration requestTimeout,
      @Min(0) Integer maxRetries,
      @DurationMin(millis = 1) Duration retryTimeLimit,
      @DurationMin(millis = 1) Duration hedgeAfter,
      @ByteSize(zero = true) String maxBytesPerSec,
      @Min(0) Integer maxConcurrentRequests) {}

  /**
   * The catalog's reader pool.
   *
   * @param maxOpenReaders readers open at once
   * @param maxReaderHeap the most estimated heap open readers may hold (default a quarter of the heap)
   * @param idleTimeout a reader with no lease for this long is closed
   * @param acquireTimeout how long a search waits for room to open a reader
   * @param unmountTimeout how long an unmount waits for searches to give the index back
   * @param searchThreads indices searched at once by one search (default the processors, at least 2)
   */
  public record Pool(
      @DefaultValue("100") @Min(1) int maxOpenReaders,
      @ByteSize String maxReaderHeap,
      @DefaultValue("5m") @NotNull @DurationMin(millis = 1) Duration idleTimeout,
      @DefaultValue("30s") @NotNull @DurationMin(millis = 1) Duration acquireTimeout,
      @DefaultValue("30s") @NotNull @DurationMin(millis = 1) Duration unmountTimeout,
      @Min(1) Integer searchThreads) {}

  /**
   * Full-copy mounts.
   *
   * @param path where full copies go (default {@code home/full-copies})
   * @param maxBytesPerSec the rate all full copies together fetch at ({@code 0}: unlimited)
   */
  public record FullCopy(Path path, @DefaultValue("64mb") @NotNull @ByteSize(zero = true) String maxBytesPerSec) {}

  /**
   * Searches and histograms.
   *
   * @param defaultField the field a query term without a field searches
   * @param timestampField the point (and numeric doc values) field time ranges, histograms and sorting use
   * @param fields stored fields returned with each hit
   * @param defaultSize hits returned when {@code size} is not given
   * @param maxSize the largest {@code size} accepted
   * @param maxBuckets the most buckets a histogram may have
   * @param histogramBuckets about how many buckets {@code interval=auto} aims for
   */
  public record Search(
      @DefaultValue("message") @NotBlank String defaultField,
      @DefaultValue("@timestamp") @NotBlank String timestampField,
      @DefaultValue("_source") @NotEmpty List<@NotBlank String> fields,
      @DefaultValue("20") @Min(1) int defaultSize,
      @DefaultValue("500") @Min(1) @Max(10_000) int maxSize,
      @DefaultValue("2000") @Min(1) @Max(100_000) int maxBuckets,
      @DefaultValue("60") @Min(1) @Max(10_000) int histogramBuckets) {}

  /**
   * Local index directories the service may snapshot ({@code POST /snapshots}).
   *
   * @param sources index directories by the name a request gives
   */
  public record Snapshots(@DefaultValue Map<String, Path> sources) {}

  /**
   * The access-log sample generated, snapshotted and mounted at start-up (when its snapshots are missing, they are
   * made; then each day is mounted under its own name).
   *
   * @param enabled whether to do it at all
   * @param days daily indices
   * @param eventsPerDay events a day
   * @param path where the generated indices go (default {@code home/sample})
   */
  public record Sample(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("7") @Min(1) @Max(366) int days,
      @DefaultValue("10000") @Min(1) @Max(10_000_000) int eventsPerDay,
      Path path) {}

  /** The directory of the cache file. */
  public Path cachePath() {
    return cache.path() != null ? cache.path() : home.resolve("cache");
  }

  /** The directory of full copies. */
  public Path fullCopyPath() {
    return fullCopy.path() != null ? fullCopy.path() : home.resolve("full-copies");
  }

  /** The directory of the sample data. */
  public Path samplePath() {
    return sample.path() != null ? sample.path() : home.resolve("sample");
  }

  /** The repository's URI as configured, or the default local one. */
  public URI repositoryUri() {
    return repository.uri() != null ? repository.uri() : home.resolve("repository").toAbsolutePath().toUri();
  }
}
