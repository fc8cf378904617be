/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Stores for the benchmarks: a latency model of object storage that also counts requests and their dependency
 * waves, the MinIO copy of a data set, and the mounts of a data set's snapshots.
 */
package dev.permafrost.jmh.store;
