/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.DocumentId;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MappedQueryParser;
import dev.permafrost.elasticsearch.dsl.QueryNode.Bound;
import dev.permafrost.elasticsearch.dsl.QueryNode.Value;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.FloatPoint;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.AutomatonQuery;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.Automata;
import org.apache.lucene.util.automaton.Automaton;
import org.apache.lucene.util.automaton.Operations;

/**
 * The term-level queries of the query DSL (term, terms, range, exists, prefix, wildcard, ids) as Elasticsearch builds
 * them for the field's mapping type: keywords and text as terms (not analyzed), numbers and dates as points. Each
 * term, set or range on a keyword, number or date field goes through {@link MappedQueryParser#withDocValuesForms} so
 * that it also runs on segments with only doc values for the field.
 * An unmapped field matches nothing; a field the parser refuses (nested, ip, boolean, ...) fails naming it.
 */
final class FieldQueries {
  /**
   * How a field's values are matched: the {@link FieldKind kinds} the query DSL queries, by how it queries them
   * ({@code keyword}; {@code text} and {@code match_only_text}; {@code long}, {@code integer}, {@code short} and
   * {@code byte}; {@code double} and {@code float}; {@code date} and {@code date_nanos}).
   */
  enum Kind {
    KEYWORD, TEXT, INTEGER, DECIMAL, DATE;

    /** How the query DSL matches a field of {@code kind}, or null if it does not query such fields. */
    static Kind of(FieldKind kind) {
      if (kind == FieldKind.KEYWORD) {
        return KEYWORD;
      } else if (kind.isText()) {
        return TEXT;
      } else if (kind.isInteger()) {
        return INTEGER;
      } else if (kind.numericType() == SortField.Type.DOUBLE || kind.numericType() == SortField.Type.FLOAT) {
        return DECIMAL;
      } else if (kind.isDate()) {
        return DATE;
      }
      return null;
    }
  }

  private final IndexMapping mapping;
  private final MappedQueryParser parser;
  private final LongSupplier now;

  FieldQueries(IndexMapping mapping, MappedQueryParser parser, LongSupplier now) {
    this.mapping = mapping;
    this.parser = parser;
    this.now = now;
  }

  IndexMapping mapping() {
    return mapping;
  }

  /** The mapped field {@code name} as {@code clause} may query it, or null if the mapping has no such field. */
  IndexMapping.Field field(String clause, String name) {
    IndexMapping.Field f = mapping.field(name);
    if (f == null) {
      return null;
    }
    String refusal = parser.refusal(name);
    if (refusal != null) {
      throw DslException.illegalArgument("[" + clause + "] query on " + refusal);
    }
    if (!f.indexed() && !f.docValues()) {
      throw DslException.illegalArgument("[" + clause + "] cannot search on field [" + name + "] since it is not"
          + " indexed nor has doc values");
    }
    kind(clause, f);
    return f;
  }

  /** How {@code f} is matched, or a refusal naming it. */
  static Kind kind(String clause, IndexMapping.Field f) {
    Kind kind = Kind.of(f.kind());
    if (kind == null) {
      throw DslException.illegalArgument("[" + clause + "] query on field [" + f.path() + "] of type ["
          + f.type() + "] is not supported by Permafrost's query DSL");
    }
    return kind;
  }

  /** {@code q} with {@code boost} (none where 1, or where it matches nothing); a negative one is refused. */
  static Query boost(Query q, float boost) {
    if (boost < 0) {
      throw DslException.illegalArgument("negative [boost] " + boost + " is not allowed");
    }
    return boost == 1f || q instanceof MatchNoDocsQuery ? q : new BoostQuery(q, boost);
  }

  /** What a query on a field the mapping does not have matches: nothing. */
  static MatchNoDocsQuery unmapped(String name) {
    return new MatchNoDocsQuery("no mapping for field [" + name + "]");
  }

