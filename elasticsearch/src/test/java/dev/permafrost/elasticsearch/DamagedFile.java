/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;

/**
 * A copy of an engine fixture's repository with one byte flipped in the middle of one file of a shard: in the file's
 * own blob, or inside a compound file's blob (found through its entry table). For the tests that a damaged file is
 * caught, naming the file and the blob.
 *
 * @param repository the damaged copy
 * @param file the damaged file's name (inside a compound file, its entry's: {@code _ES95TSDB_0.dvd})
 * @param blobName the blob the flipped byte is in
 */
record DamagedFile(EngineSnapshotRepository repository, String file, String blobName) {
  /**
   * Copies the repository at {@code repo} to {@code copy} and flips a byte ({@code mask}) in the middle of the first
   * file of shard 0 of {@code index} in {@code snapshot} whose name ends with {@code suffix}.
   */
  static DamagedFile flip(Path repo, Path copy, String snapshot, String index, String suffix, int mask)
      throws IOException {
    return flip(repo, copy, snapshot, index, suffix, mask, length -> length / 2);
  }

  /**
   * As {@link #flip(Path, Path, String, String, String, int)}, the byte flipped at {@code at.applyAsLong(length)} of the
   * file (e.g. {@code length - 1}: the last byte of its footer's checksum; 0: the first of its header's magic).
   */
  static DamagedFile flip(Path repo, Path copy, String snapshot, String index, String suffix, int mask,
      LongUnaryOperator at) throws IOException {
    try (Stream<Path> paths = Files.walk(repo)) {
      for (Path p : paths.toList()) {
        Path to = copy.resolve(repo.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to);
        }
      }
    }
    EngineSnapshotRepository damaged = EngineSnapshotRepository.open(FileSystemBlobStore.open(copy, false));
    String shard = EngineSnapshotRepository.shard(snapshot, index, 0);
    SnapshotManifest manifest = damaged.parseManifest(shard, damaged.readManifestBytes(shard));
    Optional<FileEntry> own = manifest.files().stream().filter(f -> f.name().endsWith(suffix)).findFirst();
    if (own.isPresent()) { // a segment not in a compound file: the file is a blob of its own
      flipAt(copy.resolve(own.get().blobName()), 0, Files.size(copy.resolve(own.get().blobName())), mask, at);
      return new DamagedFile(damaged, own.get().name(), own.get().blobName());
    }
    for (FileEntry cfe : manifest.files().stream().filter(f -> f.name().endsWith(".cfe")).toList()) {
      String segment = cfe.name().substring(0, cfe.name().length() - ".cfe".length());
      FileEntry cfs = manifest.files().stream().filter(f -> f.name().equals(segment + ".cfs")).findFirst().orElseThrow();
      byte[] table = cfe.isKeptWhole() ? cfe.wholeBytes() : Files.readAllBytes(copy.resolve(cfe.blobName()));
      for (CompoundEntries.Entry e : CompoundEntries.parse(table)) {
        if (e.suffix().endsWith(suffix)) {
          flipAt(copy.resolve(cfs.blobName()), e.start(), e.length(), mask, at);
          return new DamagedFile(damaged, e.suffix(), cfs.blobName());
        }
      }
    }
    throw new AssertionError("no file *" + suffix + " in shard " + shard + ": " + manifest.files());
  }

  /** The blob's name after its last '/': what an error message names. */
  String shortBlobName() {
    return blobName.substring(blobName.lastIndexOf('/') + 1);
  }

  private static void flipAt(Path blob, long offset, long length, int mask, LongUnaryOperator at) throws IOException {
    byte[] bytes = Files.readAllBytes(blob);
    long within = at.applyAsLong(length);
    assert within >= 0 && within < length : within + " of " + length;
    bytes[Math.toIntExact(offset + within)] ^= (byte) mask;
    Files.write(blob, bytes);
  }
}
