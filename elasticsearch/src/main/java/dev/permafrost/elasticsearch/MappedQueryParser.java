/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.text.NumberFormat;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.core.SimpleAnalyzer;
import org.apache.lucene.analysis.core.StopAnalyzer;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.FloatPoint;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.flexible.core.QueryNodeException;
import org.apache.lucene.queryparser.flexible.standard.StandardQueryParser;
import org.apache.lucene.queryparser.flexible.standard.config.PointsConfig;
import org.apache.lucene.queryparser.flexible.standard.config.StandardQueryConfigHandler;
import org.apache.lucene.search.AutomatonQuery;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PointInSetQuery;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.SortedSetSelector;
import org.apache.lucene.search.SortedSetSortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.BytesRefIterator;
import org.apache.lucene.util.NumericUtils;

/**
 * Parses Lucene query syntax ({@code status:404 AND message:"login failed" AND @timestamp:[2024-01-10T00:00:00Z TO
 * 2024-01-12T00:00:00Z}}) over fields as an index's mapping defines them, as the engines' {@code query_string}
 * query does for these forms: a {@code keyword} value is one term, a {@code text} field is analyzed with the
 * built-in analyzer its mapping names, numbers and dates are matched as points, and Elasticsearch's one-sided ranges
 * {@code status:>=500}, {@code bytes:<1000}, {@code @timestamp:>2024-01-01} are ranges open on the other side. Every
 * query names its fields; the default operator is OR.
 *
 * <p>A date bound is read by the {@link DateBounds} the parser is given (the Elasticsearch API's: the field's format
 * and date math) and rounded as Elasticsearch rounds a range's bounds ({@link #dateRange}): a date missing its smaller
 * units is its first millisecond as an inclusive lower or exclusive upper bound, its last as an inclusive upper or
 * exclusive lower one, so {@code [2024-03-22 TO 2024-03-24]} holds the whole of the 24th and <code>&#123;2024-07-05 TO *]</code>
 * starts on the 6th; a date alone ({@code @timestamp:2024-03-22}) is its whole span.
 *
 * <p>Not the engines' whole language: no analyzers beyond Lucene's built-in ones, no queries inside {@code nested} objects (their documents are
 * hidden, as a top-level search hides them), no {@code ip}, {@code boolean}, {@code scaled_float} or
 * {@code half_float} fields. A query on any of these fails with an error naming the field rather than matching
 * something else. Thread-safe.
 */
public final class MappedQueryParser {
  /** Reads a date bound as epoch milliseconds, for a field: its format, date math, the time zone. */
  @FunctionalInterface
  public interface DateBounds {
    /**
     * The epoch milliseconds {@code text} names on {@code field}, missing units and date-math rounding at their last
     * millisecond if {@code roundUp}, else at their first.
     *
     * @throws IllegalArgumentException if the text is not a date of the field
     */
    long epochMillis(IndexMapping.Field field, String text, boolean roundUp);
  }

  /**
   * ISO-8601 instants and date-times (UTC unless they name an offset), dates, and epoch milliseconds: the parser's
   * bounds unless it is given others.
   */
  public static final DateBounds ISO_DATES = MappedQueryParser::isoDate;

  private final IndexMapping mapping;
  private final DateBounds dates;
  private final Analyzer analyzer;
  /** Why a field cannot be queried as the engine would, by field. */
  private final Map<String, String> refusals = new HashMap<>();
  /** The numeric type of each field matched as points ({@link FieldKind#numericType}). */
  private final Map<String, SortField.Type> pointTypes = new HashMap<>();

  /**
   * Kinds of values this parser does not read, refused by name; others it has no rule for (geo points, vectors,
   * unknown types) are left to match what their terms match.
   */
  private static final Set<FieldKind> REFUSED = EnumSet.of(FieldKind.IP, FieldKind.BOOLEAN, FieldKind.UNSIGNED_LONG,
      FieldKind.HALF_FLOAT, FieldKind.SCALED_FLOAT);

