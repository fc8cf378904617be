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
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The service's own {@code permafrost.*} settings, checked at start-up: searches and histograms, the index
 * directories it may snapshot, and the sample data. The library's settings (cache, repository, pool, full copies,
 * mounts) belong to the Spring Boot starter ({@code dev.permafrost.spring.autoconfigure.PermafrostProperties}); both bind
 * {@code permafrost.home}.
 *
 * @param home where the sample data goes unless set otherwise (and the starter's cache, repository and copies)
 * @param search searches and histograms
 * @param snapshots local index directories the service may snapshot
 * @param sample the sample data generated on first start
 * @param engineRepository a snapshot repository written by Elasticsearch or OpenSearch, mounted at start-up
 */
@ConfigurationProperties("permafrost")
@Validated
public record ServiceProperties(
    @DefaultValue("permafrost-data") @NotNull Path home,
    @DefaultValue @Valid Search search,
    @DefaultValue @Valid Snapshots snapshots,
    @DefaultValue @Valid Sample sample,
    @DefaultValue @Valid EngineRepository engineRepository) {

  /**
   * A snapshot repository written by Elasticsearch (8, 9) or OpenSearch (2, 3), searched in place: at start-up, each
   * shard of each chosen index of the chosen snapshot is mounted as {@code <index>.<shard>} (search an index as
   * {@code <index>.*}); queries on those indices are parsed by their mapping.
   *
   * @param uri the repository's store, as for {@code permafrost.repository.uri} ({@code file:///...}, {@code s3://...});
   *     unset: none
   * @param snapshot the snapshot to mount (default: the newest that completed)
   * @param indices the indices to mount, names or globs (default: all in the snapshot)
   */
  public record EngineRepository(String uri, String snapshot, @DefaultValue List<@NotBlank String> indices) {}

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
   * @param mapping a JSON file holding the mapping ({@code {"properties": ...}}, as Elasticsearch's) of the service's own
   *     snapshots, by which the Elasticsearch-compatible API ({@code /{index}/_search}) reads queries over them
   *     (default: the sample data's mapping)
   */
  public record Search(
      @DefaultValue("message") @NotBlank String defaultField,
      @DefaultValue("@timestamp") @NotBlank String timestampField,
      @DefaultValue("_source") @NotEmpty List<@NotBlank String> fields,
      @DefaultValue("20") @Min(1) int defaultSize,
      @DefaultValue("500") @Min(1) @Max(10_000) int maxSize,
      @DefaultValue("2000") @Min(1) @Max(100_000) int maxBuckets,
      @DefaultValue("60") @Min(1) @Max(10_000) int histogramBuckets,
      Path mapping) {}

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

  /** The directory of the sample data. */
  public Path samplePath() {
    return sample.path() != null ? sample.path() : home.resolve("sample");
  }
}
