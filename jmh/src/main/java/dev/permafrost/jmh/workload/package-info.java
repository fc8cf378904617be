/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The searches the benchmarks time: needle, dashboard and discover, over every daily index of a data set.
 */
package dev.permafrost.jmh.workload;
