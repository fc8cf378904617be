/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Elasticsearch's {@code query_string} does not split on whitespace: terms that follow one another with no operator,
 * modifier or field between them ({@code error warn}) are one text, analyzed by their field's analyzer as a whole. On
 * a text field that is the same as each term alone (the analyzer splits them again); on a keyword field it is one
 * value, {@code "error warn"}, which a 9.3.3 node matches as such (so {@code level:(error warn)} finds nothing where
 * {@code level:(error OR warn)} finds both). Lucene's flexible parser splits every term, so such a run on a keyword
 * field is given to it quoted, as the one value it is.
 *
 * <p>On a number field the node matches nothing for such a run ({@code status:(200 404)}, lenient or not): it is
 * given to the parser as a term of {@link #NO_VALUE}, a field no mapping has, which the parser reads as nothing.
 *
 * <p>A run is as Lucene's classic parser (which Elasticsearch's extends) reads one without splitting: two or more
 * plain terms in a row, the first not after a modifier ({@code + - ! NOT}), a conjunction ({@code AND OR && ||}) or a
 * colon, each later one not followed by a colon, {@code *}, {@code ~}, {@code ^}, {@code AND} or {@code OR}. A term
 * with a wildcard, a quoted phrase, a range or a regular expression is not a plain term.
 */
final class TermRuns {
  /** The pseudo-field of a run that matches nothing (numbers in a row): {@code _no_value_:run}. */
  static final String NO_VALUE = "_no_value_";

  private TermRuns() {}

  /** What a run of terms on a field is. */
  enum Reading {
    /** Each term alone, as the field's analyzer splits the run again (text) or the field is not known. */
    SPLIT,
    /** One value, the terms joined by a space (a keyword). */
    ONE_VALUE,
    /** Nothing (a number: the run is no number). */
    NOTHING
  }

  private enum Kind { TERM, OTHER_TERM, COLON, LPAREN, RPAREN, MODIFIER, AND, OR, STAR, FUZZY, CARAT, OTHER }

  private record Token(Kind kind, int start, int end, String text) {}

  /** What may not follow a later term of a run (Lucene's classic grammar: it binds that term otherwise). */
  private static final Set<Kind> NOT_AFTER_RUN = Set.of(Kind.COLON, Kind.STAR, Kind.FUZZY, Kind.CARAT, Kind.AND,
      Kind.OR);
  /** What may not come before the first term of a run (it takes that term as its own clause). */
  private static final Set<Kind> NOT_BEFORE_RUN = Set.of(Kind.COLON, Kind.MODIFIER, Kind.AND, Kind.OR);
  private static final String SPECIAL = " \t\n\r\u3000+-!():^[]\"{}~*?\\/";

