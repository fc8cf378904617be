/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import dev.permafrost.blob.Durations;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.examples.service.mounts.SavedMounts;
import dev.permafrost.examples.service.snapshots.SnapshotSources;
import dev.permafrost.sample.Dataset;
import dev.permafrost.sample.DatasetSpec;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * With {@code permafrost.sample.enabled} (the default), makes sure there is something to search: generates the
 * access-log sample (one index a day) under {@code permafrost.sample.path} if it is not there, snapshots each day
 * into the repository if its snapshot is missing, offers each day as a snapshot source, and mounts each day under its
 * own name. Runs before the service reports ready; a second start reuses all of it.
 */
@Component
@Order(0)
class SampleData implements ApplicationRunner {
  private static final Logger log = LoggerFactory.getLogger(SampleData.class);
  private final ServiceProperties properties;
  private final SnapshotRepository repository;
  private final Catalog catalog;
  private final SnapshotSources sources;
  private final SavedMounts savedMounts;

  SampleData(ServiceProperties properties, SnapshotRepository repository, Catalog catalog, SnapshotSources sources,
      SavedMounts savedMounts) {
    this.savedMounts = savedMounts;
    this.properties = properties;
    this.repository = repository;
    this.catalog = catalog;
    this.sources = sources;
  }

  @Override
  public void run(ApplicationArguments args) throws IOException {
    ServiceProperties.Sample sample = properties.sample();
    if (!sample.enabled()) {
      return;
    }
    DatasetSpec spec = new DatasetSpec(sample.days(), sample.eventsPerDay(), DatasetSpec.DEFAULT_SEED,
        DatasetSpec.FIRST_DAY);
    long start = System.nanoTime();
    Dataset dataset = Dataset.getOrCreate(properties.samplePath(), spec);
    Set<String> existing = new HashSet<>(repository.listSnapshots());
    int taken = 0;
    for (String name : dataset.indexNames()) {
      sources.add(name, dataset.indexPath(name));
      if (!existing.contains(name)) {
        try (Directory dir = FSDirectory.open(dataset.indexPath(name))) {
          repository.createSnapshot(name, dir,
              SnapshotOptions.DEFAULTS.withPointFields(properties.search().timestampField()));
        }
        taken++;
      }
      if (catalog.list().stream().noneMatch(m -> m.name().equals(name))) {
        catalog.mount(name, repository, name);
      }
    }
    savedMounts.save();
    log.info("sample data ready in {}: {} daily indices of {} events mounted ({} snapshots taken now), from {}",
        Durations.formatNanos(System.nanoTime() - start), spec.days(), spec.eventsPerDay(), taken, dataset.root());
  }
}
