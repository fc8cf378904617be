/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * A query in Lucene's classic syntax, read as the example service reads it: terms without a field search the
 * default field, analyzed with the standard analyzer; every other field is a keyword, matched as written
 * ({@code http.response.status_code:404}); blank, {@code *} and {@code *:*} match everything. A query that does not
 * parse is a {@link UsageException}.
 */
final class QueryText {
  private QueryText() {}

  static Query parse(String text, String defaultField) {
    if (text == null || text.isBlank() || text.trim().equals("*") || text.trim().equals("*:*")) {
      return new MatchAllDocsQuery();
    }
    try (Analyzer analyzer = new StandardAnalyzer()) {
      QueryParser parser = new KeywordFieldsParser(defaultField, analyzer);
      parser.setAllowLeadingWildcard(false);
      return parser.parse(text);
    } catch (ParseException e) {
      throw new UsageException("the query does not parse (Lucene's classic syntax): " + e.getMessage(), e);
    }
  }

  /** The classic parser, with every field but the default one a keyword. */
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
