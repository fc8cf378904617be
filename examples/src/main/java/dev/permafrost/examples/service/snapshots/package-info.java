/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Snapshots the service takes: the local index directories it was given
 * ({@link dev.permafrost.examples.service.snapshots.SnapshotSources}) and the snapshots being taken of them in the
 * background, with their progress ({@link dev.permafrost.examples.service.snapshots.SnapshotTasks}).
 */
package dev.permafrost.examples.service.snapshots;