  /** The pseudo-field of {@code _exists_:field}, the documents with a value in the field. */
  private static final String EXISTS = "_exists_";
  /** The field of a term that names none, where every term must name its field. */
  private static final String UNNAMED = "_all_fields_must_be_named_";

  /** A parser over the fields of {@code mapping}, dates read as {@link #ISO_DATES}. */
  public MappedQueryParser(IndexMapping mapping) {
    this(mapping, ISO_DATES);
  }

  /** A parser over the fields of {@code mapping}, date bounds read by {@code dates}. */
  public MappedQueryParser(IndexMapping mapping, DateBounds dates) {
    this.mapping = mapping;
    this.dates = dates;
    Map<String, Analyzer> analyzers = new HashMap<>();
    for (IndexMapping.Field f : mapping.fields().values()) {
      if (f.nestedPath() != null) {
        refusals.put(f.path(), "field '" + f.path() + "' is inside nested object '" + f.nestedPath() + "': queries inside"
            + " nested objects are not supported (their documents are hidden)");
        continue;
      }
      FieldKind kind = f.kind();
      if (kind.isKeywordFamily()) {
        analyzers.put(f.path(), new KeywordAnalyzer());
      } else if (kind.isText()) {
        Analyzer a = analyzer(f.searchAnalyzer());
        if (a != null) {
          analyzers.put(f.path(), a);
        } else {
          refusals.put(f.path(), "field '" + f.path() + "' is analyzed with '" + f.searchAnalyzer() + "', which is not"
              + " one of the built-in analyzers this parser knows (standard, simple, whitespace, keyword, stop)");
        }
      } else if (kind.numericType() != null) {
        pointTypes.put(f.path(), kind.numericType());
        if (kind.isDate()) { // parsed as one term, then read as a range by the date rule (dateRange)
          analyzers.put(f.path(), new KeywordAnalyzer());
        }
      } else if (REFUSED.contains(kind)) {
        refusals.put(f.path(), "field '" + f.path() + "' is of type '" + f.type() + "', which this parser does not"
            + " query");
      }
    }
    analyzers.put(EXISTS, new KeywordAnalyzer()); // _exists_:field names a field
    analyzers.put(TermRuns.NO_VALUE, new KeywordAnalyzer()); // a run of numbers, one term that matches nothing
    this.analyzer = new PerFieldAnalyzerWrapper(new StandardAnalyzer(CharArraySet.EMPTY_SET), analyzers);
  }

  /**
   * The query {@code queryString} means over the mapping.
   *
   * @throws IllegalArgumentException if it does not parse, or names a field this parser cannot query as the engine
   *     would (naming the field and why)
   */
  public Query parse(String queryString) {
    return parse(queryString, null, false);
  }

  /**
   * The query {@code queryString} means over the mapping, a term without a field being on {@code defaultField}, and
   * terms without an operator between them all required if {@code defaultAnd} (else any of them).
   *
   * @param defaultField the field of terms that name none, or null if every term must name its field
   * @throws IllegalArgumentException if it does not parse, or names a field this parser cannot query as the engine
   *     would (naming the field and why)
   */
  public Query parse(String queryString, String defaultField, boolean defaultAnd) {
    return parse(queryString, defaultField, defaultAnd, false);
  }

