/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CatalogStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Meters of a {@link Catalog}: its reader pool and its multi-index searches, tagged {@code catalog=<name>}.
 *
 * <ul>
 *   <li>Gauges: {@code permafrost.catalog.mounted} (indices mounted), {@code permafrost.catalog.readers.open}
 *       (readers open or opening, what {@code maxOpenReaders} bounds), {@code permafrost.catalog.readers.opening},
 *       {@code permafrost.catalog.readers.heap} (their estimated heap, bytes).
 *   <li>Counters: {@code permafrost.catalog.reader.opens}, {@code permafrost.catalog.reader.closes} (tagged
 *       {@code reason=idle|room|other}), {@code permafrost.catalog.lease.wait} (seconds acquires waited for room to
 *       open a reader), {@code permafrost.catalog.searches}, and {@code permafrost.catalog.indices} (indices those
 *       searches touched, tagged {@code result=searched|skipped|failed}).
 * </ul>
 *
 * <p>{@link Catalog#stats()} is cheap, so every reading asks the catalog afresh. The binder holds the catalog.
 */
public final class CatalogMetrics implements MeterBinder {
  private final Catalog catalog;
  private final Tags tags;

  /** Meters of {@code catalog}, tagged {@code catalog=<catalogName>} and {@code tags}. */
  public CatalogMetrics(Catalog catalog, String catalogName, Iterable<Tag> tags) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.tags = Tags.concat(tags, "catalog", Objects.requireNonNull(catalogName, "catalogName"));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, "permafrost.catalog.mounted", "Indices mounted", null, CatalogStats::mounted);
    gauge(registry, "permafrost.catalog.readers.open", "Readers open or opening", null, CatalogStats::open);
    gauge(registry, "permafrost.catalog.readers.opening", "Readers being opened", null, CatalogStats::opening);
    gauge(registry, "permafrost.catalog.readers.heap", "Estimated heap of the open readers", BaseUnits.BYTES,
        CatalogStats::readerHeapBytes);
    counter(registry, "permafrost.catalog.reader.opens", "Readers opened", null, tags, CatalogStats::readerOpens);
    String closes = "Readers closed, by reason";
    counter(registry, "permafrost.catalog.reader.closes", closes, null, tags.and("reason", "idle"),
        CatalogStats::readersClosedIdle);
    counter(registry, "permafrost.catalog.reader.closes", closes, null, tags.and("reason", "room"),
        CatalogStats::readersClosedForRoom);
    counter(registry, "permafrost.catalog.reader.closes", closes, null, tags.and("reason", "other"),
        s -> s.readerCloses() - s.readersClosedIdle() - s.readersClosedForRoom());
    counter(registry, "permafrost.catalog.lease.wait", "Time acquires waited for room to open a reader",
        "seconds", tags, s -> s.leaseWaitNanos() / (double) TimeUnit.SECONDS.toNanos(1));
    counter(registry, "permafrost.catalog.searches", "Multi-index searches run", null, tags, CatalogStats::searches);
    String indices = "Indices multi-index searches searched, skipped without opening, or failed on";
    counter(registry, "permafrost.catalog.indices", indices, null, tags.and("result", "searched"),
        CatalogStats::indicesSearched);
    counter(registry, "permafrost.catalog.indices", indices, null, tags.and("result", "skipped"),
        CatalogStats::indicesSkipped);
    counter(registry, "permafrost.catalog.indices", indices, null, tags.and("result", "failed"),
        CatalogStats::indicesFailed);
  }

  private void gauge(MeterRegistry registry, String name, String description, String unit,
      ToDoubleFunction<CatalogStats> value) {
    Gauge.builder(name, catalog, c -> value.applyAsDouble(c.stats())).description(description).baseUnit(unit)
        .tags(tags).strongReference(true).register(registry);
  }

  private void counter(MeterRegistry registry, String name, String description, String unit, Iterable<Tag> tagsOf,
      ToDoubleFunction<CatalogStats> value) {
    FunctionCounter.builder(name, catalog, c -> value.applyAsDouble(c.stats())).description(description)
        .baseUnit(unit).tags(tagsOf).register(registry);
  }
}
