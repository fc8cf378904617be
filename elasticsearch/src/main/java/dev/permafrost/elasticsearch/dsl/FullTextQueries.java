/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MappedQueryParser;
import dev.permafrost.elasticsearch.dsl.QueryNode.FieldWeight;
import dev.permafrost.elasticsearch.dsl.QueryNode.Operator;
import dev.permafrost.elasticsearch.dsl.QueryNode.Value;
import dev.permafrost.elasticsearch.dsl.QueryNode.ZeroTerms;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.apache.lucene.queryparser.simple.SimpleQueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.QueryBuilder;

/**
 * The full-text queries of the query DSL ({@code match}, {@code match_phrase}, {@code multi_match},
 * {@code query_string}, {@code simple_query_string}) over one index's mapping: a text field's text analyzed by
 * {@link MappedQueryParser#analyzer()}, another field's value as its {@code term} ({@link FieldQueries}), field
 * patterns expanded over the mapping's fields, query strings parsed by {@link MappedQueryParser}. Each returns the query without
 * the clause's own boost.
 */
final class FullTextQueries {
  private final FieldQueries fields;
  private final MappedQueryParser parser;
  private final LongSupplier now;

  FullTextQueries(FieldQueries fields, MappedQueryParser parser, LongSupplier now) {
    this.fields = fields;
    this.parser = parser;
    this.now = now;
  }

  /** A {@code match} query; what its zero-terms option says where the text has no terms. */
  Query match(QueryNode.Match node) {
    Query q = match("match", node.field(), node.query(), node.operator(), node.minimumShouldMatch(), node.lenient());
    return orZeroTerms(q, node.zeroTerms());
  }

  /** A {@code match_phrase} query; what its zero-terms option says where the text has no terms. */
  Query matchPhrase(QueryNode.MatchPhrase node) {
    String clause = "match_phrase";
    String name = node.field();
    IndexMapping.Field f = fields.field(clause, name);
    Query q;
    if (f == null) {
      q = FieldQueries.unmapped(name);
    } else if (FieldQueries.kind(clause, f) != FieldQueries.Kind.TEXT) {
      q = fields.term(clause, name, node.query(), false);
    } else {
      q = new QueryBuilder(parser.analyzer()).createPhraseQuery(name, node.query().text(clause, name), node.slop());
    }
    return orZeroTerms(q, node.zeroTerms());
  }

  /** A {@code multi_match} query of type {@code best_fields}: the best of a {@code match} on each field. */
  Query multiMatch(QueryNode.MultiMatch node) {
    String clause = "multi_match";
    List<Query> disjuncts = new ArrayList<>();
    for (Map.Entry<String, Float> f : weights(node.fields(), null).entrySet()) {
      boolean expanded = f.getValue() < 0; // named by a pattern: skipped where the value does not fit, as in ES
      Query q;
      try {
        q = match(clause, f.getKey(), node.query(), node.operator(), node.minimumShouldMatch(),
            node.lenient() || expanded);
      } catch (DslException e) {
        if (expanded) {
          continue;
        }
        throw e;
      }
      if (q != null) {
        disjuncts.add(FieldQueries.boost(q, Math.abs(f.getValue())));
      }
    }
    Query q = disjuncts.isEmpty() ? null : disjuncts.size() == 1 ? disjuncts.get(0)
        : new DisjunctionMaxQuery(disjuncts, node.tieBreaker());
    return orZeroTerms(q, node.zeroTerms());
  }

  /** A {@code query_string} query, lenient by default where it names no default field. */
  Query queryString(QueryNode.QueryString node) {
    String text = node.query();
    if (text.equals("*") || text.equals("*:*")) {
      return new MatchAllDocsQuery();
    }
    // the zone of its dates without an offset, and of their rounding
    MappedQueryParser parser = node.timeZone() == null ? this.parser : new MappedQueryParser(fields.mapping(),
        (field, t, up) -> DateFormats.parse(t, field.format(), node.timeZone(), up, now));
    try {
      // lenient by default where no default field is named, as the node: a value not of its date field matches nothing
      boolean lenient = node.lenient() != null ? node.lenient() : node.defaultField() == null;
      return withAllBesideNegatives(parser.parse(text, node.defaultField(),
          node.defaultOperator() == Operator.AND, lenient));
    } catch (DslException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw DslException.parsing("[query_string] " + e.getMessage());
    }
  }

