/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

/** How a snapshot is mounted (Elasticsearch's frozen and cold tiers). */
public enum MountMode {
  /** Ranges are fetched lazily into the shared cache as searches need them (frozen). */
  SHARED_CACHE,
  /**
   * The whole snapshot is copied in the background to a local directory; each file is read through the shared
   * cache until its local copy is complete and verified, then from the local copy, which survives a restart (cold).
   * A reader already open keeps reading what it opened through the cache; readers opened later use the copy. Needs
   * {@link Catalog.Builder#fullCopyDirectory}.
   */
  FULL_COPY
}
