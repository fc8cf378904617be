/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Mounting at scale: a {@link dev.permafrost.catalog.Catalog} of snapshots mounted by name, each kept as a summary of
 * a few KB until a search needs it, a pool that opens readers on demand, leases them
 * ({@link dev.permafrost.catalog.Lease}) and closes idle ones, and one call that searches many mounted indices
 * ({@link dev.permafrost.catalog.SearchRequest}), skipping those whose recorded ranges cannot match.
 *
 * <p>A snapshot mounted {@link dev.permafrost.catalog.MountMode#FULL_COPY} is also copied, in the background and
 * verified, into a local directory of its own, and its files are read from there once complete.
 */
package dev.permafrost.catalog;
