/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The service's own configuration: its typed, validated {@code permafrost.*} properties
 * ({@link dev.permafrost.examples.service.config.ServiceProperties}: searches, snapshot sources, the sample). The
 * cache, repository, catalog, meters and health come from {@code permafrost-spring-boot-starter}.
 */
package dev.permafrost.examples.service.config;