  /** A {@code simple_query_string} query over the text and keyword fields it names. */
  Query simpleQueryString(QueryNode.SimpleQueryString node) {
    String clause = "simple_query_string";
    String text = node.query();
    if (text.trim().equals("*")) {
      return new MatchAllDocsQuery();
    }
    Map<String, Float> weights = new LinkedHashMap<>();
    for (Map.Entry<String, Float> f : weights(node.fields(),
        EnumSet.of(FieldQueries.Kind.TEXT, FieldQueries.Kind.KEYWORD)).entrySet()) {
      IndexMapping.Field field = fields.field(clause, f.getKey());
      if (field == null) {
        continue;
      }
      FieldQueries.Kind kind = FieldQueries.kind(clause, field);
      if (kind != FieldQueries.Kind.TEXT && kind != FieldQueries.Kind.KEYWORD) {
        throw DslException.illegalArgument("[simple_query_string] on field [" + f.getKey() + "] of type ["
            + field.type() + "] is not supported by Permafrost's query DSL: only text and keyword fields");
      }
      weights.put(f.getKey(), Math.abs(f.getValue()));
    }
    if (weights.isEmpty()) {
      return new MatchNoDocsQuery("[simple_query_string] on no mapped field");
    }
    SimpleQueryParser sqp = new SimpleQueryParser(parser.analyzer(), weights) {
      /**
       * A phrase over several fields scores as its best field, where Lucene's parser adds them up: a 9.3.3 node
       * scored {@code "updated record after review"} over {@code ["message^2", "message.raw"]} as the text field's
       * phrase alone (46.55, not 46.55 + 4.81). Terms still add up over fields, as on the node.
       */
      @Override
      protected Query newPhraseQuery(String phrase, int slop) {
        List<Query> disjuncts = new ArrayList<>();
        for (Map.Entry<String, Float> w : weights.entrySet()) {
          Query q = createPhraseQuery(w.getKey(), phrase, slop);
          if (q != null) {
            disjuncts.add(w.getValue() == 1f ? q : new BoostQuery(q, w.getValue()));
          }
        }
        return disjuncts.isEmpty() ? null
            : disjuncts.size() == 1 ? disjuncts.getFirst() : new DisjunctionMaxQuery(disjuncts, 0f);
      }
    };
    sqp.setDefaultOperator(node.defaultOperator() == Operator.AND ? BooleanClause.Occur.MUST
        : BooleanClause.Occur.SHOULD);
    Query q = sqp.parse(text);
    return q == null ? new MatchNoDocsQuery("no terms")
        : parser.withDocValuesForms(withAllBesideNegatives(q));
  }

  /**
   * A {@code match} query: a text field's analyzed terms, any of them ({@code and}: all of them) with at least
   * {@code minimumShouldMatch} of the optional ones (with {@code and}, of none: an integer above 0 then matches
   * nothing, a percentage or a negative count everything that has all the terms); on other fields the term query of
   * the value. Null where the text has no terms.
   *
   * @param lenient whether a value that is not a number or date of the field matches nothing rather than failing
   */
  private Query match(String clause, String name, Value value, Operator operator, String minimumShouldMatch,
      boolean lenient) {
    IndexMapping.Field f = fields.field(clause, name);
    if (f == null) {
      return FieldQueries.unmapped(name);
    }
    if (FieldQueries.kind(clause, f) != FieldQueries.Kind.TEXT) {
      return lenientTerm(clause, name, value, lenient);
    }
    Query q = new QueryBuilder(parser.analyzer()).createBooleanQuery(name, value.text(clause, name),
        operator == Operator.AND ? BooleanClause.Occur.MUST : BooleanClause.Occur.SHOULD);
    // as Elasticsearch: counted against the optional clauses (none with and), and not capped by their number, so
    // that a positive count more than there are (any, with and) matches nothing
    if (q instanceof BooleanQuery b && minimumShouldMatch != null) {
      long optional = b.clauses().stream().filter(c -> c.occur() == BooleanClause.Occur.SHOULD).count();
      BooleanQuery.Builder rebuilt = new BooleanQuery.Builder()
          .setMinimumNumberShouldMatch(FieldQueries.minimumShouldMatch(clause, minimumShouldMatch, (int) optional));
      b.clauses().forEach(rebuilt::add);
      q = rebuilt.build();
    }
    return q;
  }

