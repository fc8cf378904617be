/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.time.Duration;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Meters of a {@link SharedRegionCache}, named by Micrometer's cache conventions and tagged {@code cache=<name>}:
 *
 * <ul>
 *   <li>{@code cache.gets} with {@code result=hit} (a reader moved into bytes already cached) and
 *       {@code result=miss} (it waited for a fetch); {@code cache.puts}, fetches that filled the cache;
 *       {@code cache.evictions}, regions taken from one file for another; {@code cache.size}, regions in use.
 *   <li>Permafrost's own: {@code permafrost.cache.fetched} (bytes fetched into the cache),
 *       {@code permafrost.cache.direct.reads} (requests served directly from the store, bypassing the cache),
 *       {@code permafrost.cache.read} (bytes served, tagged {@code source=cache|direct|warm_set}),
 *       {@code permafrost.cache.fills.in.flight}, {@code permafrost.cache.checksum.mismatches},
 *       {@code permafrost.cache.write.failures}, {@code permafrost.cache.capacity} (bytes of the cache file) and
 *       {@code permafrost.cache.regions} (slots, free or not).
 * </ul>
 *
 * <p>{@link SharedRegionCache#stats()} walks every index's counters, so one scrape reads it once: a snapshot of the
 * stats is reused for {@code statsMaxAge} (1 second by default). Like Micrometer's other cache binders, this one
 * holds the cache weakly; a closed cache keeps reporting its last counts.
 */
public final class SharedRegionCacheMetrics extends CacheMeterBinder<SharedRegionCache> {
  /** How long one reading of the cache's stats serves the meters by default. */
  public static final Duration DEFAULT_STATS_MAX_AGE = Duration.ofSeconds(1);

  private final StatsSnapshot<CacheStats> stats;

  /** Meters of {@code cache}, tagged {@code cache=<cacheName>} and {@code tags}. */
  public SharedRegionCacheMetrics(SharedRegionCache cache, String cacheName, Iterable<Tag> tags) {
    this(cache, cacheName, tags, DEFAULT_STATS_MAX_AGE);
  }

  /**
   * Meters of {@code cache}, tagged {@code cache=<cacheName>} and {@code tags}, reading its stats at most once per
   * {@code statsMaxAge} ({@link Duration#ZERO}: at every reading of every meter).
   */
  public SharedRegionCacheMetrics(SharedRegionCache cache, String cacheName, Iterable<Tag> tags, Duration statsMaxAge) {
    super(Objects.requireNonNull(cache, "cache"), Objects.requireNonNull(cacheName, "cacheName"), tags);
    if (statsMaxAge.isNegative()) {
      throw new IllegalArgumentException("statsMaxAge must not be negative, got " + statsMaxAge);
    }
    this.stats = new StatsSnapshot<>(() -> {
      SharedRegionCache c = getCache();
      return c == null ? null : c.stats();
    }, statsMaxAge.toNanos());
  }

  @Override
  protected Long size() {
    CacheStats s = stats.get();
    return s == null ? null : (long) s.regionsInUse();
  }

  @Override
  protected long hitCount() {
    CacheStats s = stats.get();
    return s == null ? 0 : s.total().hits();
  }

  @Override
  protected Long missCount() {
    CacheStats s = stats.get();
    return s == null ? null : s.total().misses();
  }

  @Override
  protected Long evictionCount() {
    CacheStats s = stats.get();
    return s == null ? null : s.evictions();
  }

  @Override
  protected long putCount() {
    CacheStats s = stats.get();
    return s == null ? 0 : s.total().fetches();
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
    Iterable<Tag> tags = getTagsWithCacheName();
    counter(registry, "permafrost.cache.fetched", "Bytes fetched from the blob store into the cache", BaseUnits.BYTES,
        tags, s -> s.total().bytesFetched());
    counter(registry, "permafrost.cache.direct.reads",
        "Requests served directly from the blob store, bypassing the cache", null, tags, s -> s.total().directReads());
    counter(registry, "permafrost.cache.read", "Bytes served to readers, by where they came from", BaseUnits.BYTES,
        Tags.concat(tags, "source", "cache"), s -> s.total().bytesReadFromCache());
    counter(registry, "permafrost.cache.read", "Bytes served to readers, by where they came from", BaseUnits.BYTES,
        Tags.concat(tags, "source", "direct"), s -> s.total().bytesReadDirect());
    counter(registry, "permafrost.cache.read", "Bytes served to readers, by where they came from", BaseUnits.BYTES,
        Tags.concat(tags, "source", "warm_set"), s -> s.total().bytesReadFromWarmSet());
    counter(registry, "permafrost.cache.checksum.mismatches",
        "Fetched chunks whose bytes did not match their recorded checksum (never served)", null, tags,
        s -> s.total().checksumMismatches());
    counter(registry, "permafrost.cache.write.failures",
        "Fills that could not write the cache file (their readers read from the store)", null, tags,
        CacheStats::cacheWriteFailures);
    gauge(registry, "permafrost.cache.fills.in.flight", "Fetches writing into the cache right now", null, tags,
        CacheStats::fillsInFlight);
    gauge(registry, "permafrost.cache.capacity", "Bytes of the cache file given to regions", BaseUnits.BYTES, tags,
        CacheStats::sizeInBytes);
    gauge(registry, "permafrost.cache.regions", "Slots the cache file is cut into, free or not", null, tags,
        CacheStats::regions);
  }

  private void counter(MeterRegistry registry, String name, String description, String unit, Iterable<Tag> tags,
      ToDoubleFunction<CacheStats> value) {
    FunctionCounter.builder(name, stats, s -> read(s, value)).description(description).baseUnit(unit).tags(tags)
        .register(registry);
  }

  private void gauge(MeterRegistry registry, String name, String description, String unit, Iterable<Tag> tags,
      ToDoubleFunction<CacheStats> value) {
    Gauge.builder(name, stats, s -> read(s, value)).description(description).baseUnit(unit).tags(tags)
        .strongReference(true).register(registry);
  }

  private static double read(StatsSnapshot<CacheStats> snapshot, ToDoubleFunction<CacheStats> value) {
    CacheStats s = snapshot.get();
    return s == null ? Double.NaN : value.applyAsDouble(s);
  }
}
