/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The service's Elasticsearch-compatible API: {@code GET /}, {@code /{index}/_search}, {@code /_msearch},
 * {@code /{index}/_count}, {@code /{index}/_mapping}, {@code /{index}/_field_caps}, {@code HEAD} and
 * {@code GET /{index}}, {@code _resolve/index}, {@code _alias}, {@code _cat/indices}, {@code _cat/count} and
 * {@code _cluster/health} over the mounted snapshots, with {@code filter_path} on every answer and a node's errors for
 * endpoints it lacks, so that Elasticsearch's own clients and tools search them; the library's {@code SearchApi} and
 * {@code IndicesApi} do the work, this package binds them to HTTP (paths, headers, error bodies). What is supported: docs/elasticsearch-api.md.
 */
package dev.permafrost.examples.service.elasticsearch;
