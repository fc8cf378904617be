/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/**
 * The one reader of a search's simple parameters, under every door that takes them (the example service's own
 * {@code /search} and {@code /histogram}, the CLI's {@code search}): {@code q} in Lucene's syntax, a time range on
 * the timestamp field, a sort {@code field[:asc|:desc]} and "match all" (blank, {@code *} or {@code *:*}), each read
 * over an index's mapping, whether the mapping was declared (the service's own snapshots) or recorded by the
 * snapshot (an engine's). {@code q} is read by {@link MappedQueryParser}, as Elasticsearch's API reads it.
 *
 * <p>Indices mapped two ways are searched as Elasticsearch searches them: each by its own mapping
 * ({@link #queries}), translated once per distinct mapping. A sort must mean one thing over all of them: a field
 * sorted differently by two mappings is refused, naming them. Thread-safe.
 */
public final class QueryFront {
  private final String defaultField;
  private final String timestampField;

  /**
   * @param defaultField the field of a term that names none, where the index maps it (null: every term names its
   *     field)
   * @param timestampField the date field a {@link TimeRange} filters on
   */
  public QueryFront(String defaultField, String timestampField) {
    this.defaultField = defaultField;
    this.timestampField = Objects.requireNonNull(timestampField, "timestampField");
  }

  /** The timestamp field time ranges filter on. */
  public String timestampField() {
    return timestampField;
  }

  /** Whether {@code q} means every document: null, blank, {@code *} or {@code *:*}. The one rule of it. */
  public static boolean matchesAll(String q) {
    if (q == null || q.isBlank()) {
      return true;
    }
    String t = q.trim();
    return t.equals("*") || t.equals("*:*");
  }

  /**
   * A time range, {@code from} inclusive and {@code to} exclusive, either end open (null). Instants keep their
   * nanoseconds, so that a {@code date_nanos} field is compared in nanoseconds.
   *
   * @param from the first instant in the range, or null
   * @param to the first instant after it, or null
   */
  public record TimeRange(Instant from, Instant to) {
    /** No bound at all. */
    public static final TimeRange ALL = new TimeRange(null, null);

    public TimeRange {
      if (from != null && to != null && !from.isBefore(to)) {
        throw new IllegalArgumentException("'from' (" + from + ") must be before 'to' (" + to + ")");
      }
    }

    /**
     * Parses the {@code from} and {@code to} parameters: an ISO-8601 instant ({@code 2024-02-03T10:00:00Z}, to the
     * nanosecond), a date-time in UTC ({@code 2024-02-03T10:00}), a day in UTC ({@code 2024-02-03}: its start), or
     * milliseconds since the epoch. Blank or null is an open end.
     *
     * @throws IllegalArgumentException naming the parameter if one cannot be read, or {@code from} is not before
     *     {@code to}
     */
    public static TimeRange parse(String from, String to) {
      Instant start = from == null || from.isBlank() ? null : instant("from", from.trim());
      Instant end = to == null || to.isBlank() ? null : instant("to", to.trim());
      if (start != null && end != null && !start.isBefore(end)) {
        throw new IllegalArgumentException("'from' (" + from + ") must be before 'to' (" + to + ")");
      }
      return new TimeRange(start, end);
    }

    /** Whether both ends are open. */
    public boolean isAll() {
      return from == null && to == null;
    }

    /** The first millisecond in the range ({@code from} rounded down), or {@link Long#MIN_VALUE} if open. */
    public long fromMillis() {
      return from == null ? Long.MIN_VALUE : from.toEpochMilli();
    }

    /** The first millisecond wholly after the range ({@code to} rounded up), or {@link Long#MAX_VALUE} if open. */
    public long toMillis() {
      if (to == null) {
        return Long.MAX_VALUE;
      }
      return to.toEpochMilli() + (to.getNano() % 1_000_000 == 0 ? 0 : 1);
    }

    private static Instant instant(String parameter, String text) {
      if (text.chars().allMatch(Character::isDigit) && text.length() <= 18) {
        return Instant.ofEpochMilli(Long.parseLong(text));
      }
      try {
        if (text.length() == 10) {
          return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
        }
        if (text.endsWith("Z") || text.matches(".*[+-]\\d\\d:\\d\\d$")) {
          return OffsetDateTime.parse(text).toInstant();
        }
        return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("'" + parameter + "' must be an ISO-8601 instant (2024-02-03T10:00:00Z), a"
            + " day (2024-02-03) or milliseconds since the epoch, got '" + text + "'");
      }
    }
  }

