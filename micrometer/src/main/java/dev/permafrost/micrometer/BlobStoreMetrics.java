/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.StoreHealth;
import dev.permafrost.blob.StorePolicy;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Meters of a blob store's {@link StorePolicy}, tagged {@code store=<name>}: how often it retries, and whether its
 * retry budget is spent (the store is failing, and calls fail at their first failure).
 *
 * <ul>
 *   <li>Gauges: {@code permafrost.store.failing} (1 while failing, else 0), {@code permafrost.store.retry.tokens}
 *       (retries the budget allows now) and {@code permafrost.store.retry.budget} (its capacity, 0 when off).
 *   <li>Counters: {@code permafrost.store.retries} (attempts after a first one) and
 *       {@code permafrost.store.retries.refused} (retries not made because the budget was spent).
 * </ul>
 *
 * <p>The store must have a policy (every store that {@code BlobStores.open} or {@code SnapshotRepository.open}
 * returns has one). Every reading asks the policy afresh; the binder holds the store.
 */
public final class BlobStoreMetrics implements MeterBinder {
  private final BlobStore store;
  private final Tags tags;

  /**
   * Meters of {@code store}, tagged {@code store=<storeName>} and {@code tags}.
   *
   * @throws IllegalArgumentException if the store has no {@link StorePolicy}
   */
  public BlobStoreMetrics(BlobStore store, String storeName, Iterable<Tag> tags) {
    this.store = Objects.requireNonNull(store, "store");
    if (StorePolicy.health(store) == null) {
      throw new IllegalArgumentException("blob store " + store.describe() + " has no store policy: nothing to measure;"
          + " open it with BlobStores.open or SnapshotRepository.open, or apply a StorePolicy");
    }
    this.tags = Tags.concat(tags, "store", Objects.requireNonNull(storeName, "storeName"));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, "permafrost.store.failing", "1 while the store's retry budget is spent, else 0",
        h -> h.failing() ? 1 : 0);
    gauge(registry, "permafrost.store.retry.tokens", "Retries the store's retry budget allows now", StoreHealth::retryTokens);
    gauge(registry, "permafrost.store.retry.budget", "The capacity of the store's retry budget (0: no budget)",
        StoreHealth::retryBudget);
    counter(registry, "permafrost.store.retries", "Attempts after a first one", StoreHealth::retries);
    counter(registry, "permafrost.store.retries.refused", "Retries not made because the retry budget was spent",
        StoreHealth::retriesRefused);
  }

  private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<StoreHealth> value) {
    Gauge.builder(name, store, s -> value.applyAsDouble(StorePolicy.health(s))).description(description).tags(tags)
        .register(registry);
  }

  private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<StoreHealth> value) {
    FunctionCounter.builder(name, store, s -> value.applyAsDouble(StorePolicy.health(s))).description(description)
        .tags(tags).register(registry);
  }
}
