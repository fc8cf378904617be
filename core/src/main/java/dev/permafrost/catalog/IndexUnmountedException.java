/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

/**
 * The index was unmounted before a lease on it could be given: a search that reached it through a glob drops it
 * (reported as skipped, as Elasticsearch reports a vanished shard); one that named it fails.
 */
final class IndexUnmountedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  IndexUnmountedException(String name) {
    super("index '" + name + "' was unmounted");
  }
}
