/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.snapshot.SnapshotRepository;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

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

  /** Whether {@code text} has glob characters ({@code *} or {@code ?}). */
  static boolean isGlob(String text) {
    return text.indexOf('*') >= 0 || text.indexOf('?') >= 0;
  }

  /** The names among {@code names} that {@code glob} matches: {@code *} any run of characters, {@code ?} one. */
  static List<String> matching(String glob, List<String> names) {
    StringBuilder regex = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    Pattern pattern = Pattern.compile(regex.toString());
    List<String> matched = new ArrayList<>();
    for (String name : names) {
      if (pattern.matcher(name).matches()) {
        matched.add(name);
      }
    }
    return matched;
  }
}
