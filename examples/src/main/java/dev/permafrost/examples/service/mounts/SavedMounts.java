/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.mounts;

import dev.permafrost.blob.Durations;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountAllResult;
import dev.permafrost.catalog.MountSpec;
import dev.permafrost.examples.service.config.ServiceProperties;
import dev.permafrost.snapshot.SnapshotRepository;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * Remembers what is mounted in {@code permafrost.home/mounts.tsv} (one {@link MountSpec} line per index, naming its
 * manifest) and mounts it all again at start-up with {@link Catalog#mountAll}, before the sample data is looked at:
 * after a clean restart the manifests come from the cache, so re-mounting costs no store request. The file is written
 * (atomically) after every mount and unmount through the API, and at shutdown. A line that cannot be read, or a
 * mount that fails, is logged and skipped; the rest mount.
 */
@Component
@Order(-1)
public class SavedMounts implements ApplicationRunner {
  private static final Logger log = LoggerFactory.getLogger(SavedMounts.class);
  /** The file's name under {@code permafrost.home}. */
  public static final String FILE_NAME = "mounts.tsv";

  private final Catalog catalog;
  private final SnapshotRepository repository;
  private final Path file;

  SavedMounts(Catalog catalog, SnapshotRepository repository, ServiceProperties properties) {
    this.catalog = catalog;
    this.repository = repository;
    this.file = properties.home().resolve(FILE_NAME);
  }

  @Override
  public void run(ApplicationArguments args) throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    List<MountSpec> specs = new ArrayList<>();
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank() || lines.get(i).startsWith("#")) {
        continue;
      }
      try {
        specs.add(MountSpec.parseLine(lines.get(i)));
      } catch (IllegalArgumentException e) {
        log.warn("{} line {}: {}; skipped", file, i + 1, e.getMessage());
      }
    }
    long start = System.nanoTime();
    MountAllResult result = catalog.mountAll(repository, specs);
    log.info("mounted again {} of the {} indices saved in {} in {}{}", result.mounted().size(), specs.size(), file,
        Durations.formatNanos(System.nanoTime() - start),
        result.failed().isEmpty() ? "" : "; failed: " + result.failed());
  }

  /** Writes down what is mounted now. */
  public synchronized void save() {
    List<String> lines = new ArrayList<>();
    lines.add("# mounted indices, one per line: name, snapshot, mode, manifest blob, length, footer checksum, crc32c");
    for (MountSpec spec : catalog.mountSpecs()) {
      // only the repository's own snapshots: an engine repository's shards are mounted from its settings at start-up
      if (spec.manifest() == null || spec.manifest().blobName().equals(SnapshotRepository.manifestBlob(spec.snapshot()))) {
        lines.add(spec.toLine());
      }
    }
    try {
      Files.createDirectories(file.getParent());
      Path temp = file.resolveSibling(FILE_NAME + ".tmp");
      Files.write(temp, lines);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the mounted indices in " + file + ": " + e.getMessage(), e);
    }
  }

  @PreDestroy
  void saveAtShutdown() {
    try {
      save();
    } catch (RuntimeException e) {
      log.warn("{}", e.getMessage());
    }
  }
}
