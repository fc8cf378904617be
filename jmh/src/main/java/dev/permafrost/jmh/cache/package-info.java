/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The eviction policy simulator: region access traces recorded through a recording directory, replayed
 * against LRU, decayed LFU, TinyLFU, W-TinyLFU and Belady's optimum.
 */
package dev.permafrost.jmh.cache;
