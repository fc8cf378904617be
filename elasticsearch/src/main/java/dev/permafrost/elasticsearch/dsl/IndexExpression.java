/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Resolves Elasticsearch's index expression ({@code logs-a}, {@code logs-*,metrics-*}, {@code _all}, {@code *},
 * {@code logs-*,-logs-b}) against the indices there are, as Elasticsearch does for a search: a name that is not there
 * is a 404 ({@code index_not_found_exception}) unless unavailable indices are ignored; a wildcard that matches nothing
 * matches nothing unless no indices are allowed not to be.
 */
final class IndexExpression {
  private IndexExpression() {}

  /**
   * The indices of {@code all} the expression names, in the order of {@code all}.
   *
   * @param ignoreUnavailable whether a name that is not there is left out rather than an error
   * @param allowNoIndices whether a wildcard (or the whole expression) may match nothing
   */
  static <T> List<T> resolve(String expression, Map<String, T> all, boolean ignoreUnavailable, boolean allowNoIndices) {
    String expr = expression == null || expression.isBlank() ? "_all" : expression.trim();
    Map<String, T> chosen = new LinkedHashMap<>();
    boolean first = true;
    for (String part : expr.split(",")) {
      String name = part.trim();
      if (name.isEmpty()) {
        continue;
      }
      boolean exclude = name.startsWith("-") && !first;
      first = false;
      if (exclude) {
        Pattern p = glob(name.substring(1));
        chosen.keySet().removeIf(n -> p.matcher(n).matches());
        continue;
      }
      if (name.equals("_all") || name.equals("*")) {
        chosen.putAll(all);
      } else if (name.contains("*")) {
        Pattern p = glob(name);
        int before = chosen.size();
        all.forEach((n, index) -> {
          if (p.matcher(n).matches()) {
            chosen.put(n, index);
          }
        });
        if (chosen.size() == before && !allowNoIndices && all.keySet().stream().noneMatch(n -> p.matcher(n).matches())) {
          throw notFound(name);
        }
      } else if (all.containsKey(name)) {
        chosen.put(name, all.get(name));
      } else if (!ignoreUnavailable) {
        throw notFound(name);
      }
    }
    if (chosen.isEmpty() && !allowNoIndices) {
      throw notFound(expr);
    }
    // in the order the indices are listed
    List<T> ordered = new ArrayList<>(chosen.size());
    all.forEach((n, index) -> {
      if (chosen.containsKey(n)) {
        ordered.add(index);
      }
    });
    return ordered;
  }

  static DslException notFound(String name) {
    return DslException.indexNotFound(name);
  }

  /** A pattern with {@code *} as any characters, as index expressions and field patterns give them. */
  static Pattern glob(String pattern) {
    StringBuilder regex = new StringBuilder();
    for (String part : pattern.split("\\*", -1)) {
      if (!regex.isEmpty()) {
        regex.append(".*");
      }
      regex.append(Pattern.quote(part));
    }
    return Pattern.compile(regex.toString());
  }
}
