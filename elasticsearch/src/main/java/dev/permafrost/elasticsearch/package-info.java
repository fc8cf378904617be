/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
/**
 * Snapshot repositories written by Elasticsearch (8.x, 9.x) and OpenSearch (2.x, 3.x), searched in place:
 * {@link dev.permafrost.elasticsearch.EngineSnapshotRepository} reads a repository through any Permafrost blob store
 * and mounts each shard of an index in a {@link dev.permafrost.catalog.Catalog};
 * {@link dev.permafrost.elasticsearch.MappedQueryParser} queries fields as the index's mapping defines them, and
 * {@link dev.permafrost.elasticsearch.QueryFront} reads a search's {@code q}, time range and sort through it for every
 * door that takes them (the example service's own API, the CLI), each index by its own mapping;
 * {@link dev.permafrost.elasticsearch.EngineDocuments} decodes hits' {@code _id} and {@code _source}. Elasticsearch's
 * own segment formats are read by {@link dev.permafrost.elasticsearch.codecs}.
 */
package dev.permafrost.elasticsearch;