  /**
   * As {@link #parse(String, String, boolean)}; if {@code lenient}, a date term or range whose value is not a date of
   * its field matches nothing rather than failing the query, as the engines' {@code query_string} reads it where it
   * names no default field ({@code lenient} is then true by default).
   */
  public Query parse(String queryString, String defaultField, boolean defaultAnd, boolean lenient) {
    StandardQueryParser parser = new StandardQueryParser(analyzer); // not thread-safe: one per query
    parser.setPointsConfigMap(pointsConfig());
    parser.setDefaultOperator(defaultAnd ? StandardQueryConfigHandler.Operator.AND : StandardQueryConfigHandler.Operator.OR);
    parser.setAllowLeadingWildcard(true); // as the engines' query_string by default (allow_leading_wildcard)
    Query query;
    try {
      query = parser.parse(TermRuns.joined(oneSidedRanges(escapeLeadingAts(queryString)), defaultField,
          this::runReading), defaultField == null ? UNNAMED : defaultField);
    } catch (QueryNodeException e) {
      throw new IllegalArgumentException("cannot parse query '" + queryString + "': " + e.getMessage(), e);
    }
    Set<String> fields = new TreeSet<>();
    query.visit(new QueryVisitor() {
      @Override
      public boolean acceptField(String field) {
        fields.add(field);
        return true;
      }

      @Override
      public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
        return this;
      }
    });
    for (String name : fields) {
      if (name.equals(EXISTS) || name.equals(TermRuns.NO_VALUE)) {
        continue;
      }
      if (name.equals(UNNAMED)) {
        throw new IllegalArgumentException("query '" + queryString + "' has a term without a field: name the field of"
            + " every term (field:value)");
      }
      String refusal = refusals.get(name);
      if (refusal != null) {
        throw new IllegalArgumentException(refusal + " (in query '" + queryString + "')");
      }
    }
    return withDocValuesForms(rewriteLeaves(query, leaf -> lenient ? asDateRangeOrNothing(leaf) : asDateRange(leaf)));
  }

  /**
   * A date field's term ({@code @timestamp:2024-03-22}: its whole span) or range of terms as the date range it means;
   * other queries on a date field refused, the rest as they are.
   */
  private Query asDateRangeOrNothing(Query query) {
    try {
      return asDateRange(query);
    } catch (RuntimeException e) {
      if (query instanceof TermRangeQuery || query instanceof TermQuery) {
        return new MatchNoDocsQuery("not a date: " + query); // lenient, as the engines' query_string
      }
      throw e;
    }
  }

  private Query asDateRange(Query query) {
    if (query instanceof TermRangeQuery r && isDate(r.getField())) {
      return dateRange(mapping.field(r.getField()), text(r.getLowerTerm()), r.includesLower(), text(r.getUpperTerm()),
          r.includesUpper(), dates);
    } else if (query instanceof TermQuery t && isDate(t.getTerm().field())) {
      String value = t.getTerm().text();
      return dateRange(mapping.field(t.getTerm().field()), value, true, value, true, dates);
    }
    Set<String> fields = new TreeSet<>();
    query.visit(new QueryVisitor() {
      @Override
      public boolean acceptField(String field) {
        fields.add(field);
        return false;
      }
    });
    for (String field : fields) {
      if (isDate(field)) {
        throw new IllegalArgumentException("field '" + field + "' is a date: query it with a date or a range of dates,"
            + " not " + query.getClass().getSimpleName() + " (" + query + ")");
      }
    }
    return query;
  }

  private boolean isDate(String field) {
    IndexMapping.Field f = mapping.field(field);
    return f != null && f.isDate() && f.nestedPath() == null;
  }

  private static String text(BytesRef term) {
    return term == null ? null : term.utf8ToString();
  }

  /**
   * The documents whose date in {@code field} lies between two bounds (null: unbounded), each read by {@code dates} as
   * Elasticsearch rounds a range's bounds: an inclusive lower ({@code gte}) and an exclusive upper ({@code lt}) bound
   * at the first millisecond of what they name, an exclusive lower ({@code gt}) and an inclusive upper ({@code lte})
   * at its last, so that {@code gte 2024-03-22} starts with the day and {@code lte 2024-03-24} ends with the 24th;
   * an exclusive bound then leaves that millisecond out. A {@code date_nanos} field's bounds cover each millisecond's
   * nanoseconds. The one rule of date ranges: the query DSL's {@code range}, {@code term} and {@code query_string}
   * share it.
   *
   * @throws IllegalArgumentException if a bound is not a date of the field
   */
  public Query dateRange(IndexMapping.Field field, String lower, boolean includeLower, String upper, boolean includeUpper,
      DateBounds dates) {
    assert field.isDate() : field;
    long lo = Long.MIN_VALUE;
    long hi = Long.MAX_VALUE;
    if (lower != null) {
      lo = includeLower ? dates.epochMillis(field, lower, false) : saturatedAdd(dates.epochMillis(field, lower, true), 1);
    }
    if (upper != null) {
      hi = includeUpper ? dates.epochMillis(field, upper, true) : saturatedAdd(dates.epochMillis(field, upper, false), -1);
    }
    if (field.kind() == FieldKind.DATE_NANOS) {
      lo = lower == null ? Long.MIN_VALUE : saturatedMultiply(lo, 1_000_000L);
      hi = upper == null ? Long.MAX_VALUE : saturatedAdd(saturatedMultiply(hi, 1_000_000L), 999_999);
    }
    if (lo > hi) {
      return new MatchNoDocsQuery("empty range on [" + field.path() + "]");
    }
    return withDocValuesForms(LongPoint.newRangeQuery(field.path(), lo, hi));
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
  }

  private static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return lo;
    }
    return hi < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
  }

  /** The query with each leaf replaced by {@code leaf}'s answer for it, inside boolean, boost and constant-score queries. */
  private static Query rewriteLeaves(Query query, UnaryOperator<Query> leaf) {
    if (query instanceof BooleanQuery b) {
      BooleanQuery.Builder rebuilt = new BooleanQuery.Builder().setMinimumNumberShouldMatch(b.getMinimumNumberShouldMatch());
      for (BooleanClause c : b.clauses()) {
        rebuilt.add(rewriteLeaves(c.query(), leaf), c.occur());
      }
      return rebuilt.build();
    } else if (query instanceof BoostQuery b) {
      return new BoostQuery(rewriteLeaves(b.getQuery(), leaf), b.getBoost());
    } else if (query instanceof ConstantScoreQuery c) {
      return new ConstantScoreQuery(rewriteLeaves(c.getQuery(), leaf));
    }
    return leaf.apply(query);
  }

  /**
   * Why {@code field} cannot be queried as the engine would (inside a {@code nested} object, of a type or with an
   * analyzer this parser does not handle), or null if it can or is not mapped.
   */
  public String refusal(String field) {
    return refusals.get(field);
  }

  /** The analyzer of queries on each field: its search analyzer for text, one term for keywords. */
  public Analyzer analyzer() {
    return analyzer;
  }

  /**
   * The query with each term, set of terms or points and range on a keyword, number or date field able to run from
   * the field's doc values where a segment has no postings or points for it, and {@code _exists_:field} as the
   * documents with a value in the field (from its doc values, norms or points). Other queries are left as they are,
   * inside boolean, boost and constant-score queries alike.
   */
  public Query withDocValuesForms(Query query) {
    return rewriteLeaves(query, this::withDocValuesForm);
  }

  private Query withDocValuesForm(Query query) {
    if (query instanceof TermQuery t && t.getTerm().field().equals(EXISTS)) {
      return exists(t.getTerm().text());
    } else if (query instanceof TermQuery t && t.getTerm().field().equals(TermRuns.NO_VALUE)) {
      return new MatchNoDocsQuery("numbers in a row are no number: " + t.getTerm().text());
    } else if (query instanceof TermQuery t && isKeyword(t.getTerm().field())) {
      return new IndexedOrDocValuesQuery(t.getTerm().field(), t,
          SortedSetDocValuesField.newSlowExactQuery(t.getTerm().field(), t.getTerm().bytes()));
    } else if (query instanceof TermRangeQuery r && isKeyword(r.getField())) {
      return new IndexedOrDocValuesQuery(r.getField(), r, SortedSetDocValuesField.newSlowRangeQuery(r.getField(),
          r.getLowerTerm(), r.getUpperTerm(), r.includesLower(), r.includesUpper()));
    } else if (query instanceof TermInSetQuery t && isKeyword(t.getField())) {
      List<BytesRef> terms = new ArrayList<>();
      try {
        BytesRefIterator it = t.getBytesRefIterator();
        for (BytesRef term = it.next(); term != null; term = it.next()) {
          terms.add(BytesRef.deepCopyOf(term));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e); // an in-memory iterator: does not happen
      }
      return new IndexedOrDocValuesQuery(t.getField(), t, SortedSetDocValuesField.newSlowSetQuery(t.getField(), terms));
    } else if (query instanceof AutomatonQuery a && isKeyword(a.getField())) { // a prefix, wildcard or regexp query
      return new IndexedOrDocValuesQuery(a.getField(), a, new AutomatonQuery(new Term(a.getField(), ""),
          a.getAutomaton(), a.isAutomatonBinary(), MultiTermQuery.DOC_VALUES_REWRITE)); // the terms of the doc values
    } else if (query instanceof MultiTermQuery m && isKeyword(m.getField())) {
      return new IndexedOrDocValuesQuery(m.getField(), m, null); // a fuzzy query
    } else if (query instanceof PointRangeQuery p && pointTypes.containsKey(p.getField())) {
      return new IndexedOrDocValuesQuery(p.getField(), p, docValuesRange(p, pointTypes.get(p.getField())));
    } else if (query instanceof PointInSetQuery p && pointTypes.containsKey(p.getField())) {
      SortField.Type type = pointTypes.get(p.getField());
      long[] values = p.getPackedPoints().stream().mapToLong(point -> docValue(point, type)).toArray();
      return new IndexedOrDocValuesQuery(p.getField(), p, SortedNumericDocValuesField.newSlowSetQuery(p.getField(), values));
    }
    return query;
  }

  /**
   * {@code _exists_:name}: the documents with a value in the field, or in any field under the object it names (as the
   * {@code exists} query); an unmapped name has no values and matches nothing, as in the engine.
   */
  private Query exists(String name) {
    if (mapping.field(name) != null) {
      return new FieldExistsQuery(name);
    }
    List<String> under = mapping.fields().keySet().stream().filter(p -> p.startsWith(name + "."))
        .filter(p -> mapping.field(p).nestedPath() == null).sorted().toList(); // a nested object's values are hidden
    if (under.isEmpty()) {
      return new FieldExistsQuery(name);
    }
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    for (String field : under) {
      any.add(new FieldExistsQuery(field), BooleanClause.Occur.SHOULD);
    }
    return new ConstantScoreQuery(any.build());
  }

  /**
   * What terms run together on {@code field} are ({@link TermRuns}): one value on a keyword, nothing on a number (as
   * on the node), each term alone elsewhere.
   */
  private TermRuns.Reading runReading(String field) {
    IndexMapping.Field f = mapping.field(field);
    if (f == null || f.nestedPath() != null) {
      return TermRuns.Reading.SPLIT;
    } else if (f.kind().isKeywordFamily()) {
      return TermRuns.Reading.ONE_VALUE;
    }
    return pointTypes.containsKey(field) && !f.isDate() ? TermRuns.Reading.NOTHING : TermRuns.Reading.SPLIT;
  }

  private boolean isKeyword(String field) {
    IndexMapping.Field f = mapping.field(field);
    return f != null && f.kind().hasTermOrdinals();
  }

  /**
   * A points range as the same range over the field's sorted-numeric doc values, where Elasticsearch keeps integers
   * and dates as longs, doubles as sortable longs and floats as sortable ints.
   */
  private static Query docValuesRange(PointRangeQuery p, SortField.Type type) {
    return SortedNumericDocValuesField.newSlowRangeQuery(p.getField(), docValue(p.getLowerPoint(), type),
        docValue(p.getUpperPoint(), type));
  }

  /** An encoded point as the long the field's sorted-numeric doc values keep for it. */
  private static long docValue(byte[] point, SortField.Type type) {
    return switch (type) {
      case LONG -> LongPoint.decodeDimension(point, 0);
      case INT -> IntPoint.decodeDimension(point, 0);
      case DOUBLE -> NumericUtils.doubleToSortableLong(DoublePoint.decodeDimension(point, 0));
      case FLOAT -> NumericUtils.floatToSortableInt(FloatPoint.decodeDimension(point, 0));
      default -> throw new AssertionError(type);
    };
  }

  /**
   * Lucene's syntax does not let a term start with {@code @}, which the engines' field names often do
   * ({@code @timestamp}): such an {@code @} outside quotes is escaped.
   */
  static String escapeLeadingAts(String query) {
    StringBuilder b = new StringBuilder(query.length() + 4);
    boolean quoted = false;
    for (int i = 0; i < query.length(); i++) {
      char c = query.charAt(i);
      if (c == '"' && (i == 0 || query.charAt(i - 1) != '\\')) {
        quoted = !quoted;
      }
      if (c == '@' && !quoted && (i == 0 || " \t\n(+-!".indexOf(query.charAt(i - 1)) >= 0)) {
        b.append('\\');
      }
      b.append(c);
    }
    return b.toString();
  }

  /**
   * Elasticsearch's one-sided ranges, {@code field:>=v}, {@code field:>v}, {@code field:<=v} and {@code field:<v}
   * (outside quotes; the value runs to the next space or closing parenthesis), also as terms of a field's group
   * ({@code age:(>=10 AND <20)}), as the ranges of Lucene's syntax they mean: {@code field:[v TO *]}, {@code field:{v TO *]}, {@code field:[* TO v]}, {@code field:[* TO v}}.
   */
  static String oneSidedRanges(String query) {
    StringBuilder b = new StringBuilder(query.length() + 8);
    boolean quoted = false;
    for (int i = 0; i < query.length(); i++) {
      char c = query.charAt(i);
      if (c == '"' && (i == 0 || query.charAt(i - 1) != '\\')) {
        quoted = !quoted;
      }
      int at; // where the operator is, or -1
      if (quoted) {
        at = -1;
      } else if (c == ':' && (i == 0 || query.charAt(i - 1) != '\\')) {
        at = i + 1;
      } else if ((c == '>' || c == '<') && i > 0 && " \t\n(+-!".indexOf(query.charAt(i - 1)) >= 0) {
        at = i; // inside a field's group, field:(>=10 AND <20), an operator starts a term of its own
      } else {
        at = -1;
      }
      char op = at >= 0 && at < query.length() ? query.charAt(at) : 0;
      boolean inclusive = at + 1 < query.length() && query.charAt(at + 1) == '=';
      int start = at + (inclusive ? 2 : 1);
      int end = start;
      while ((op == '>' || op == '<') && end < query.length() && !Character.isWhitespace(query.charAt(end))
          && query.charAt(end) != ')') {
        end++;
      }
      if (end == start) { // no operator, or nothing after it (left for the parser to refuse)
        b.append(c);
        continue;
      }
      if (at > i) {
        b.append(c); // the colon
      }
      String value = query.substring(start, end);
      if (op == '>') {
        b.append(inclusive ? '[' : '{').append(value).append(" TO *]");
      } else {
        b.append("[* TO ").append(value).append(inclusive ? ']' : '}');
      }
      i = end - 1;
    }
    return b.toString();
  }


  /**
   * How to sort on {@code field} as the engines do: the smallest of a document's values ascending, the largest
   * descending, documents without a value last.
   *
   * @throws IllegalArgumentException if the field is not mapped, or not a keyword, number or date
   */
  public SortField sortField(String field, boolean descending) {
    IndexMapping.Field f = mapping.field(field);
    if (f == null) {
      throw new IllegalArgumentException("cannot sort on '" + field + "': the mapping has no such field");
    }
    SortField.Type type = f.kind().sortType();
    if (type == null) {
      throw new IllegalArgumentException("cannot sort on '" + field + "' of type '" + f.type() + "'");
    }
    switch (type) {
      case STRING -> {
        SortedSetSortField s = new SortedSetSortField(field, descending,
            descending ? SortedSetSelector.Type.MAX : SortedSetSelector.Type.MIN);
        s.setMissingValue(descending ? SortField.STRING_FIRST : SortField.STRING_LAST);
        return s;
      }
      case INT -> { // points of 4 bytes: Lucene's sort skips with them only as an int sort
        SortedNumericSortField s = new SortedNumericSortField(field, SortField.Type.INT, descending,
            descending ? SortedNumericSelector.Type.MAX : SortedNumericSelector.Type.MIN);
        s.setMissingValue(descending ? Integer.MIN_VALUE : Integer.MAX_VALUE);
        return s;
      }
      case LONG -> {
        SortedNumericSortField s = new SortedNumericSortField(field, SortField.Type.LONG, descending,
            descending ? SortedNumericSelector.Type.MAX : SortedNumericSelector.Type.MIN);
        s.setMissingValue(descending ? Long.MIN_VALUE : Long.MAX_VALUE);
        return s;
      }
      case DOUBLE -> {
        SortedNumericSortField s = new SortedNumericSortField(field, SortField.Type.DOUBLE, descending,
            descending ? SortedNumericSelector.Type.MAX : SortedNumericSelector.Type.MIN);
        s.setMissingValue(descending ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
        return s;
      }
      case FLOAT -> {
        SortedNumericSortField s = new SortedNumericSortField(field, SortField.Type.FLOAT, descending,
            descending ? SortedNumericSelector.Type.MAX : SortedNumericSelector.Type.MIN);
        s.setMissingValue(descending ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY);
        return s;
      }
      default -> throw new AssertionError(type);
    }
  }

  /** How each point field's bounds are read: new each time, as a {@link NumberFormat} is not thread-safe. */
  private Map<String, PointsConfig> pointsConfig() {
    Map<String, PointsConfig> points = new HashMap<>();
    pointTypes.forEach((field, type) -> {
      if (mapping.field(field).isDate()) {
        return; // one term, read by the date rule
      }
      points.put(field, switch (type) {
      case LONG -> new PointsConfig(NumberFormat.getIntegerInstance(Locale.ROOT), Long.class);
      case INT -> new PointsConfig(NumberFormat.getIntegerInstance(Locale.ROOT), Integer.class);
      case DOUBLE -> new PointsConfig(NumberFormat.getNumberInstance(Locale.ROOT), Double.class);
      case FLOAT -> new PointsConfig(NumberFormat.getNumberInstance(Locale.ROOT), Float.class);
      default -> throw new AssertionError(type);
      });
    });
    return points;
  }

  /**
   * {@code query} as a highlighter matches it against one document's analyzed text: each query this parser built over
   * both a field's index and its doc values replaced by the one over its index.
   */
  public static Query indexedForm(Query query) {
    return IndexedOrDocValuesQuery.indexedForm(query);
  }

  /**
   * A built-in analyzer by the name a mapping gives it, or null: what this parser searches a text field with, and what
   * the search API's highlighter analyzes its values with.
   */
  public static Analyzer analyzer(String name) {
    return switch (name) {
      case "standard" -> new StandardAnalyzer(CharArraySet.EMPTY_SET); // the engines' standard: no stop words
      case "simple" -> new SimpleAnalyzer();
      case "whitespace" -> new WhitespaceAnalyzer();
      case "keyword" -> new KeywordAnalyzer();
      case "stop" -> new StopAnalyzer(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
      default -> null;
    };
  }

  /** {@link #ISO_DATES}: an ISO-8601 instant or UTC date-time or date, or epoch milliseconds. */
  private static long isoDate(IndexMapping.Field field, String text, boolean roundUp) {
    String t = text.trim();
    if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
      return Long.parseLong(t);
    }
    try {
      return OffsetDateTime.parse(t).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      try {
        return LocalDateTime.parse(t).toInstant(ZoneOffset.UTC).toEpochMilli();
      } catch (DateTimeParseException e2) {
        try {
          LocalDate day = LocalDate.parse(t);
          return (roundUp ? day.plusDays(1) : day).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli()
              - (roundUp ? 1 : 0);
        } catch (DateTimeParseException e3) {
          throw new IllegalArgumentException("field '" + field.path() + "' holds dates, and '" + text + "' is not one"
              + " (give an ISO-8601 date or instant, or epoch milliseconds)");
        }
      }
    }
  }
}
