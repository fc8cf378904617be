/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The service's JSON HTTP API: mounting ({@code /indices}), searches and histograms
 * ({@code /indices/{pattern}/search}, {@code /histogram}), snapshots ({@code /snapshots}) and the cache
 * ({@code /cache}). Every error is an RFC 9457 problem document ({@code application/problem+json}) made by
 * {@link dev.permafrost.examples.service.api.ProblemHandler}, never a stack trace.
 */
package dev.permafrost.examples.service.api;