  private Query lenientTerm(String clause, String name, Value value, boolean lenient) {
    try {
      return fields.term(clause, name, value, false);
    } catch (DslException e) {
      if (lenient && !e.getMessage().contains("not supported")) {
        return new MatchNoDocsQuery("lenient: " + e.getMessage());
      }
      throw e;
    }
  }

  /**
   * The fields {@code given} names, each with its boost, negated for a field a pattern named; patterns only name
   * fields of {@code patternTypes} (null: any queryable type). A field named or matched more than once has the product
   * of the boosts, as a 9.3.3 node weighs {@code ["message", "message*^1.5"]} and
   * {@code ["mess*", "message*^1.5", "message^2"]} (3); named twice, its last boost.
   */
  private Map<String, Float> weights(List<FieldWeight> given, Set<FieldQueries.Kind> patternTypes) {
    Map<String, Float> out = new LinkedHashMap<>();
    for (FieldWeight w : given) {
      String name = w.name();
      float boost = w.boost();
      if (!w.isPattern()) {
        Float before = out.get(name);
        out.put(name, before != null && before < 0 ? -before * boost : boost); // a pattern's boost multiplies it
        continue;
      }
      Pattern p = Pattern.compile(Pattern.quote(name).replace("*", "\\E.*\\Q"));
      for (IndexMapping.Field f : fields.mapping().fields().values()) {
        if (!p.matcher(f.path()).matches()) {
          continue;
        }
        Float before = out.get(f.path());
        if (before != null) { // named or matched before: the boosts multiply, as on the node (a pattern's stays < 0)
          out.put(f.path(), before > 0 ? before * boost : before * Math.max(boost, Float.MIN_VALUE));
        } else if (before == null && f.nestedPath() == null && parser.refusal(f.path()) == null
            && (f.indexed() || f.docValues()) && queryable(f, patternTypes)) {
          out.put(f.path(), -Math.max(boost, Float.MIN_VALUE));
        }
      }
    }
    return out;
  }

  private static boolean queryable(IndexMapping.Field f, Set<FieldQueries.Kind> kinds) {
    FieldQueries.Kind kind = FieldQueries.Kind.of(f.kind());
    return kind != null && (kinds == null || kinds.contains(kind));
  }

  private static Query orZeroTerms(Query q, ZeroTerms zeroTerms) {
    if (q != null) {
      return q;
    }
    return zeroTerms == ZeroTerms.ALL ? new MatchAllDocsQuery() : new MatchNoDocsQuery("the text has no terms");
  }

  /**
   * The query with every Boolean query that has only {@code MUST_NOT} clauses (the parsers' {@code -disk}) matching
   * all documents but those, as Elasticsearch reads them, rather than none as Lucene would; they add nothing to the
   * score ({@code NOT timeout} alone scores 0, as on a 9.3.3 node).
   */
  static Query withAllBesideNegatives(Query query) {
    if (query instanceof BoostQuery b) {
      return new BoostQuery(withAllBesideNegatives(b.getQuery()), b.getBoost());
    }
    if (!(query instanceof BooleanQuery bool)) {
      return query;
    }
    BooleanQuery.Builder rebuilt = new BooleanQuery.Builder().setMinimumNumberShouldMatch(bool.getMinimumNumberShouldMatch());
    boolean onlyNegative = !bool.clauses().isEmpty();
    for (BooleanClause c : bool.clauses()) {
      rebuilt.add(withAllBesideNegatives(c.query()), c.occur());
      onlyNegative &= c.occur() == BooleanClause.Occur.MUST_NOT;
    }
    if (onlyNegative) {
      rebuilt.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER); // scoring 0, as the node's (issue 54)
    }
    return rebuilt.build();
  }
}