  /**
   * A sort: a field and its direction.
   *
   * @param field the field, as the mapping names it
   * @param descending whether the largest value comes first
   */
  public record SortKey(String field, boolean descending) {
    public SortKey {
      if (field == null || field.isEmpty()) {
        throw new IllegalArgumentException("a sort names a field");
      }
    }

    /**
     * Parses {@code field}, {@code field:asc} or {@code field:desc} (a field alone ascending, as Elasticsearch sorts
     * it); {@code _score} is by relevance (null); blank is {@code absent}.
     *
     * @throws IllegalArgumentException naming what is accepted if {@code text} is none of it
     */
    public static SortKey parse(String text, SortKey absent) {
      if (text == null || text.isBlank()) {
        return absent;
      }
      String spec = text.trim();
      if (spec.equals("_score")) {
        return null;
      }
      int colon = spec.lastIndexOf(':');
      String field = colon > 0 ? spec.substring(0, colon) : spec;
      String order = colon > 0 ? spec.substring(colon + 1).toLowerCase(Locale.ROOT) : "asc";
      if (!order.equals("asc") && !order.equals("desc") || field.isBlank() || colon == 0) {
        throw new IllegalArgumentException("a sort takes _score, FIELD, FIELD:asc or FIELD:desc, got '" + text + "'");
      }
      return new SortKey(field, order.equals("desc"));
    }
  }

  /**
   * The query for {@code q} (every document if it {@link #matchesAll}) over {@code mapping}, within {@code range} on
   * the timestamp field: from its points where a segment has them, else from its doc values (an Elasticsearch 9.3
   * time_series index keeps its timestamps in doc values only), in the field's unit (milliseconds for {@code date},
   * nanoseconds for {@code date_nanos}). An index that does not map the timestamp field matches no range.
   *
   * @throws IllegalArgumentException if {@code q} does not parse or names a field the mapping cannot query, or the
   *     timestamp field is not a date there
   */
  public Query query(IndexMapping mapping, String q, TimeRange range) {
    MappedQueryParser parser = parser(mapping);
    Query text;
    if (matchesAll(q)) {
      text = new MatchAllDocsQuery();
    } else {
      IndexMapping.Field dflt = defaultField == null ? null : mapping.field(defaultField);
      text = parser.parse(q, dflt == null ? null : defaultField, false);
    }
    if (range.isAll()) {
      return text;
    }
    return new BooleanQuery.Builder()
        .add(text, BooleanClause.Occur.MUST)
        .add(timeFilter(mapping, parser, range), BooleanClause.Occur.FILTER)
        .build();
  }

  private Query timeFilter(IndexMapping mapping, MappedQueryParser parser, TimeRange range) {
    IndexMapping.Field field = mapping.field(timestampField);
    if (field == null) {
      return new MatchNoDocsQuery("no field [" + timestampField + "] in the mapping");
    }
    if (!field.isDate()) {
      throw new IllegalArgumentException("the timestamp field '" + timestampField + "' is of type '" + field.type()
          + "', not a date: a time range cannot filter on it");
    }
    boolean nanos = field.kind() == FieldKind.DATE_NANOS;
    long lo = range.from() == null ? Long.MIN_VALUE : nanos ? nanos(range.from()) : ceilMillis(range.from());
    long hi = Long.MAX_VALUE;
    if (range.to() != null) {
      long end = nanos ? nanos(range.to()) : ceilMillis(range.to()); // the first value not in the range
      if (end == Long.MIN_VALUE) {
        return new MatchNoDocsQuery("empty range on [" + timestampField + "]");
      }
      hi = end - 1;
    }
    if (lo > hi) {
      return new MatchNoDocsQuery("empty range on [" + timestampField + "]");
    }
    return parser.withDocValuesForms(LongPoint.newRangeQuery(timestampField, lo, hi));
  }

  /** The first whole millisecond at or after {@code t}. */
  private static long ceilMillis(Instant t) {
    return t.toEpochMilli() + (t.getNano() % 1_000_000 == 0 ? 0 : 1);
  }

