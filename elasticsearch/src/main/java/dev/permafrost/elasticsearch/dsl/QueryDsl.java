/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.elasticsearch.IndexMapping;
import java.util.function.LongSupplier;
import org.apache.lucene.search.Query;

/**
 * Translates Elasticsearch's query DSL ({@code {"bool": {"filter": [{"term": {"host": "web-01"}}, {"range":
 * {"@timestamp": {"gte": "now-1h"}}}]}}}) into a Lucene query over an index's mapping, with Elasticsearch's
 * semantics: {@code match_all}, {@code match_none}, {@code bool}, {@code term}, {@code terms}, {@code range},
 * {@code exists}, {@code prefix}, {@code wildcard}, {@code ids}, {@code match}, {@code match_phrase},
 * {@code multi_match} (best_fields), {@code query_string}, {@code simple_query_string}, {@code constant_score} and
 * {@code dis_max}, each with {@code boost}. Terms and ranges on keyword, number and date fields also run on segments
 * that keep the field in doc values only (Elasticsearch's time_series and logsdb indices). The query is parsed into a
 * typed model first ({@code QueryDslParser} into a {@code QueryNode}), then built for the mapping
 * ({@code QueryTranslator}).
 *
 * <p>Whatever it does not support fails with a {@link DslException} (400) naming the clause, parameter or field,
 * never a different query: other query types, unknown parameters, fields inside {@code nested} objects and fields of
 * types it does not query ({@code ip}, {@code boolean}, ...). A field the mapping does not have matches nothing, as in
 * Elasticsearch. Thread-safe.
 */
public final class QueryDsl {
  private final QueryTranslator translator;

  /** Translates queries over the fields of {@code mapping}; {@code now} in date math is the system clock. */
  public QueryDsl(IndexMapping mapping) {
    this(mapping, System::currentTimeMillis);
  }

  /** Translates queries over {@code mapping} with {@code now} (epoch milliseconds) for date math. */
  QueryDsl(IndexMapping mapping, LongSupplier now) {
    this.translator = new QueryTranslator(mapping, now);
  }

  /**
   * The Lucene query of {@code query}, the value of a search request's {@code "query"}; a missing or null one
   * matches every document.
   *
   * @throws DslException (400) naming the clause, parameter or field it cannot translate as Elasticsearch would
   */
  public Query toQuery(JsonNode query) {
    return translator.translate(QueryDslParser.parse(query));
  }
}
