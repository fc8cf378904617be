/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The Lucene side of the service's searches, free of Spring: a query string and a time range to a query
 * ({@link dev.permafrost.examples.service.search.QueryTranslator}), the sort parameter, and a date histogram over the
 * timestamp's doc values ({@link dev.permafrost.examples.service.search.DateHistogram}).
 */
package dev.permafrost.examples.service.search;