  /**
   * {@code query} with each run of terms read as {@code reading} says of its field: quoted as one value, or as a term
   * of {@link #NO_VALUE}; the field of a term is its group's ({@code field:(...)}) or {@code defaultField} (null:
   * none).
   */
  static String joined(String query, String defaultField, Function<String, Reading> reading) {
    List<Token> tokens = tokens(query);
    StringBuilder out = new StringBuilder(query.length() + 8);
    Deque<String> fields = new ArrayDeque<>();
    fields.push(defaultField == null ? "" : defaultField);
    int copied = 0;
    for (int i = 0; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      if (t.kind() == Kind.LPAREN) {
        boolean fielded = i >= 2 && tokens.get(i - 1).kind() == Kind.COLON && tokens.get(i - 2).kind() == Kind.TERM;
        fields.push(fielded ? unescaped(tokens.get(i - 2).text()) : fields.peek());
        continue;
      }
      if (t.kind() == Kind.RPAREN) {
        if (fields.size() > 1) {
          fields.pop();
        }
        continue;
      }
      if (t.kind() != Kind.TERM || i > 0 && NOT_BEFORE_RUN.contains(tokens.get(i - 1).kind())) {
        continue;
      }
      int last = i; // the run's last term
      while (last + 1 < tokens.size() && tokens.get(last + 1).kind() == Kind.TERM
          && (last + 2 >= tokens.size() || !NOT_AFTER_RUN.contains(tokens.get(last + 2).kind()))) {
        last++;
      }
      if (last == i) {
        continue;
      }
      String field = fields.peek();
      Reading read = field.isEmpty() ? Reading.SPLIT : reading.apply(field);
      if (read != Reading.SPLIT) {
        StringBuilder value = new StringBuilder();
        for (int j = i; j <= last; j++) {
          value.append(j > i ? " " : "").append(unescaped(tokens.get(j).text()));
        }
        out.append(query, copied, t.start()).append(read == Reading.NOTHING ? NO_VALUE + ":" : "").append('"')
            .append(value.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        copied = tokens.get(last).end();
      }
      i = last;
    }
    return out.append(query, copied, query.length()).toString();
  }

  private static String unescaped(String term) {
    StringBuilder b = new StringBuilder(term.length());
    for (int i = 0; i < term.length(); i++) {
      char c = term.charAt(i);
      if (c == '\\' && i + 1 < term.length()) {
        c = term.charAt(++i);
      }
      b.append(c);
    }
    return b.toString();
  }

  /** The query's tokens, as far as runs need them told apart. */
  private static List<Token> tokens(String q) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < q.length()) {
      char c = q.charAt(i);
      int start = i;
      if (Character.isWhitespace(c) || c == '\u3000') {
        i++;
        continue;
      }
      Kind kind;
      boolean wildStart = c == '*' && i + 1 < q.length() && SPECIAL.indexOf(q.charAt(i + 1)) < 0;
      switch (wildStart ? 'w' : c) { // a term starting with * is a wildcard term
        case '(' -> { kind = Kind.LPAREN; i++; }
        case ')' -> { kind = Kind.RPAREN; i++; }
        case ':' -> { kind = Kind.COLON; i++; }
        case '+', '-', '!' -> { kind = Kind.MODIFIER; i++; }
        case '*' -> { kind = Kind.STAR; i++; }
        case '^', '~' -> {
          kind = c == '^' ? Kind.CARAT : Kind.FUZZY;
          i++;
          while (i < q.length() && (Character.isDigit(q.charAt(i)) || q.charAt(i) == '.')) {
            i++;
          }
        }
        case '"' -> { kind = Kind.OTHER_TERM; i = closing(q, i + 1, '"'); }
        case '/' -> { kind = Kind.OTHER_TERM; i = closing(q, i + 1, '/'); }
        case '[', '{' -> {
          kind = Kind.OTHER_TERM;
          while (i < q.length() && q.charAt(i) != ']' && q.charAt(i) != '}') {
            i += q.charAt(i) == '\\' ? 2 : 1;
          }
          i = Math.min(q.length(), i + 1);
        }
        default -> {
          boolean wild = false;
          while (i < q.length()) {
            char d = q.charAt(i);
            if (d == '\\') {
              i = Math.min(q.length(), i + 2);
            } else if (d == '*' || d == '?') {
              wild = true;
              i++;
            } else if (SPECIAL.indexOf(d) < 0 || (i > start && (d == '-' || d == '+'))) {
              i++;
            } else {
              break;
            }
          }
          if (i == start) { // a lone special character the parser will judge
            i++;
            kind = Kind.OTHER;
          } else {
            String text = q.substring(start, i);
            kind = switch (text) {
              case "AND", "&&" -> Kind.AND;
              case "OR", "||" -> Kind.OR;
              case "NOT" -> Kind.MODIFIER;
              default -> wild ? Kind.OTHER_TERM : Kind.TERM;
            };
          }
        }
      }
      tokens.add(new Token(kind, start, i, q.substring(start, Math.min(i, q.length()))));
    }
    return tokens;
  }

  /** Where a quoted text or regular expression starting at {@code from} ends: past its closing character. */
  private static int closing(String q, int from, char close) {
    int i = from;
    while (i < q.length() && q.charAt(i) != close) {
      i += q.charAt(i) == '\\' ? 2 : 1;
    }
    return Math.min(q.length(), i + 1);
  }
}
