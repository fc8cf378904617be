/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.text.NumberFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.queryparser.flexible.core.QueryNodeException;
import org.apache.lucene.queryparser.flexible.standard.StandardQueryParser;
import org.apache.lucene.queryparser.flexible.standard.config.PointsConfig;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;

/**
 * The Lucene query of a scan: the {@code query} option (lucene-queryparser's standard syntax, with ranges on long and
 * int point fields such as {@code @timestamp:[1706745600000 TO *]}) as the scoring part, and the pushed-down
 * conditions as filters. Built on the driver once to check the syntax, and on each executor for its index.
 */
final class QueryBuilder {
  private QueryBuilder() {}

  /** The {@code query} option parsed. @throws IllegalArgumentException naming the option and the parser's message */
  static Query parse(String query, String defaultField, IndexFields fields) {
    StandardQueryParser parser = new StandardQueryParser(new FieldAnalyzer(fields));
    parser.setAllowLeadingWildcard(true);
    Map<String, PointsConfig> points = new HashMap<>();
    for (String name : fields.names()) {
      IndexField f = fields.get(name);
      if (f.longPoint() || f.intPoint()) {
        NumberFormat format = NumberFormat.getIntegerInstance(Locale.ROOT);
        format.setGroupingUsed(false);
        points.put(name, new PointsConfig(format, f.longPoint() ? Long.class : Integer.class));
      }
    }
    parser.setPointsConfigMap(points);
    try {
      return parser.parse(query, defaultField);
    } catch (QueryNodeException | RuntimeException e) {
      throw new IllegalArgumentException("option 'query' is not a valid Lucene query ('" + query + "'): "
          + e.getMessage(), e);
    }
  }

  /** The query for index {@code index}: the parsed {@code query} scoring, every condition filtering. */
  static Query build(Query parsed, List<Condition> conditions, String index) {
    if (conditions.isEmpty()) {
      return parsed;
    }
    BooleanQuery.Builder b = new BooleanQuery.Builder().add(parsed, Occur.MUST);
    for (Condition c : conditions) {
      b.add(c.toQuery(index), Occur.FILTER);
    }
    return b.build();
  }
}
