/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.IndexMapping;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.search.Query;

/**
 * A request's query ({@link #node()}, as parsed) built for each index it searches by that index's own mapping
 * ({@link QueryTranslator}), as Elasticsearch builds each
 * shard's query from its own index: indices that map a field differently are searched together, each reading the
 * field as it maps it. Translated once per distinct mapping. A value one index cannot read (a word for its number
 * field) fails that index's shards only, reported as failed shards, as the node does; if it fails every index, the
 * request fails with it. A request the query DSL refuses outright fails at once.
 */
final class IndexQueries {
  private final QueryNode node;
  private final Map<String, Query> byShard = new LinkedHashMap<>();
  private final Map<String, String> failed = new LinkedHashMap<>();

  private IndexQueries(QueryNode node) {
    this.node = node;
  }

  /**
   * Builds {@code node} for each of {@code indices} by the index's mapping, {@code now} in date math the system clock.
   * With no index, it is built by {@code union} (of no mapping), as the node still checks a query that searches no
   * shard.
   *
   * @param union the translator over the union of the indices' mappings, used for an index whose mapping it is (the
   *     only index)
   * @throws DslException the first index's refusal, if every index refuses the query, or any refusal of the request
   *     itself (not one shard's)
   */
  static IndexQueries build(QueryNode node, List<IndexShards> indices, QueryTranslator union) {
    if (indices.isEmpty()) {
      union.translate(node);
      return new IndexQueries(node);
    }
    return translate(node, indices, m -> (m == union.mapping() ? union
        : new QueryTranslator(m, System::currentTimeMillis)).translate(node));
  }

  /**
   * Translates for each of {@code indices} (at least one) with {@code translate}, given the index's mapping.
   *
   * @throws DslException the first index's refusal, if every index refuses the query, or any refusal of the request
   *     itself (not one shard's)
   */
  private static IndexQueries translate(QueryNode node, List<IndexShards> indices,
      Function<IndexMapping, Query> translate) {
    assert !indices.isEmpty();
    IndexQueries queries = new IndexQueries(node);
    Map<IndexMapping, Object> byMapping = new IdentityHashMap<>(); // a Query, or the DslException of a shard
    DslException first = null;
    for (IndexShards index : indices) {
      Object q = byMapping.computeIfAbsent(index.mapping(), m -> {
        try {
          return translate.apply(m);
        } catch (DslException e) {
          if (!e.type().equals("search_phase_execution_exception")) {
            throw e;
          }
          return e;
        }
      });
      for (String shard : index.shards()) {
        if (q instanceof Query query) {
          queries.byShard.put(shard, query);
        } else {
          DslException e = (DslException) q;
          first = first == null ? e : first;
          queries.failed.put(shard, e.rootCauseType() + ": " + e.getMessage());
        }
      }
    }
    if (queries.byShard.isEmpty() && first != null) {
      throw first;
    }
    return queries;
  }

  /** The query as parsed, before any index's mapping. */
  QueryNode node() {
    return node;
  }

  /** The shards to search: those whose index's query was translated. */
  List<String> shards() {
    return new ArrayList<>(byShard.keySet());
  }

  /** The shards whose index could not read the query, with why. */
  Map<String, String> failed() {
    return failed;
  }

  /** One of the queries, to name the search by. */
  Query any() {
    return byShard.values().iterator().next();
  }

  /** The query of {@code shard}, one of {@link #shards()}. */
  Query query(String shard) {
    Query q = byShard.get(shard);
    assert q != null : shard;
    return q;
  }
}
