/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Sample data for the benchmarks, the example service and the Spark tests: a deterministic generator of
 * nginx-like access logs, one force-merged index per day, snapshotted into a filesystem repository and reused
 * across runs.
 */
package dev.permafrost.sample;
