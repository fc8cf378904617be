/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Micrometer meters for Permafrost: {@link dev.permafrost.micrometer.SharedRegionCacheMetrics} for the shared region
 * cache (Micrometer's cache conventions plus Permafrost's own) and {@link dev.permafrost.micrometer.CatalogMetrics}
 * for a catalog's reader pool and searches. Both are {@link io.micrometer.core.instrument.binder.MeterBinder}s: bind
 * them to any registry, with or without Spring.
 *
 * <pre>{@code
 * new SharedRegionCacheMetrics(cache, "permafrost", Tags.empty()).bindTo(registry);
 * new CatalogMetrics(catalog, "default", Tags.empty()).bindTo(registry);
 * }</pre>
 */
package dev.permafrost.micrometer;