  /** {@code t} in nanoseconds since the epoch, saturated at the ends of a long (years 1677 to 2262). */
  private static long nanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    } catch (ArithmeticException e) {
      return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * The query of each of {@code indices}, each by its own mapping ({@code mappingOf}), for
   * {@code SearchRequest.Builder.queryPerIndex}: translated once per distinct mapping, now for the indices named (so
   * that a refusal is the request's, naming the index) and on demand for any other the search reaches.
   *
   * @throws IllegalArgumentException if an index's mapping refuses {@code q} or the range, naming the index
   */
  public Function<String, Query> queries(Function<String, IndexMapping> mappingOf, Collection<String> indices, String q,
      TimeRange range) {
    Map<IndexMapping, Query> byMapping = new ConcurrentHashMap<>();
    Function<IndexMapping, Query> translate = m -> byMapping.computeIfAbsent(m, x -> query(x, q, range));
    Map<IndexMapping, String> firstIndex = new LinkedHashMap<>(); // IndexMapping is equal to itself alone
    for (String index : indices) {
      firstIndex.putIfAbsent(Objects.requireNonNull(mappingOf.apply(index), index), index);
    }
    for (Map.Entry<IndexMapping, String> m : firstIndex.entrySet()) {
      try {
        translate.apply(m.getKey());
      } catch (IllegalArgumentException e) {
        // named by the index where indices are mapped more than one way: the refusal may be its mapping's alone
        throw firstIndex.size() == 1 ? e : new IllegalArgumentException("index '" + m.getValue() + "': "
            + e.getMessage(), e);
      }
    }
    return index -> translate.apply(Objects.requireNonNull(mappingOf.apply(index), index));
  }

  /**
   * How to sort the hits of indices mapped by {@code mappings} on {@code key} (null: by relevance, null returned), as
   * the engines sort: a document's smallest value ascending, its largest descending, those without one last.
   *
   * @throws IllegalArgumentException if no mapping maps the field, one cannot sort on it, or two sort it differently
   */
  public Sort sort(SortKey key, Collection<IndexMapping> mappings) {
    if (key == null) {
      return null;
    }
    Map<SortField, List<String>> ways = new LinkedHashMap<>();
    for (IndexMapping m : new LinkedHashSet<>(mappings)) {
      IndexMapping.Field f = m.field(key.field());
      if (f != null) {
        ways.computeIfAbsent(parser(m).sortField(key.field(), key.descending()), s -> new ArrayList<>()).add(f.type());
      }
    }
    if (ways.isEmpty()) {
      throw new IllegalArgumentException("cannot sort on '" + key.field() + "': no index searched maps it");
    }
    if (ways.size() > 1) {
      Set<String> types = new LinkedHashSet<>();
      ways.values().forEach(types::addAll);
      throw new IllegalArgumentException("cannot sort on '" + key.field() + "': the indices searched map it as "
          + String.join(" and ", types) + ", which sort differently: search them apart");
    }
    return new Sort(ways.keySet().iterator().next());
  }

  /** The mapping field {@code key} sorts on, from the first of {@code mappings} that maps it, or null. */
  public static IndexMapping.Field sortedField(SortKey key, Collection<IndexMapping> mappings) {
    if (key == null) {
      return null;
    }
    for (IndexMapping m : mappings) {
      if (m.field(key.field()) != null) {
        return m.field(key.field());
      }
    }
    return null;
  }

  /**
   * The mapping of an index that declares none, for a query that names {@code fields}: {@code defaultField} analyzed
   * text, every other field a keyword, matched as written ({@code host.name:web-03}), the timestamp a date. A number
   * or a date other than the timestamp is then a term: declare a mapping to query them as such.
   */
  public IndexMapping undeclared(Collection<String> fields) {
    ObjectNode properties = JsonNodeFactory.instance.objectNode();
    for (String f : fields) {
      properties.putObject(f).put("type", "keyword");
    }
    if (defaultField != null) {
      properties.putObject(defaultField).put("type", "text");
    }
    properties.putObject(timestampField).put("type", "date");
    ObjectNode mapping = JsonNodeFactory.instance.objectNode();
    mapping.set("properties", properties);
    return IndexMapping.of(mapping);
  }

  /**
   * The fields {@code q} names, read without a mapping (which fields a query names does not depend on how they are
   * mapped); none if it {@link #matchesAll}.
   *
   * @throws IllegalArgumentException if it does not parse
   */
  public Set<String> fieldsOf(String q) {
    Set<String> fields = new LinkedHashSet<>();
    if (matchesAll(q)) {
      return fields;
    }
    Query names = new MappedQueryParser(IndexMapping.of(null)).parse(q, defaultField, false);
    names.visit(new QueryVisitor() {
      @Override
      public boolean acceptField(String field) {
        if (!field.equals("_exists_")) {
          fields.add(field);
        }
        return true;
      }

      @Override
      public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
        return this;
      }
    });
    return fields;
  }

  private static MappedQueryParser parser(IndexMapping mapping) {
    return new MappedQueryParser(mapping);
  }
}