  /** A {@code term} query: the value not analyzed. */
  Query term(String clause, String name, Value value, boolean caseInsensitive) {
    String text = value.text(clause, name);
    if (name.equals("_id")) {
      return new TermQuery(new Term("_id", DocumentId.encode(text)));
    }
    IndexMapping.Field f = field(clause, name);
    if (f == null) {
      return unmapped(name);
    }
    Kind kind = kind(clause, f);
    if (caseInsensitive && kind != Kind.KEYWORD && kind != Kind.TEXT) {
      throw DslException.illegalArgument("[" + clause + "] [case_insensitive] is only supported on keyword and text"
          + " fields, not on [" + name + "] of type [" + f.type() + "]");
    }
    return switch (kind) {
      case KEYWORD, TEXT -> parser.withDocValuesForms(caseInsensitive
          ? automaton(name, text, anyCase(text)) : new TermQuery(new Term(name, text)));
      case INTEGER -> {
        BigDecimal v = number(clause, f, value);
        if (v.stripTrailingZeros().scale() > 0) {
          yield new MatchNoDocsQuery("[" + v + "] has a decimal part and field [" + name + "] holds integers");
        }
        if (v.compareTo(BigDecimal.valueOf(min(f))) < 0 || v.compareTo(BigDecimal.valueOf(max(f))) > 0) {
          yield new MatchNoDocsQuery("[" + v + "] is out of the range of field [" + name + "]"); // as the node
        }
        long l = v.longValueExact();
        yield integerRange(f, l, l);
      }
      case DECIMAL -> {
        double d = number(clause, f, value).doubleValue();
        yield decimalRange(f, d, d);
      }
      case DATE -> dateRange(clause, f, new Bound(value, true), new Bound(value, true), null, null);
    };
  }

  /** An {@code ids} query's terms: any of the documents {@code ids} names. */
  Query ids(List<String> ids) {
    return new TermInSetQuery("_id", ids.stream().map(DocumentId::encode).toList());
  }

  /** A {@code terms} query: any of the values, not analyzed. */
  Query terms(String clause, String name, List<Value> values) {
    List<String> texts = new ArrayList<>();
    for (Value v : values) {
      texts.add(v.text(clause, name));
    }
    if (name.equals("_id")) {
      return new TermInSetQuery("_id", texts.stream().map(DocumentId::encode).toList());
    }
    IndexMapping.Field f = field(clause, name);
    if (f == null) {
      return unmapped(name);
    }
    switch (kind(clause, f)) {
      case KEYWORD, TEXT -> {
        return parser.withDocValuesForms(new TermInSetQuery(name, texts.stream().map(BytesRef::new).toList()));
      }
      case INTEGER -> {
        List<Long> longs = new ArrayList<>();
        for (Value v : values) {
          BigDecimal d = number(clause, f, v);
          if (d.stripTrailingZeros().scale() <= 0) {
            longs.add(inRange(clause, f, d));
          }
        }
        if (longs.isEmpty()) {
          return new MatchNoDocsQuery("no integer among the terms of [" + name + "]");
        }
        return parser.withDocValuesForms(f.kind().numericType() == SortField.Type.LONG
            ? LongPoint.newSetQuery(name, longs.stream().mapToLong(Long::longValue).toArray())
            : IntPoint.newSetQuery(name, longs.stream().mapToInt(Long::intValue).toArray()));
      }
      case DECIMAL -> {
        double[] doubles = new double[values.size()];
        for (int i = 0; i < doubles.length; i++) {
          doubles[i] = number(clause, f, values.get(i)).doubleValue();
        }
        if (f.kind().numericType() == SortField.Type.DOUBLE) {
          return parser.withDocValuesForms(DoublePoint.newSetQuery(name, doubles));
        }
        float[] floats = new float[doubles.length];
        for (int i = 0; i < floats.length; i++) {
          floats[i] = (float) doubles[i];
        }
        return parser.withDocValuesForms(FloatPoint.newSetQuery(name, floats));
      }
      default -> {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (Value v : values) {
          b.add(dateRange(clause, f, new Bound(v, true), new Bound(v, true), null, null), BooleanClause.Occur.SHOULD);
        }
        return new ConstantScoreQuery(b.build());
      }
    }
  }

