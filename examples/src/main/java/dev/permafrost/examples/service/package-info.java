/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * A Spring Boot search service over snapshots mounted in place: the application, the sample data it makes on first
 * start, and the line it prints when ready. The API lives in {@code api}, the Lucene side in {@code search}, the
 * configuration in {@code config}, snapshots being taken in {@code snapshots}.
 */
package dev.permafrost.examples.service;
