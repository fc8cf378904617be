/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfos;

/**
 * Reads a snapshot's field infos on the driver, to infer the schema: the snapshot is opened through a small
 * temporary cache, which costs the manifest's request and nothing more (the manifest keeps the small metadata files
 * whole, and the headers and footers of the others), and closed at once.
 */
final class FieldInfosReader {
  private FieldInfosReader() {}

  static FieldInfos read(SnapshotRepository repository, String snapshot) throws IOException {
    Path dir = Files.createTempDirectory("permafrost-schema");
    try (SharedRegionCache cache = SharedRegionCache.builder().path(dir).size("64mb").regionSize(1 << 20).build();
        BlobDirectory directory = BlobDirectory.open(repository, snapshot, cache);
        DirectoryReader reader = DirectoryReader.open(directory)) {
      return FieldInfos.getMergedFieldInfos(reader);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