  /**
   * A {@code range} query between {@code lower} and {@code upper} (either null if unbounded), dates read in
   * {@code format} (null: the field's) and {@code zone} (null: UTC).
   */
  Query range(String clause, String name, Bound lower, Bound upper, String format, ZoneId zone) {
    IndexMapping.Field f = field(clause, name);
    if (f == null) {
      return unmapped(name);
    }
    Kind kind = kind(clause, f);
    if (kind != Kind.DATE && format != null) {
      throw DslException.parsing("[" + clause + "] [format] can only be applied to date fields, not to [" + name
          + "] of type [" + f.type() + "]");
    }
    if (kind != Kind.DATE && zone != null) {
      throw DslException.parsing("[" + clause + "] [time_zone] can only be applied to date fields, not to [" + name
          + "] of type [" + f.type() + "]");
    }
    switch (kind) {
      case KEYWORD, TEXT -> {
        BytesRef lo = lower == null ? null : new BytesRef(lower.value().text(clause, name));
        BytesRef hi = upper == null ? null : new BytesRef(upper.value().text(clause, name));
        return parser.withDocValuesForms(new TermRangeQuery(name, lo, hi, lower == null || lower.inclusive(),
            upper == null || upper.inclusive()));
      }
      case INTEGER -> {
        BigInteger lo = BigInteger.valueOf(min(f));
        BigInteger hi = BigInteger.valueOf(max(f));
        if (lower != null) {
          BigDecimal v = number(clause, f, lower.value());
          lo = lower.inclusive() ? v.setScale(0, RoundingMode.CEILING).toBigInteger()
              : v.setScale(0, RoundingMode.FLOOR).toBigInteger().add(BigInteger.ONE);
        }
        if (upper != null) {
          BigDecimal v = number(clause, f, upper.value());
          hi = upper.inclusive() ? v.setScale(0, RoundingMode.FLOOR).toBigInteger()
              : v.setScale(0, RoundingMode.CEILING).toBigInteger().subtract(BigInteger.ONE);
        }
        lo = lo.max(BigInteger.valueOf(min(f)));
        hi = hi.min(BigInteger.valueOf(max(f)));
        if (lo.compareTo(hi) > 0) {
          return new MatchNoDocsQuery("empty range on [" + name + "]");
        }
        return integerRange(f, lo.longValueExact(), hi.longValueExact());
      }
      case DECIMAL -> {
        boolean isFloat = f.kind().numericType() == SortField.Type.FLOAT;
        double lo = Double.NEGATIVE_INFINITY;
        double hi = Double.POSITIVE_INFINITY;
        if (lower != null) {
          double v = number(clause, f, lower.value()).doubleValue();
          // Lucene's nextUp/nextDown put -0.0 below 0.0, as the engines do: {"lt": 0} holds -0.0
          lo = lower.inclusive() ? v : isFloat ? FloatPoint.nextUp((float) v) : DoublePoint.nextUp(v);
        }
        if (upper != null) {
          double v = number(clause, f, upper.value()).doubleValue();
          hi = upper.inclusive() ? v : isFloat ? FloatPoint.nextDown((float) v) : DoublePoint.nextDown(v);
        }
        if (lo > hi) {
          return new MatchNoDocsQuery("empty range on [" + name + "]");
        }
        return decimalRange(f, lo, hi);
      }
      default -> {
        return dateRange(clause, f, lower, upper, format, zone);
      }
    }
  }

