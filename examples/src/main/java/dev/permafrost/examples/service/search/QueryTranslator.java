/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.search;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * Turns the {@code q} parameter (Lucene's classic query syntax) and a time range into a query. The default field is
 * analyzed text (the standard analyzer); every other field is a keyword, matched as written ({@code
 * http.response.status_code:404}, {@code host.name:web-03}). The time range is a {@code FILTER} clause on the
 * timestamp's points, which is what lets a catalog skip indices whose recorded range cannot match. Thread-safe.
 */
public final class QueryTranslator {
  private final String defaultField;
  private final String timestampField;
  private final Analyzer analyzer;

  /** Parses with {@code defaultField} as the analyzed text field and {@code timestampField} for time ranges. */
  public QueryTranslator(String defaultField, String timestampField) {
    this.defaultField = defaultField;
    this.timestampField = timestampField;
    this.analyzer = new StandardAnalyzer(); // thread-safe: its components are reused per thread
  }

  /**
   * The query for {@code q} (blank: every document) within {@code range}.
   *
   * @throws ParseException with the parser's message if {@code q} is not valid syntax
   */
  public Query query(String q, TimeRange range) throws ParseException {
    Query text;
    if (q == null || q.isBlank() || q.trim().equals("*") || q.trim().equals("*:*")) {
      text = new MatchAllDocsQuery();
    } else {
      QueryParser parser = new KeywordFieldsParser(defaultField, analyzer); // not thread-safe: one per query
      parser.setAllowLeadingWildcard(false);
      text = parser.parse(q);
    }
    if (range.isAll()) {
      return text;
    }
    return new BooleanQuery.Builder()
        .add(text, BooleanClause.Occur.MUST)
        .add(LongPoint.newRangeQuery(timestampField, range.from(), range.to() - 1), BooleanClause.Occur.FILTER)
        .build();
  }

  /** The classic parser, with every field but the default one a keyword: a term as written, not analyzed. */
  private static final class KeywordFieldsParser extends QueryParser {
    KeywordFieldsParser(String defaultField, Analyzer analyzer) {
      super(defaultField, analyzer);
    }

    @Override
    protected Query getFieldQuery(String field, String queryText, boolean quoted) throws ParseException {
      if (!field.equals(this.field)) {
        return new TermQuery(new Term(field, queryText));
      }
      return super.getFieldQuery(field, queryText, quoted);
    }
  }
}
