/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What every backend's builder shares: settings by the names the URI's query uses ({@link #setting}), kept as text
 * and read by the backend through {@link StoreSettings}, so that a builder and a URI are checked alike. Store
 * policy settings are refused here: a store built this way gets its policy from
 * {@code SnapshotRepository.open(store)} or {@link StorePolicy#apply(BlobStore)}.
 *
 * @param <B> the backend's builder
 */
public abstract class BlobStoreBuilder<B extends BlobStoreBuilder<B>> {
  private final String scheme;
  private final Map<String, String> settings = new LinkedHashMap<>();

  protected BlobStoreBuilder(String scheme) {
    this.scheme = scheme;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * Sets a setting by its URI name.
   *
   * @throws IllegalArgumentException if it is a {@link StorePolicy} setting
   */
  public B setting(String name, String value) {
    if (StorePolicy.isPolicySetting(name)) {
      throw new IllegalArgumentException("'" + name + "' is a store policy setting, not a " + scheme + " store setting:"
          + " give it in the URI to BlobStores.open, or build a StorePolicy and apply it (StorePolicy.builder()..."
          + "build().apply(store), or SnapshotRepository.open(store, policy))");
    }
    settings.put(name, value);
    return self();
  }

  /** Sets several settings by their URI names. */
  public B settings(Map<String, String> values) {
    values.forEach(this::setting);
    return self();
  }

  /** Sets a duration setting. */
  protected final B setting(String name, Duration value) {
    return setting(name, value.toString());
  }

  /** The settings given so far, to read as a URI's would be read. */
  protected final StoreSettings storeSettings() {
    return new StoreSettings(scheme, settings);
  }
}