  /** An {@code exists} query: the documents with a value in the field, or in any field under the object it names. */
  Query exists(String clause, String name) {
    IndexMapping.Field f = mapping.field(name);
    if (f == null) {
      List<String> under = mapping.fields().keySet().stream().filter(p -> p.startsWith(name + ".")).toList();
      if (under.isEmpty()) {
        return unmapped(name);
      }
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      for (String p : under) {
        b.add(exists(clause, p), BooleanClause.Occur.SHOULD);
      }
      return new ConstantScoreQuery(b.build());
    }
    if (f.nestedPath() != null) {
      throw DslException.illegalArgument("[" + clause + "] query on " + parser.refusal(name));
    }
    if (f.docValues() || f.kind().isText()) {
      return new ConstantScoreQuery(new FieldExistsQuery(name)); // doc values, or the norms of a text field
    }
    if (f.kind() == FieldKind.KEYWORD) {
      return new ConstantScoreQuery(new TermRangeQuery(name, null, null, true, true));
    }
    SortField.Type points = f.kind().numericType();
    if (points == null) {
      throw DslException.illegalArgument("[" + clause + "] query on field [" + name + "] of type ["
          + f.type() + "] without doc values is not supported by Permafrost's query DSL");
    }
    return switch (points) {
      case LONG -> LongPoint.newRangeQuery(name, Long.MIN_VALUE, Long.MAX_VALUE);
      case INT -> IntPoint.newRangeQuery(name, Integer.MIN_VALUE, Integer.MAX_VALUE);
      case DOUBLE -> DoublePoint.newRangeQuery(name, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
      case FLOAT -> FloatPoint.newRangeQuery(name, Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY);
      default -> throw new AssertionError(points);
    };
  }

  /** A {@code prefix} query on a keyword or text field's indexed terms. */
  Query prefix(String clause, String name, String value, boolean caseInsensitive) {
    IndexMapping.Field f = termsField(clause, name);
    if (f == null) {
      return unmapped(name);
    }
    Query q = caseInsensitive
        ? automaton(name, value, Operations.concatenate(anyCase(value),
            Automata.makeAnyString()))
        : new PrefixQuery(new Term(name, value));
    return parser.withDocValuesForms(q);
  }

  /** A {@code wildcard} query ({@code *} any characters, {@code ?} one, {@code \} escapes) on a keyword or text field. */
  Query wildcard(String clause, String name, String pattern, boolean caseInsensitive) {
    IndexMapping.Field f = termsField(clause, name);
    if (f == null) {
      return unmapped(name);
    }
    if (!caseInsensitive) {
      return parser.withDocValuesForms(new WildcardQuery(new Term(name, pattern)));
    }
    List<Automaton> parts = new ArrayList<>();
    for (int i = 0; i < pattern.length(); ) {
      int c = pattern.codePointAt(i);
      i += Character.charCount(c);
      if (c == '*') {
        parts.add(Automata.makeAnyString());
      } else if (c == '?') {
        parts.add(Automata.makeAnyChar());
      } else if (c == '\\' && i < pattern.length()) {
        int next = pattern.codePointAt(i);
        i += Character.charCount(next);
        parts.add(anyCase(next));
      } else {
        parts.add(anyCase(c));
      }
    }
    return parser.withDocValuesForms(automaton(name, pattern,
        parts.isEmpty() ? Automata.makeEmptyString() : Operations.concatenate(parts)));
  }

  private IndexMapping.Field termsField(String clause, String name) {
    IndexMapping.Field f = field(clause, name);
    if (f != null && kind(clause, f) != Kind.KEYWORD && kind(clause, f) != Kind.TEXT) {
      throw DslException.illegalArgument("[" + clause + "] query on field [" + name + "] of type [" + f.type()
          + "] is not supported: it works on keyword and text fields");
    }
    return f;
  }

  /** The code point in any of its cases (lower, upper, title), with the automata Lucene 10.3 has. */
  private static Automaton anyCase(int c) {
    int[] forms = IntStream.of(c, Character.toLowerCase(c), Character.toUpperCase(c), Character.toTitleCase(c))
        .distinct().sorted().toArray();
    return Automata.makeCharSet(forms);
  }

  /** The text with each code point in any of its cases. */
  private static Automaton anyCase(String text) {
    List<Automaton> parts = new ArrayList<>();
    text.codePoints().forEach(c -> parts.add(anyCase(c)));
    return parts.isEmpty() ? Automata.makeEmptyString() : Operations.concatenate(parts);
  }

  private static Query automaton(String field, String text, Automaton a) {
    return new AutomatonQuery(new Term(field, text),
        Operations.determinize(a, Operations.DEFAULT_DETERMINIZE_WORK_LIMIT));
  }

  /**
   * A date range, bounds read in {@code format} (null: the field's) and {@code zone} (null: UTC) with date math, and
   * rounded by the parser's one rule of date ranges ({@link MappedQueryParser#dateRange}).
   */
  private Query dateRange(String clause, IndexMapping.Field f, Bound lower, Bound upper, String format, ZoneId zone) {
    String fmt = format != null ? format : f.format() != null ? f.format() : DateFormats.DEFAULT_FORMAT;
    return parser.dateRange(f, lower == null ? null : lower.value().text(clause, f.path()),
        lower == null || lower.inclusive(), upper == null ? null : upper.value().text(clause, f.path()),
        upper == null || upper.inclusive(), (field, text, roundUp) -> DateFormats.parse(text, fmt, zone, roundUp, now));
  }

  private Query integerRange(IndexMapping.Field f, long lo, long hi) {
    return parser.withDocValuesForms(f.kind().numericType() == SortField.Type.LONG
        ? LongPoint.newRangeQuery(f.path(), lo, hi)
        : IntPoint.newRangeQuery(f.path(), (int) lo, (int) hi));
  }

  private Query decimalRange(IndexMapping.Field f, double lo, double hi) {
    return parser.withDocValuesForms(f.kind().numericType() == SortField.Type.DOUBLE
        ? DoublePoint.newRangeQuery(f.path(), lo, hi)
        : FloatPoint.newRangeQuery(f.path(), (float) lo, (float) hi));
  }

  private static long min(IndexMapping.Field f) {
    return f.kind().minValue();
  }

  private static long max(IndexMapping.Field f) {
    return f.kind().maxValue();
  }

  private static long inRange(String clause, IndexMapping.Field f, BigDecimal v) {
    if (v.compareTo(BigDecimal.valueOf(min(f))) < 0 || v.compareTo(BigDecimal.valueOf(max(f))) > 0) {
      String type = f.kind() == FieldKind.INTEGER ? "an integer" : "a " + f.type();
      throw DslException.shard("query_shard_exception", "failed to create query: Value [" + v.toPlainString()
          + "] is out of range for " + type + " ([" + clause + "] on field [" + f.path() + "])");
    }
    return v.longValueExact();
  }

  /** A JSON number, or a string of one. */
  private static BigDecimal number(String clause, IndexMapping.Field f, Value value) {
    if (value.isNumber()) {
      return value.number();
    }
    if (value.type() == Value.Type.STRING) {
      try {
        return new BigDecimal(value.asText().trim());
      } catch (NumberFormatException e) {
        // falls through
      }
    }
    throw DslException.shard("query_shard_exception", "failed to create query: For input string: \""
        + value.asText() + "\" ([" + clause + "] on field [" + f.path() + "] of type [" + f.type()
        + "], which holds numbers)");
  }

  /**
   * How many of {@code optional} clauses must match for a {@code minimum_should_match} of {@code spec}: an integer,
   * a negative integer (all but that many), a percentage of them rounded down, or a negative percentage (all but
   * that share, rounded down); never below 0.
   */
  static int minimumShouldMatch(String clause, String spec, int optional) {
    String s = spec.trim();
    int result;
    try {
      if (s.endsWith("%")) {
        int percent = Integer.parseInt(s.substring(0, s.length() - 1).trim());
        int share = (int) ((long) optional * Math.abs(percent) / 100);
        result = percent < 0 ? optional - share : share;
      } else {
        int n = Integer.parseInt(s);
        result = n < 0 ? optional + n : n;
      }
    } catch (NumberFormatException e) {
      throw DslException.parsing("[" + clause + "] [minimum_should_match] [" + spec + "] is not supported: give an"
          + " integer or a percentage (conditional forms like 3<90% are not supported)");
    }
    return Math.max(0, result);
  }
}
