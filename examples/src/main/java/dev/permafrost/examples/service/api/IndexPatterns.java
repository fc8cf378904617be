/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Glob;
import dev.permafrost.catalog.MountInfo;
import java.util.List;

/** The {@code {pattern}} path segment: names and {@link Glob globs}, comma-separated. */
final class IndexPatterns {
  private IndexPatterns() {}

  /**
   * The parts of {@code pattern}.
   *
   * @throws ApiException 404 for a name without wildcards that is not mounted, 400 for an empty part
   */
  static String[] parse(Catalog catalog, String pattern) {
    String[] parts = pattern.split(",", -1);
    for (int i = 0; i < parts.length; i++) {
      parts[i] = parts[i].trim();
      if (parts[i].isEmpty()) {
        throw ApiException.badParameter("the index pattern '" + pattern + "' has an empty part");
      }
      if (!Glob.isGlob(parts[i])) {
        try {
          catalog.info(parts[i]);
        } catch (IllegalArgumentException e) {
          throw ApiException.unknownIndex(parts[i]);
        }
      }
    }
    return parts;
  }

  /** Whether {@code parts} name one index exactly (no globs): its failure is the request's failure. */
  static boolean single(String[] parts) {
    return parts.length == 1 && !Glob.isGlob(parts[0]);
  }

  /** The mounted indices {@code parts} match. */
  static List<MountInfo> matching(Catalog catalog, String[] parts) {
    return catalog.list(parts);
  }

  /** The names of the mounted indices {@code parts} match. */
  static List<String> names(Catalog catalog, String[] parts) {
    return matching(catalog, parts).stream().map(MountInfo::name).toList();
  }
}
