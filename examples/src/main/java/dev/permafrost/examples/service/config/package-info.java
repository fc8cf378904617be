/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The service's configuration: typed, validated {@code permafrost.*} properties
 * ({@link dev.permafrost.examples.service.config.PermafrostProperties}) and the beans built from them (the shared
 * cache, the repository's blob store, the catalog, its meters and the repository's health indicator).
 */
package dev.permafrost.examples.service.config;
