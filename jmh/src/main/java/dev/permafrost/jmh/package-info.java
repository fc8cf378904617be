/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The JMH benchmarks of the read path (warm, cold, small cache, raw reads, mount scale) and the policy report;
 * how to run them and their results are in the module's README.
 */
package dev.permafrost.jmh;
