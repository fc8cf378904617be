/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Elasticsearch's search API over a catalog's mounted indices, so that Elasticsearch's clients and tools search
 * snapshots in place. {@link dev.permafrost.elasticsearch.dsl.SearchApi} answers {@code _search}, {@code _msearch},
 * {@code _count}, {@code _mapping} and {@code _field_caps} as Elasticsearch's JSON (HTTP is the application's: the
 * example service binds it). A search is parsed, then run, then rendered: {@code SearchBody} reads the URL's
 * parameters and the body (its {@code sort} and {@code search_after} by {@code SortSpec}) into one typed request checked
 * against the indices' mappings, with no JSON below it; {@code SearchExecutor} runs it on the catalog into a
 * {@code SearchResult}; {@code SearchRenderer} writes Elasticsearch's JSON (errors too). The query DSL is parsed into
 * a typed {@code QueryNode} ({@code QueryDslParser}: the clause's shape and options, no mapping asked), then built into
 * Lucene over an index's mapping ({@code QueryTranslator}: the compound clauses; {@code FieldQueries} the term-level
 * ones, {@code FullTextQueries} the full-text ones, with
 * {@link dev.permafrost.elasticsearch.MappedQueryParser}'s analyzers, refusals, doc-values forms and its one rule of
 * date ranges), once per index by the index's own mapping ({@code IndexQueries}); {@link
 * dev.permafrost.elasticsearch.dsl.QueryDsl} is both steps for one mapping. Scored on Elasticsearch's BM25 scale
 * ({@code ClassicBm25Similarity});
 * {@link dev.permafrost.elasticsearch.dsl.Aggregations} parses aggregations into {@code AggSpec}s ({@code AggParser},
 * {@code LineAggParser}, {@code AggParams}) and computes them from doc values with one {@code Aggregator} per slice,
 * whose partial results ({@code AggPartial}, a sealed kind per aggregation) merge exactly; {@link dev.permafrost.elasticsearch.dsl.DateFormats}
 * reads and prints dates as Elasticsearch does (formats, zones, date math). A request it does not support fails with a
 * {@link dev.permafrost.elasticsearch.dsl.DslException} naming what, never with another answer. Scroll and point in
 * time ({@code CursorApi}) are the same request run again after a position ({@code CursorPosition}: sort values, then
 * the {@code _shard_doc} tie-breaker) by {@code SearchExecutor.page}, over shards pinned to the snapshots they are
 * mounted from ({@code PinnedShard}); an open one ({@code Cursor}, in the {@code CursorRegistry} under a
 * {@code CursorId}) holds no reader.
 *
 * <p>Layering: {@code SearchApi} -> {@code CursorApi} -> {@code SearchBody}, {@code SearchExecutor},
 * {@code SearchRenderer} -> {@code QueryDslParser}, {@code IndexQueries}, {@code QueryDsl}, {@code Aggregations} ->
 * {@code QueryTranslator} -> {@code FullTextQueries} -> {@code FieldQueries}, {@code QueryNode}, {@code AggSpec},
 * {@code Aggregator}, {@code DateRounding} -> {@code DateFormats}, {@code DslException}; the package uses the catalog
 * of {@code permafrost-core} and the mapping and documents of {@code dev.permafrost.elasticsearch}, which never name
 * it. What is supported: docs/elasticsearch-api.md.
 */
package dev.permafrost.elasticsearch.dsl;
