/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The service's Elasticsearch-compatible API: {@code GET /}, {@code /{index}/_search}, {@code /_msearch},
 * {@code /{index}/_count}, {@code /{index}/_mapping} and {@code /{index}/_field_caps} over the mounted snapshots, so
 * that Elasticsearch's own clients and tools search them; the library's {@code SearchApi} does the work, this package
 * binds it to HTTP (paths, headers, error bodies). What is supported: docs/elasticsearch-api.md.
 */
package dev.permafrost.examples.service.elasticsearch;
