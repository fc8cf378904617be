/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Spring Boot auto-configuration for Permafrost: {@link dev.permafrost.spring.autoconfigure.PermafrostProperties}
 * (the typed {@code permafrost.*} settings), {@link dev.permafrost.spring.autoconfigure.PermafrostAutoConfiguration}
 * (store, repository, cache, catalog and declared mounts, each backing off for the application's own) and
 * {@link dev.permafrost.spring.autoconfigure.PermafrostObservabilityAutoConfiguration} (meters, observations and a
 * health indicator when Micrometer and Actuator are present).
 */
package dev.permafrost.spring.autoconfigure;
