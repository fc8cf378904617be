/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/** The service's mounts, kept across restarts and mounted again through the cache at start-up. */
package dev.permafrost.examples.service.mounts;
