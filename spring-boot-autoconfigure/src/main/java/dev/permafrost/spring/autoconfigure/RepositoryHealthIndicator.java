/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.blob.BlobStore;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Up when the repository's store answers one small request (does a probe key exist, which it does not: a HEAD, or
 * a file's attributes); down with the store's error otherwise. The store policy's deadline and retries apply, so a
 * store that does not answer is reported down after them.
 */
final class RepositoryHealthIndicator implements HealthIndicator {
  static final String PROBE = "snapshots/permafrost-health-probe";
  private final BlobStore store;

  RepositoryHealthIndicator(BlobStore store) {
    this.store = store;
  }

  @Override
  public Health health() {
    try {
      store.exists(PROBE);
      return Health.up().withDetail("repository", shown()).build();
    } catch (Exception e) {
      return Health.down().withDetail("repository", shown())
          .withDetail("error", e.getClass().getSimpleName()).build();
    }
  }

  /** The repository as the details show it: a local directory's path is the host's business, not the caller's. */
  private String shown() {
    String described = store.describe();
    return described.startsWith("file:") ? "file (a local directory)" : described;
  }
}
