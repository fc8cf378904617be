/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The Lucene side of the service's searches, free of Spring: intervals and a date histogram over the timestamp's doc
 * values ({@link dev.permafrost.examples.service.search.DateHistogram}). {@code q}, time ranges and sorts are read by
 * the one front every door shares, {@link dev.permafrost.elasticsearch.QueryFront}.
 */
package dev.permafrost.examples.service.search;
