/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static dev.permafrost.fixture.DslDataset.AGE_MAX;
import static dev.permafrost.fixture.DslDataset.AGE_MIN;
import static dev.permafrost.fixture.DslDataset.BYTES_MAX;
import static dev.permafrost.fixture.DslDataset.DOCS_A;
import static dev.permafrost.fixture.DslDataset.DOCS_B;
import static dev.permafrost.fixture.DslDataset.END;
import static dev.permafrost.fixture.DslDataset.HOSTS;
import static dev.permafrost.fixture.DslDataset.LEVELS;
import static dev.permafrost.fixture.DslDataset.NAMES;
import static dev.permafrost.fixture.DslDataset.PHRASES;
import static dev.permafrost.fixture.DslDataset.SERVICES;
import static dev.permafrost.fixture.DslDataset.START;
import static dev.permafrost.fixture.DslDataset.STATUSES;
import static dev.permafrost.fixture.DslDataset.TAGS;
import static dev.permafrost.fixture.DslDataset.UPDATED_MESSAGE;
import static dev.permafrost.fixture.DslDataset.WORDS;

import dev.permafrost.fixture.DslDataset;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Random {@code _search} requests over {@link DslDataset}, the same for a seed: every query type and aggregation the
 * service's Elasticsearch-compatible API answers, combined, with {@code size}, {@code from}, a total {@code sort}
 * (always ending with {@code seq}, unique, so that the hits' order is defined without scores),
 * {@code track_total_hits} and {@code _source} filtering. Each request has a short label for failure messages.
 */
public final class DslRequests {
  /** A generated request: the indices it searches, its body, and what it is, in a few words. */
  public record Request(String label, String indices, String body) {
    /** The request's path: {@code /<indices>/_search}. */
    public String path() {
      return "/" + indices + "/_search";
    }

    @Override
    public String toString() {
      return label + " " + path() + " " + body;
    }
  }

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final List<String> INDICES = List.of(DslDataset.INDEX_A, DslDataset.INDEX_B,
      DslDataset.INDEX_A + "," + DslDataset.INDEX_B, "dsl-*");
  /** The keyword fields (and the values they hold). */
  private static final List<String> KEYWORDS = List.of("host", "service", "level", "tags", "user.name",
      "message.raw");
  /** The numeric fields. */
  private static final List<String> NUMBERS = List.of("seq", "status", "bytes", "latency", "user.age");
  /** The date fields. */
  private static final List<String> DATES = List.of("@timestamp", "day");
  /** The fields a hit may be sorted on, one value a document at most. */
  private static final List<String> SORTABLE = List.of("status", "bytes", "latency", "user.age", "@timestamp", "day",
      "host", "service", "level", "user.name");
  private static final List<String> ZONES = List.of("UTC", "+02:00", "-05:00", "Europe/Berlin", "America/New_York",
      "Asia/Kolkata");
  private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");

  private final Random random;

  private DslRequests(Random random) {
    this.random = random;
  }

  /** {@code count} requests drawn from {@code seed}. */
  public static List<Request> generate(long seed, int count) {
    Random random = new Random(seed);
    List<Request> requests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Request r = next(random);
      requests.add(new Request("#" + i + " " + r.label(), r.indices(), r.body()));
    }
    return requests;
  }

  /** One request drawn from {@code random}. */
  public static Request next(Random random) {
    return new DslRequests(random).request();
  }

  private Request request() {
    ObjectNode body = JSON.objectNode();
    List<String> label = new ArrayList<>();
    if (random.nextInt(8) != 0) {
      Labelled q = query(random.nextInt(3));
      body.set("query", q.json());
      label.add(q.label());
    } else {
      label.add("no query");
    }
    boolean aggs = random.nextInt(3) != 0;
    int size = aggs && random.nextBoolean() ? 0 : random.nextInt(21);
    body.put("size", size);
    if (size > 0 && random.nextInt(3) == 0) {
      int from = random.nextInt(30);
      body.put("from", from);
      label.add("from " + from);
    }
    label.add("size " + size);
    ArrayNode sort = body.putArray("sort");
    StringBuilder sortLabel = new StringBuilder("sort ");
    int keys = random.nextInt(3);
    for (int k = 0; k < keys; k++) {
      String field = pick(SORTABLE);
      String order = random.nextBoolean() ? "asc" : "desc";
      if (random.nextInt(3) == 0) {
        ObjectNode spec = JSON.objectNode().put("order", order);
        if (random.nextBoolean()) {
          spec.put("missing", random.nextBoolean() ? "_first" : "_last");
        }
        sort.addObject().set(field, spec);
        sortLabel.append(field).append(' ').append(spec).append(", ");
      } else {
        sort.addObject().put(field, order);
        sortLabel.append(field).append(' ').append(order).append(", ");
      }
    }
    String seqOrder = random.nextBoolean() ? "asc" : "desc";
    sort.addObject().put("seq", seqOrder);
    label.add(sortLabel.append("seq ").append(seqOrder).toString());
    switch (random.nextInt(5)) {
      case 0 -> {
        body.put("track_total_hits", true);
        label.add("total true");
      }
      case 1 -> {
        body.put("track_total_hits", false);
        label.add("total false");
      }
      case 2 -> {
        int limit = List.of(1, 10, 100, 1000, 5000).get(random.nextInt(5));
        body.put("track_total_hits", limit);
        label.add("total " + limit);
      }
      default -> { } // the default: 10,000
    }
    switch (random.nextInt(6)) {
      case 0 -> {
        body.put("_source", false);
        label.add("_source false");
      }
      case 1 -> {
        // an object: the Java client reads no array here (SourceConfig is a boolean or a SourceFilter)
        ArrayNode includes = body.putObject("_source").putArray("includes");
        includes.add("seq").add(pick(List.of("host", "status", "user.name", "tags", "@timestamp", "message")));
        label.add("_source " + includes);
      }
      case 2 -> {
        ObjectNode source = body.putObject("_source");
        source.putArray("includes").add(pick(List.of("user.*", "seq", "mess*", "*")));
        if (random.nextBoolean()) {
          source.putArray("excludes").add(pick(List.of("user.age", "message", "tags")));
        }
        label.add("_source " + source);
      }
      case 3 -> {
        ObjectNode source = body.putObject("_source");
        source.putArray("excludes").add(pick(List.of("message", "user", "bytes", "@timestamp")));
        label.add("_source " + source);
      }
      default -> { }
    }
    if (aggs) {
      ObjectNode aggregations = body.putObject("aggs");
      int n = 1 + random.nextInt(2);
      List<String> names = new ArrayList<>();
      for (int a = 0; a < n; a++) {
        Labelled agg = aggregation(true);
        String name = "a" + a;
        aggregations.set(name, agg.json());
        names.add(agg.label());
      }
      label.add("aggs[" + String.join("; ", names) + "]");
    }
    return new Request(String.join(" | ", label), pick(INDICES), body.toString());
  }

  /** A JSON value and a few words for it. */
  private record Labelled(String label, ObjectNode json) {}

  private Labelled query(int depth) {
    if (depth > 0 && random.nextInt(3) != 0) {
      return bool(depth);
    }
    return leaf();
  }

  private Labelled bool(int depth) {
    ObjectNode bool = JSON.objectNode();
    List<String> parts = new ArrayList<>();
    int shoulds = 0;
    for (String occur : List.of("must", "filter", "should", "must_not")) {
      int n = random.nextInt(occur.equals("must_not") ? 2 : 3);
      if (n == 0) {
        continue;
      }
      ArrayNode clauses = bool.putArray(occur);
      List<String> labels = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Labelled q = query(depth - 1);
        clauses.add(q.json());
        labels.add(q.label());
      }
      if (occur.equals("should")) {
        shoulds = n;
      }
      parts.add(occur + "(" + String.join(", ", labels) + ")");
    }
    if (shoulds > 0 && random.nextBoolean()) {
      Object msm = switch (random.nextInt(3)) {
        case 0 -> 1;
        case 1 -> shoulds;
        default -> "50%";
      };
      if (msm instanceof Integer i) {
        bool.put("minimum_should_match", i);
      } else {
        bool.put("minimum_should_match", (String) msm);
      }
      parts.add("msm " + msm);
    }
    if (parts.isEmpty()) {
      return leaf();
    }
    return new Labelled("bool{" + String.join(" ", parts) + "}", wrap("bool", bool));
  }

  private Labelled leaf() {
    ObjectNode q = JSON.objectNode();
    switch (random.nextInt(17)) {
      case 0 -> {
        String field = pick(KEYWORDS);
        Object value = keywordValue(field);
        if (random.nextBoolean()) {
          q.putObject("term").put(field, value.toString());
        } else {
          q.putObject("term").putObject(field).put("value", value.toString());
        }
        return new Labelled("term " + field + "=" + value, q);
      }
      case 1 -> {
        String field = pick(List.of("status", "user.age", "seq"));
        long value = numberValue(field);
        q.putObject("term").put(field, value);
        return new Labelled("term " + field + "=" + value, q);
      }
      case 2 -> {
        String field = pick(List.of("host", "service", "level", "tags", "user.name", "status"));
        ArrayNode values = q.putObject("terms").putArray(field);
        for (int i = 1 + random.nextInt(3); i > 0; i--) {
          if (field.equals("status")) {
            values.add(pick(STATUSES));
          } else {
            values.add(keywordValue(field).toString());
          }
        }
        return new Labelled("terms " + field + " " + values, q);
      }
      case 3, 4 -> {
        return numberRange(q);
      }
      case 5, 6 -> {
        return dateRange(q);
      }
      case 7 -> {
        String field = pick(List.of("service", "bytes", "tags", "user.name", "message", "latency", "day"));
        q.putObject("exists").put("field", field);
        return new Labelled("exists " + field, q);
      }
      case 8 -> {
        String field = pick(List.of("host", "message.raw", "tags", "service", "user.name"));
        String prefix = switch (field) {
          case "host" -> pick(List.of("web", "web-0", "db", "x"));
          case "message.raw" -> pick(List.of("user", "disk", "connection t", "cache"));
          case "tags" -> pick(List.of("a", "ga", "e", "z"));
          case "service" -> pick(List.of("a", "b", "se"));
          default -> pick(List.of("a", "b", "e"));
        };
        q.putObject("prefix").put(field, prefix);
        return new Labelled("prefix " + field + "=" + prefix, q);
      }
      case 9 -> {
        String field = pick(List.of("host", "message.raw", "tags"));
        String pattern = switch (field) {
          case "host" -> pick(List.of("web-0*", "*-01", "w?b-0?", "*"));
          case "message.raw" -> pick(List.of("*login*", "disk*", "*peer*"));
          default -> pick(List.of("?eta", "*a", "g*"));
        };
        q.putObject("wildcard").putObject(field).put("value", pattern);
        return new Labelled("wildcard " + field + "=" + pattern, q);
      }
      case 10 -> {
        ArrayNode values = q.putObject("ids").putArray("values");
        for (int i = 1 + random.nextInt(6); i > 0; i--) {
          values.add(DslDataset.id(random.nextInt(DOCS_A + DOCS_B + 10)));
        }
        return new Labelled("ids " + values, q);
      }
      case 11 -> {
        String text = words(1 + random.nextInt(3));
        String operator = random.nextBoolean() ? "and" : "or";
        q.putObject("match").putObject("message").put("query", text).put("operator", operator);
        return new Labelled("match message '" + text + "' " + operator, q);
      }
      case 12 -> {
        String phrase = phrase();
        q.putObject("match_phrase").put("message", phrase);
        return new Labelled("match_phrase message '" + phrase + "'", q);
      }
      case 13 -> {
        boolean level = random.nextBoolean();
        String text = level ? pick(LEVELS) + " " + words(1) : random.nextBoolean() ? pick(PHRASES) : words(2);
        ObjectNode mm = q.putObject("multi_match");
        mm.put("query", text).put("type", "best_fields");
        mm.putArray("fields").add("message").add(level ? "level" : "message.raw");
        return new Labelled("multi_match best_fields " + mm.get("fields") + " '" + text + "'", q);
      }
      case 14 -> {
        String text = queryString(1 + random.nextInt(3));
        q.putObject("query_string").put("query", text);
        return new Labelled("query_string '" + text + "'", q);
      }
      case 15 -> {
        String text = switch (random.nextInt(4)) {
          case 0 -> words(2);
          case 1 -> "+" + pick(WORDS) + " -" + pick(WORDS);
          case 2 -> "\"" + phrase() + "\" | " + pick(WORDS);
          default -> pick(WORDS) + "*";
        };
        ObjectNode sqs = q.putObject("simple_query_string");
        sqs.put("query", text);
        sqs.putArray("fields").add("message");
        if (random.nextBoolean()) {
          sqs.put("default_operator", random.nextBoolean() ? "and" : "or");
        }
        return new Labelled("simple_query_string message '" + text + "'", q);
      }
      default -> {
        q.putObject("match_all");
        return new Labelled("match_all", q);
      }
    }
  }

  private Labelled numberRange(ObjectNode q) {
    String field = pick(NUMBERS);
    ObjectNode range = q.putObject("range").putObject(field);
    StringBuilder label = new StringBuilder("range " + field);
    boolean decimal = field.equals("latency");
    double low = numberValue(field);
    double high = low + (numberMax(field) - numberMin(field)) * random.nextDouble() / 2;
    if (decimal) {
      low = Math.round(random.nextDouble() * 5000) / 1000.0;
      high = Math.round((low + random.nextDouble() * 2.5) * 1000) / 1000.0;
    }
    if (random.nextInt(4) != 0) {
      String op = random.nextBoolean() ? "gte" : "gt";
      put(range, op, low, decimal);
      label.append(' ').append(op).append(' ').append(range.get(op));
    }
    if (range.isEmpty() || random.nextBoolean()) {
      String op = random.nextBoolean() ? "lte" : "lt";
      put(range, op, high, decimal);
      label.append(' ').append(op).append(' ').append(range.get(op));
    }
    return new Labelled(label.toString(), q);
  }

  private static void put(ObjectNode range, String op, double value, boolean decimal) {
    if (decimal) {
      range.put(op, value);
    } else {
      range.put(op, (long) value);
    }
  }

  private Labelled dateRange(ObjectNode q) {
    String field = pick(DATES);
    ObjectNode range = q.putObject("range").putObject(field);
    long span = END.toEpochMilli() - START.toEpochMilli();
    long low = START.toEpochMilli() - span / 20 + (long) (random.nextDouble() * span);
    long high = low + (long) (random.nextDouble() * span / 3);
    String zone = random.nextInt(3) == 0 ? null : pick(ZONES);
    String how;
    switch (random.nextInt(5)) {
      case 0 -> { // epoch millis, as numbers
        range.put("gte", low).put("lt", high).put("format", "epoch_millis");
        how = "epoch_millis";
        zone = null;
      }
      case 1 -> { // whole days, the upper one partial and inclusive: up to its end
        range.put("gte", day(low)).put("lte", day(high)).put("format", "yyyy-MM-dd");
        how = "yyyy-MM-dd";
      }
      case 2 -> { // local date-times (in time_zone, if any)
        range.put(random.nextBoolean() ? "gt" : "gte", LOCAL.format(LocalDateTime.ofEpochSecond(low / 1000, 0,
            ZoneOffset.UTC))).put(random.nextBoolean() ? "lt" : "lte", LOCAL.format(LocalDateTime.ofEpochSecond(
            high / 1000, 0, ZoneOffset.UTC))).put("format", "strict_date_optional_time");
        how = "strict_date_optional_time";
      }
      case 3 -> { // partial dates with lte: a month, a day, an hour
        String upper = switch (random.nextInt(3)) {
          case 0 -> day(high).substring(0, 7);
          case 1 -> day(high);
          default -> LOCAL.format(LocalDateTime.ofEpochSecond(high / 1000, 0, ZoneOffset.UTC)).substring(0, 13);
        };
        range.put("gt", day(low)).put("lte", upper);
        if (field.equals("day")) { // its own format takes whole days only
          range.put("format", "strict_date_optional_time");
        }
        how = "partial lte " + upper;
      }
      default -> { // date math, rounded to the day
        range.put("gte", day(low) + "||/d").put("lt", day(high) + "||+1d/d");
        how = "date math";
      }
    }
    if (zone != null) {
      range.put("time_zone", zone);
    }
    return new Labelled("range " + field + " " + how + (zone != null ? " tz " + zone : ""), q);
  }

  private String queryString(int depth) {
    if (depth > 1) {
      String left = queryString(depth - 1);
      String right = queryString(1 + random.nextInt(depth - 1));
      return switch (random.nextInt(3)) {
        case 0 -> "(" + left + " AND " + right + ")";
        case 1 -> "(" + left + " OR " + right + ")";
        default -> "(" + left + " AND NOT " + right + ")";
      };
    }
    return switch (random.nextInt(8)) {
      case 0 -> "host:" + pick(HOSTS);
      case 1 -> "status:" + pick(STATUSES);
      case 2 -> "level:" + pick(LEVELS);
      case 3 -> "message:" + pick(WORDS);
      case 4 -> "message:\"" + phrase() + "\"";
      case 5 -> "status:[" + (200 + random.nextInt(200)) + " TO " + (300 + random.nextInt(300)) + "]";
      case 6 -> "tags:" + pick(TAGS);
      default -> "user.name:" + pick(NAMES);
    };
  }

  // aggregations

  private Labelled aggregation(boolean top) {
    int kind = random.nextInt(top ? 10 : 4);
    if (!top) {
      return kind == 0 ? terms() : metric();
    }
    Labelled agg = switch (kind) {
      case 0, 1 -> dateHistogram();
      case 2 -> histogram();
      case 3, 4 -> terms();
      case 5 -> range();
      case 6 -> filter();
      case 7 -> filters();
      default -> metric();
    };
    if (kind < 8 && random.nextInt(3) != 0) {
      Labelled sub = aggregation(false);
      agg.json().putObject("aggs").set("s", sub.json());
      return new Labelled(agg.label() + " > " + sub.label(), agg.json());
    }
    return agg;
  }

  private Labelled dateHistogram() {
    String field = pick(DATES);
    ObjectNode dh = JSON.objectNode();
    ObjectNode spec = dh.putObject("date_histogram").put("field", field);
    StringBuilder label = new StringBuilder("date_histogram " + field);
    if (random.nextBoolean()) {
      String interval = pick(field.equals("day") ? List.of("1d", "2d") : List.of("1h", "6h", "1d", "12h"));
      spec.put("fixed_interval", interval);
      label.append(" fixed ").append(interval);
    } else {
      String interval = pick(List.of("day", "week", "month", "1d", "1w", "1M"));
      spec.put("calendar_interval", interval);
      label.append(" calendar ").append(interval);
    }
    if (random.nextBoolean()) {
      String zone = pick(ZONES);
      spec.put("time_zone", zone);
      label.append(" tz ").append(zone);
    }
    int minDocCount = random.nextInt(2);
    spec.put("min_doc_count", minDocCount);
    label.append(" min_doc_count ").append(minDocCount);
    String format = random.nextInt(3) == 0 ? pick(List.of("yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm", "epoch_millis")) : null;
    if (format != null) {
      spec.put("format", format);
      label.append(" format ").append(format);
    }
    if (minDocCount == 0 && random.nextBoolean()) {
      ObjectNode bounds = spec.putObject("extended_bounds");
      if (format == null && random.nextBoolean()) { // strings are read in the aggregation's format
        bounds.put("min", "2024-02-27").put("max", "2024-04-12");
      } else {
        bounds.put("min", START.toEpochMilli() - 86_400_000L).put("max", END.toEpochMilli() + 86_400_000L);
      }
      label.append(" extended_bounds");
    }
    return new Labelled(label.toString(), dh);
  }

  private Labelled histogram() {
    String field = pick(List.of("bytes", "latency", "status", "user.age"));
    double interval = switch (field) {
      case "bytes" -> pick(List.of(10_000.0, 25_000.0, 5_000.0));
      case "latency" -> pick(List.of(0.5, 1.0, 0.25));
      case "status" -> pick(List.of(100.0, 50.0));
      default -> pick(List.of(10.0, 5.0));
    };
    ObjectNode h = JSON.objectNode();
    ObjectNode spec = h.putObject("histogram").put("field", field).put("interval", interval);
    int minDocCount = random.nextInt(2);
    spec.put("min_doc_count", minDocCount);
    StringBuilder label = new StringBuilder("histogram " + field + " " + interval + " min_doc_count " + minDocCount);
    if (minDocCount == 0 && random.nextInt(3) == 0) {
      spec.putObject("extended_bounds").put("min", 0).put("max", numberMax(field) * 1.2);
      label.append(" extended_bounds");
    }
    return new Labelled(label.toString(), h);
  }

  private Labelled terms() {
    String field = pick(List.of("host", "service", "level", "tags", "user.name", "status", "user.age", "message.raw"));
    ObjectNode t = JSON.objectNode();
    int size = 1 + random.nextInt(10);
    ObjectNode spec = t.putObject("terms").put("field", field).put("size", size);
    StringBuilder label = new StringBuilder("terms " + field + " size " + size);
    // Elasticsearch's counts are exact when every shard returns all its terms, or when ordered by key; on user.age and
    // message.raw (more terms than a shard returns) they are ordered by key, or the node's would be estimates
    boolean manyTerms = field.equals("user.age") || field.equals("message.raw");
    if (manyTerms || random.nextBoolean()) {
      String key = !manyTerms && random.nextBoolean() ? "_count" : "_key";
      String order = random.nextBoolean() ? "asc" : "desc";
      spec.putObject("order").put(key, order);
      label.append(" order ").append(key).append(' ').append(order);
    }
    if (random.nextInt(4) == 0) {
      if (field.equals("status") || field.equals("user.age")) {
        spec.put("missing", 0);
      } else {
        spec.put("missing", "none");
      }
      label.append(" missing");
    }
    return new Labelled(label.toString(), t);
  }

  private Labelled range() {
    String field = pick(List.of("bytes", "latency", "status", "user.age"));
    double min = numberMin(field);
    double max = numberMax(field);
    double a = min + (max - min) * (0.1 + random.nextDouble() * 0.3);
    double b = a + (max - min) * random.nextDouble() * 0.5;
    if (!field.equals("latency")) {
      a = Math.round(a);
      b = Math.round(b);
    } else {
      a = Math.round(a * 100) / 100.0;
      b = Math.round(b * 100) / 100.0;
    }
    ObjectNode r = JSON.objectNode();
    ObjectNode spec = r.putObject("range").put("field", field);
    ArrayNode ranges = spec.putArray("ranges");
    ranges.addObject().put("to", a);
    ranges.addObject().put("from", a).put("to", b);
    ranges.addObject().put("from", b);
    if (random.nextBoolean()) {
      ranges.addObject().put("key", "all").put("from", min);
    }
    return new Labelled("range " + field + " " + a + "/" + b, r);
  }

  private Labelled filter() {
    Labelled q = leaf();
    ObjectNode f = JSON.objectNode();
    f.set("filter", q.json());
    return new Labelled("filter(" + q.label() + ")", f);
  }

  private Labelled filters() {
    ObjectNode f = JSON.objectNode();
    ObjectNode spec = f.putObject("filters");
    List<String> labels = new ArrayList<>();
    int n = 2 + random.nextInt(2);
    if (random.nextBoolean()) {
      ObjectNode named = spec.putObject("filters");
      for (int i = 0; i < n; i++) {
        Labelled q = leaf();
        named.set("f" + i, q.json());
        labels.add(q.label());
      }
    } else {
      ArrayNode anonymous = spec.putArray("filters");
      for (int i = 0; i < n; i++) {
        Labelled q = leaf();
        anonymous.add(q.json());
        labels.add(q.label());
      }
    }
    if (random.nextInt(3) == 0) {
      spec.put("other_bucket", true);
      labels.add("other");
    }
    return new Labelled("filters(" + String.join(", ", labels) + ")", f);
  }

  private Labelled metric() {
    String kind = pick(List.of("min", "max", "avg", "sum", "value_count", "stats"));
    String field;
    if ((kind.equals("min") || kind.equals("max")) && random.nextInt(3) == 0) {
      field = "@timestamp";
    } else if (kind.equals("value_count") && random.nextBoolean()) {
      field = pick(List.of("host", "service", "tags"));
    } else {
      field = pick(NUMBERS);
    }
    ObjectNode m = JSON.objectNode();
    m.putObject(kind).put("field", field);
    return new Labelled(kind + " " + field, m);
  }

  // values

  private Object keywordValue(String field) {
    return switch (field) {
      case "host" -> pick(HOSTS);
      case "service" -> pick(SERVICES);
      case "level" -> pick(LEVELS);
      case "tags" -> pick(TAGS);
      case "user.name" -> pick(NAMES);
      case "message.raw" -> random.nextInt(5) == 0 ? UPDATED_MESSAGE : pick(PHRASES) + " " + pick(PHRASES);
      default -> throw new IllegalArgumentException(field);
    };
  }

  private long numberValue(String field) {
    return switch (field) {
      case "status" -> pick(STATUSES);
      case "user.age" -> AGE_MIN + random.nextInt(AGE_MAX - AGE_MIN + 1);
      case "seq" -> random.nextInt(DOCS_A + DOCS_B);
      case "bytes" -> random.nextInt((int) BYTES_MAX + 1);
      default -> random.nextInt(6);
    };
  }

  private static double numberMin(String field) {
    return switch (field) {
      case "status" -> 200;
      case "user.age" -> AGE_MIN;
      default -> 0;
    };
  }

  private static double numberMax(String field) {
    return switch (field) {
      case "status" -> 503;
      case "user.age" -> AGE_MAX;
      case "seq" -> DOCS_A + DOCS_B;
      case "bytes" -> BYTES_MAX;
      default -> DslDataset.LATENCY_MAX;
    };
  }

  private String words(int n) {
    List<String> words = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      words.add(pick(WORDS));
    }
    return String.join(" ", words);
  }

  /** Two or three consecutive words of a message's phrase. */
  private String phrase() {
    String[] words = (random.nextInt(10) == 0 ? UPDATED_MESSAGE : pick(PHRASES)).split(" ");
    int length = Math.min(words.length, 2 + random.nextInt(2));
    int from = random.nextInt(words.length - length + 1);
    return String.join(" ", List.of(words).subList(from, from + length));
  }

  private static String day(long millis) {
    return Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC).toLocalDate().toString();
  }

  private static ObjectNode wrap(String name, ObjectNode value) {
    ObjectNode o = JSON.objectNode();
    o.set(name, value);
    return o;
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
