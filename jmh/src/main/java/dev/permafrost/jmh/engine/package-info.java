/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Benchmark data written by a real engine node: an Elasticsearch 9.3.3 logsdb index of the access-log documents in an
 * {@code fs} snapshot repository, with the node's own answer to the dashboard, generated once and reused.
 */
package dev.permafrost.jmh.engine;
