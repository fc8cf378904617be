/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.catalog.Glob;
import dev.permafrost.snapshot.SnapshotRepository;
import java.util.List;

/** Snapshot names and globs as the command line takes them. */
final class Names {
  private Names() {}

  /** Fails with a usage error if {@code name} is not a valid snapshot name. */
  static String validateSnapshot(String name) {
    try {
      return SnapshotRepository.validateName(name);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  /** Whether {@code text} has glob characters ({@code *} or {@code ?}): {@link Glob#isGlob}. */
  static boolean isGlob(String text) {
    return Glob.isGlob(text);
  }

  /** The names among {@code names} that {@code glob} matches ({@link Glob}: {@code *} any run of characters, {@code ?} one). */
  static List<String> matching(String glob, List<String> names) {
    return Glob.of(glob).filter(names);
  }
}
