/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MappedQueryParser;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;

/**
 * Builds a {@link QueryNode} into a Lucene query over one index's mapping, with Elasticsearch's semantics: the
 * compound clauses ({@code bool}, {@code constant_score}, {@code dis_max}, {@code match_all}, {@code match_none},
 * boosts) here, each field's term-level queries by {@link FieldQueries}, the full-text ones by
 * {@link FullTextQueries}. What the mapping decides fails with a {@link DslException} naming the clause and field (a field of a type it does not query,
 * a value its number field cannot read); a field the mapping does not have matches nothing. Thread-safe.
 */
final class QueryTranslator {
  private final IndexMapping mapping;
  private final FieldQueries fields;
  private final FullTextQueries fullText;

  /** Builds over {@code mapping} with {@code now} (epoch milliseconds) for date math. */
  QueryTranslator(IndexMapping mapping, LongSupplier now) {
    this.mapping = mapping;
    MappedQueryParser parser = new MappedQueryParser(mapping, dateBounds(now));
    this.fields = new FieldQueries(mapping, parser, now);
    this.fullText = new FullTextQueries(fields, parser, now);
  }

  /** The mapping it builds over. */
  IndexMapping mapping() {
    return mapping;
  }

  /**
   * Date bounds as the Elasticsearch API reads them wherever a request gives a date without a format of its own
   * ({@code query_string}, {@code search_after}): in the field's format, UTC, with date math.
   */
  static MappedQueryParser.DateBounds dateBounds(LongSupplier now) {
    return (field, text, roundUp) -> DateFormats.parse(text, field.format(), null, roundUp, now);
  }

  /**
   * The Lucene query of {@code node}.
   *
   * @throws DslException (400) naming the clause and field the mapping cannot read it for, as Elasticsearch would
   */
  Query translate(QueryNode node) {
    return switch (node) {
      case QueryNode.MatchAll q -> boost(new MatchAllDocsQuery(), q.boost());
      case QueryNode.MatchNone q -> new MatchNoDocsQuery("match_none");
      case QueryNode.Bool q -> bool(q);
      case QueryNode.ConstantScore q -> boost(new ConstantScoreQuery(translate(q.filter())), q.boost());
      case QueryNode.DisMax q -> {
        List<Query> disjuncts = new ArrayList<>();
        q.queries().forEach(d -> disjuncts.add(translate(d)));
        yield boost(new DisjunctionMaxQuery(disjuncts, q.tieBreaker()), q.boost());
      }
      case QueryNode.Boosted q -> boost(translate(q.query()), q.boost());
      case QueryNode.Term q -> boost(fields.term("term", q.field(), q.value(), q.caseInsensitive()), q.boost());
      case QueryNode.Terms q -> q.values().isEmpty() ? new MatchNoDocsQuery("[terms] with no values")
          : boost(fields.terms("terms", q.field(), q.values()), q.boost());
      case QueryNode.Range q -> boost(fields.range("range", q.field(), q.lower(), q.upper(), q.format(), q.timeZone()),
          q.boost());
      case QueryNode.Exists q -> boost(fields.exists("exists", q.field()), q.boost());
      case QueryNode.Prefix q -> boost(fields.prefix("prefix", q.field(), q.value(), q.caseInsensitive()), q.boost());
      case QueryNode.Wildcard q -> boost(fields.wildcard("wildcard", q.field(), q.pattern(), q.caseInsensitive()),
          q.boost());
      case QueryNode.Ids q -> q.values().isEmpty() ? new MatchNoDocsQuery("[ids] with no values")
          : boost(new ConstantScoreQuery(fields.ids(q.values())), q.boost());
      case QueryNode.Match q -> boost(fullText.match(q), q.boost());
      case QueryNode.MatchPhrase q -> boost(fullText.matchPhrase(q), q.boost());
      case QueryNode.MultiMatch q -> boost(fullText.multiMatch(q), q.boost());
      case QueryNode.QueryString q -> boost(fullText.queryString(q), q.boost());
      case QueryNode.SimpleQueryString q -> boost(fullText.simpleQueryString(q), q.boost());
    };
  }

  private Query bool(QueryNode.Bool node) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    int required = add(b, node.must(), BooleanClause.Occur.MUST) + add(b, node.filter(), BooleanClause.Occur.FILTER);
    int optional = add(b, node.should(), BooleanClause.Occur.SHOULD);
    int negative = add(b, node.mustNot(), BooleanClause.Occur.MUST_NOT);
    if (required + optional + negative == 0) {
      return boost(new MatchAllDocsQuery(), node.boost());
    }
    if (node.minimumShouldMatch() != null) {
      b.setMinimumNumberShouldMatch(FieldQueries.minimumShouldMatch("bool", node.minimumShouldMatch(), optional));
    } else {
      b.setMinimumNumberShouldMatch(required == 0 && optional > 0 ? 1 : 0);
    }
    if (required + optional == 0) {
      b.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER); // only must_not: all documents but those
    }
    return boost(b.build(), node.boost());
  }

  /** Adds {@code clauses} with {@code occur}; how many. */
  private int add(BooleanQuery.Builder b, List<QueryNode> clauses, BooleanClause.Occur occur) {
    for (QueryNode c : clauses) {
      b.add(translate(c), occur);
    }
    return clauses.size();
  }

  private static Query boost(Query q, float boost) {
    return FieldQueries.boost(q, boost);
  }
}
