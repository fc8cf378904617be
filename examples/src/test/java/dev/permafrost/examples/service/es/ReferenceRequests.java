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
import static dev.permafrost.fixture.DslDataset.LATENCY_MAX;
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
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeSet;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Random {@code _search} requests over {@link DslDataset}, written from Elasticsearch's reference pages (the query
 * DSL, the aggregations, the search API's body) and not from the service's translation: for every query and
 * aggregation {@code docs/elasticsearch-api.md} lists as supported, each option those pages document for it, in each
 * of its documented forms (short and long forms of a clause, {@code minimum_should_match} as a number, a negative
 * number, a percentage; dates as ISO instants, local times with a {@code time_zone}, partial dates, epoch numbers,
 * custom {@code format}s, date math with rounding and {@code now}; {@code query_string} fields, phrases, ranges in
 * {@code []}, {@code {}}, mixed and {@code >=} forms, wildcards, groups and operators; ...), nested and combined, with
 * {@code from}/{@code size}, sorts on {@code _score} and on fields (with {@code missing}, {@code format},
 * {@code numeric_type} and {@code search_after}), the forms of {@code track_total_hits} and of {@code _source} filtering.
 *
 * <p>A few requests in a hundred use a clause the page lists as refused ({@link Request#refusedClause()}): the
 * service must answer them with a 400 naming it.
 *
 * <p>Hits are ordered either by score alone ({@link Request#rankedByScore()}: documents of equal scores may come in
 * another order) or totally, by sort keys that end with the unique {@code seq}. Each request lists the options it
 * exercises ({@link Request#features()}), so that a run can say what it covered. The same seed gives requests that
 * mean the same whenever they run: a bound relative to {@code now} is drawn to reach the data, counted in calendar
 * days of the zone it rounds in and rounded to a day, week or month, so its text changes with the date but not the
 * day it names.
 */
public final class ReferenceRequests {
  /**
   * A generated request.
   *
   * @param number its position in its seed's sequence
   * @param label what it is, in a few words
   * @param path {@code /<indices>/_search} and URL parameters
   * @param body the JSON body
   * @param refusedClause the clause the service documents as refused that the request uses (its error must name
   *     it), or null
   * @param rankedByScore whether the hits are ordered by score alone (ties in any order)
   * @param features the documented options the request exercises
   */
  public record Request(int number, String label, String path, String body, String refusedClause,
      boolean rankedByScore, List<String> features) {
    @Override
    public String toString() {
      return "#" + number + " " + label + "\n    POST " + path + "\n    " + body;
    }
  }

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final List<String> INDICES = List.of("dsl-a", "dsl-b", "dsl-a,dsl-b", "dsl-*", "_all",
      "dsl-*,-dsl-b", "dsl-b,dsl-a");
  private static final List<String> KEYWORDS = List.of("host", "service", "level", "tags", "user.name",
      "message.raw");
  private static final List<String> NUMBERS = List.of("seq", "status", "bytes", "latency", "user.age");
  private static final List<String> DATES = List.of("@timestamp", "day");
  /** Fields with at most one value a document, that a hit may be sorted on. */
  private static final List<String> SORTABLE = List.of("status", "bytes", "latency", "user.age", "@timestamp", "day",
      "host", "service", "level", "user.name", "message.raw");
  private static final List<String> ZONES = List.of("UTC", "Z", "+01:00", "-05:00", "+05:30", "Europe/Berlin",
      "America/New_York", "Europe/London", "Australia/Sydney", "Asia/Kolkata", "America/Los_Angeles");
  /** Keyword fields with few values (a node's terms counts are exact on them whatever the size). */
  private static final List<String> FEW_VALUES = List.of("host", "service", "level", "tags", "user.name");
  private static final long DAY = 86_400_000L;

  private final Random random;
  private final List<String> features = new ArrayList<>();
  private String refused;
  /**
   * A sort's {@code format} and {@code numeric_type} are drawn from a stream of their own, so that a seed's requests
   * are the ones it drew before these options were generated, some of their sorts with options added.
   */
  private final Random sortOptions;

  private ReferenceRequests(Random random, Random sortOptions) {
    this.random = random;
    this.sortOptions = sortOptions;
  }

  /** {@code count} requests drawn from {@code seed}. */
  public static List<Request> generate(long seed, int count) {
    Random random = new Random(seed);
    Random sortOptions = new Random(~seed);
    List<Request> requests = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      requests.add(new ReferenceRequests(random, sortOptions).request(i));
    }
    return requests;
  }

  private void feature(String name) {
    features.add(name);
  }

  private Request request(int number) {
    ObjectNode body = JSON.objectNode();
    List<String> label = new ArrayList<>();
    if (random.nextInt(40) == 0) {
      refusedQuery(body, label);
    } else if (random.nextInt(7) != 0) {
      ObjectNode query = query(2, label);
      body.set("query", query);
    } else {
      label.add("no query");
    }
    boolean aggs = random.nextInt(2) == 0;
    if (aggs) {
      body.set("aggs", aggregations(label));
    } else if (refused == null && random.nextInt(60) == 0) {
      body.set("aggs", refusedAggregation(label));
    }
    int size = aggs && random.nextInt(3) > 0 ? 0 : random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(25);
    if (random.nextInt(5) > 0 || size == 0) {
      body.put("size", size);
    } else {
      size = 10; // the default
      feature("size default");
    }
    label.add("size " + size);
    boolean rankedByScore = sort(body, size, label);
    totalHits(body, label);
    source(body, label);
    StringBuilder path = new StringBuilder("/").append(pick(INDICES)).append("/_search");
    List<String> params = new ArrayList<>();
    if (random.nextInt(3) == 0) {
      params.add("typed_keys=true");
      feature("typed_keys");
    }
    if (random.nextInt(15) == 0 && !body.path("track_total_hits").isNumber()) { // a node refuses it beside a limit
      params.add("rest_total_hits_as_int=true");
      feature("rest_total_hits_as_int");
    }
    if (!params.isEmpty()) {
      path.append('?').append(String.join("&", params));
    }
    return new Request(number, String.join(" | ", label), path.toString(), body.toString(), refused, rankedByScore,
        List.copyOf(features));
  }

  // ---------------------------------------------------------------------------------------------------- queries

  private ObjectNode query(int depth, List<String> label) {
    int kinds = depth > 0 ? 19 : 16;
    int kind = random.nextInt(kinds);
    return switch (kind) {
      case 0 -> term(label);
      case 1 -> terms(label);
      case 2, 3 -> range(label);
      case 4 -> exists(label);
      case 5 -> prefix(label);
      case 6 -> wildcard(label);
      case 7 -> ids(label);
      case 8 -> match(label);
      case 9 -> matchPhrase(label);
      case 10 -> multiMatch(label);
      case 11, 12 -> queryString(label);
      case 13 -> simpleQueryString(label);
      case 14 -> matchAllOrNone(label);
      case 15 -> term(label);
      case 16 -> constantScore(depth, label);
      case 17 -> disMax(depth, label);
      default -> bool(depth, label);
    };
  }

  private ObjectNode bool(int depth, List<String> label) {
    ObjectNode bool = JSON.objectNode();
    List<String> parts = new ArrayList<>();
    int shoulds = 0;
    boolean required = false;
    for (String occur : List.of("must", "filter", "should", "must_not")) {
      int n = random.nextInt(occur.equals("should") ? 4 : 3);
      if (n == 0) {
        continue;
      }
      feature("bool." + occur);
      List<String> inner = new ArrayList<>();
      if (n == 1 && random.nextInt(3) == 0) {
        bool.set(occur, query(depth - 1, inner)); // a single clause as an object, not an array
        feature("bool." + occur + " object");
      } else {
        ArrayNode clauses = bool.putArray(occur);
        for (int i = 0; i < n; i++) {
          clauses.add(query(depth - 1, inner));
        }
      }
      shoulds = occur.equals("should") ? n : shoulds;
      required |= occur.equals("must") || occur.equals("filter");
      parts.add(occur + "(" + String.join(", ", inner) + ")");
    }
    if (shoulds > 0 && random.nextInt(2) == 0) {
      String msm = switch (random.nextInt(7)) {
        case 0 -> "1";
        case 1 -> Integer.toString(shoulds);
        case 2 -> "-1";
        case 3 -> "50%";
        case 4 -> "-25%";
        case 5 -> "75%";
        default -> "0";
      };
      if (random.nextBoolean() && !msm.endsWith("%")) {
        bool.put("minimum_should_match", Integer.parseInt(msm));
      } else {
        bool.put("minimum_should_match", msm);
      }
      feature("bool.minimum_should_match " + (msm.endsWith("%") ? "percentage" : msm.startsWith("-")
          ? "negative" : "number") + (required ? " with must/filter" : ""));
      parts.add("msm " + msm);
    } else if (shoulds > 0 && required) {
      feature("bool.should optional beside must/filter");
    }
    if (random.nextInt(5) == 0) {
      bool.put("boost", pick(List.of(0.5, 2.0, 3.5)));
      feature("bool.boost");
    }
    label.add("bool{" + String.join(" ", parts) + "}");
    return wrap("bool", bool);
  }

  private ObjectNode constantScore(int depth, List<String> label) {
    List<String> inner = new ArrayList<>();
    ObjectNode cs = JSON.objectNode();
    cs.set("filter", query(depth - 1, inner));
    feature("constant_score");
    if (random.nextBoolean()) {
      cs.put("boost", pick(List.of(0.5, 1.0, 2.0, 4.2)));
      feature("constant_score.boost");
    }
    label.add("constant_score(" + String.join(", ", inner) + ")");
    return wrap("constant_score", cs);
  }

  private ObjectNode disMax(int depth, List<String> label) {
    List<String> inner = new ArrayList<>();
    ObjectNode dm = JSON.objectNode();
    ArrayNode queries = dm.putArray("queries");
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      queries.add(query(depth - 1, inner));
    }
    feature("dis_max");
    if (random.nextBoolean()) {
      dm.put("tie_breaker", pick(List.of(0.0, 0.3, 0.7, 1.0)));
      feature("dis_max.tie_breaker");
    }
    if (random.nextInt(4) == 0) {
      dm.put("boost", 1.5);
      feature("dis_max.boost");
    }
    label.add("dis_max(" + String.join(", ", inner) + ")");
    return wrap("dis_max", dm);
  }

  private ObjectNode matchAllOrNone(List<String> label) {
    if (random.nextInt(4) == 0) {
      feature("match_none");
      label.add("match_none");
      return wrap("match_none", JSON.objectNode());
    }
    ObjectNode all = JSON.objectNode();
    if (random.nextBoolean()) {
      all.put("boost", pick(List.of(0.5, 1.2, 3.0)));
      feature("match_all.boost");
    }
    feature("match_all");
    label.add("match_all " + all);
    return wrap("match_all", all);
  }

  private ObjectNode term(List<String> label) {
    ObjectNode q = JSON.objectNode();
    int kind = random.nextInt(10);
    String field;
    ObjectNode value = JSON.objectNode();
    if (kind < 5) {
      field = pick(KEYWORDS);
      String v = keywordValue(field);
      if (random.nextInt(3) == 0) {
        v = random.nextBoolean() ? v.toUpperCase(Locale.ROOT) : capitalize(v);
        if (random.nextInt(4) > 0) {
          value.put("case_insensitive", true);
          feature("term.case_insensitive");
        } else {
          feature("term other case, case sensitive");
        }
      } else if (random.nextInt(6) == 0) {
        value.put("case_insensitive", false);
        feature("term.case_insensitive false");
      }
      value.put("value", v);
      feature("term keyword");
    } else if (kind < 8) {
      field = pick(NUMBERS);
      Number n = numberValue(field);
      if (random.nextInt(4) == 0) {
        value.put("value", n.toString());
        feature("term number as string");
      } else {
        putNumber(value, "value", n);
        feature("term number");
      }
    } else if (kind == 8) {
      field = "message";
      value.put("value", pick(WORDS));
      feature("term text");
    } else {
      field = pick(DATES);
      if (field.equals("day") || random.nextBoolean()) {
        value.put("value", localDay(instant()).toString());
      } else {
        value.put("value", Instant.ofEpochMilli(START.toEpochMilli() + random.nextInt(5) * 3_600_000L).toString());
      }
      feature("term date");
    }
    if (random.nextInt(4) == 0) {
      value.put("boost", pick(List.of(0.5, 2.0, 10.0)));
      feature("term.boost");
    }
    if (value.size() == 1 && random.nextBoolean()) {
      q.putObject("term").set(field, value.get("value"));
      feature("term short form");
    } else {
      q.putObject("term").set(field, value);
    }
    label.add("term " + field + " " + value);
    return q;
  }

  private ObjectNode terms(List<String> label) {
    ObjectNode q = JSON.objectNode();
    ObjectNode t = q.putObject("terms");
    String field = random.nextInt(3) == 0 ? pick(NUMBERS) : random.nextInt(8) == 0 ? "day" : pick(KEYWORDS);
    ArrayNode values = t.putArray(field);
    for (int i = 1 + random.nextInt(4); i > 0; i--) {
      if (NUMBERS.contains(field)) {
        Number n = numberValue(field);
        if (random.nextInt(5) == 0) {
          values.add(n.toString());
        } else if (n instanceof Double d) {
          values.add(d);
        } else {
          values.add(n.longValue());
        }
      } else if (field.equals("day")) {
        values.add(localDay(instant()).toString());
      } else {
        values.add(keywordValue(field));
      }
    }
    feature("terms " + (NUMBERS.contains(field) ? "number" : field.equals("day") ? "date" : "keyword"));
    if (random.nextInt(4) == 0) {
      t.put("boost", 2.5);
      feature("terms.boost");
    }
    label.add("terms " + t);
    return q;
  }

  private ObjectNode range(List<String> label) {
    int kind = random.nextInt(10);
    if (kind < 4) {
      return numberRange(label);
    } else if (kind < 9) {
      return dateRange(label);
    }
    return keywordRange(label);
  }

  private ObjectNode numberRange(List<String> label) {
    String field = pick(NUMBERS);
    ObjectNode r = JSON.objectNode();
    double min = numberMin(field);
    double max = numberMax(field);
    double a = min + random.nextDouble() * (max - min);
    double b = a + random.nextDouble() * (max - a);
    boolean decimals = field.equals("latency") || random.nextInt(4) == 0;
    String low = random.nextBoolean() ? "gte" : "gt";
    String high = random.nextBoolean() ? "lte" : "lt";
    int sides = random.nextInt(4);
    if (sides != 1) {
      bound(r, low, a, decimals);
    }
    if (sides != 2) {
      bound(r, high, b, decimals);
    }
    if (decimals && !field.equals("latency")) {
      feature("range number fractional bound on an integer field");
    }
    boost(r, "range");
    feature("range number " + r.propertyNames());
    label.add("range " + field + " " + r);
    return wrap("range", JSON.objectNode().set(field, r));
  }

  private void bound(ObjectNode r, String op, double value, boolean decimals) {
    if (decimals) {
      double v = Math.round(value * 1000) / 1000.0;
      if (random.nextInt(5) == 0) {
        r.put(op, Double.toString(v));
        feature("range number bound as string");
      } else {
        r.put(op, v);
      }
    } else {
      long v = Math.round(value);
      if (random.nextInt(5) == 0) {
        r.put(op, Long.toString(v));
        feature("range number bound as string");
      } else {
        r.put(op, v);
      }
    }
  }

  private ObjectNode keywordRange(List<String> label) {
    String field = pick(List.of("host", "service", "level", "user.name", "message.raw", "tags"));
    ObjectNode r = JSON.objectNode();
    String a = keywordValue(field);
    String b = keywordValue(field);
    if (a.compareTo(b) > 0) {
      String t = a;
      a = b;
      b = t;
    }
    if (random.nextInt(4) == 0) {
      a = a.substring(0, 1 + random.nextInt(a.length()));
    }
    int sides = random.nextInt(4);
    if (sides != 1) {
      r.put(random.nextBoolean() ? "gte" : "gt", a);
    }
    if (sides != 2) {
      r.put(random.nextBoolean() ? "lte" : "lt", b);
    }
    feature("range keyword " + r.propertyNames());
    label.add("range " + field + " " + r);
    return wrap("range", JSON.objectNode().set(field, r));
  }

  private ObjectNode dateRange(List<String> label) {
    String field = random.nextInt(4) == 0 ? "day" : "@timestamp";
    ObjectNode r = JSON.objectNode();
    Instant a = instant();
    Instant b = a.plusMillis((long) (random.nextDouble() * random.nextDouble() * (END.toEpochMilli() - a.toEpochMilli()
        + 2 * DAY)));
    // day's mapping format (yyyy-MM-dd||epoch_millis) reads dates alone and epoch numbers; a format of the query's own
    // reads the rest
    int form = field.equals("day") ? pick(List.of(2, 2, 4, 5, 6, 7, 9, 11)) : random.nextInt(11);
    String zone = null;
    String format = null;
    String low = random.nextBoolean() ? "gte" : "gt";
    String high = random.nextBoolean() ? "lte" : "lt";
    int sides = random.nextInt(5);
    boolean lowSide = sides != 1;
    boolean highSide = sides != 2;
    switch (form) {
      case 0 -> { // ISO instants, with and without milliseconds
        if (lowSide) {
          r.put(low, a.toString());
        }
        if (highSide) {
          r.put(high, b.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        }
        feature("range date ISO instant");
      }
      case 1 -> { // local date-times read in a time zone
        zone = pick(ZONES);
        DateTimeFormatter f = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
        if (lowSide) {
          r.put(low, LocalDateTime.ofInstant(a, ZoneOffset.UTC).format(f));
        }
        if (highSide) {
          r.put(high, LocalDateTime.ofInstant(b, ZoneOffset.UTC).format(f));
        }
        feature("range date local with time_zone");
      }
      case 2 -> { // dates alone: gt and lte round up to the day's end
        if (random.nextBoolean()) {
          zone = pick(ZONES);
          feature("range date-only with time_zone");
        }
        if (lowSide) {
          r.put(low, localDay(a).toString());
        }
        if (highSide) {
          r.put(high, localDay(b).toString());
        }
        feature("range date-only " + (lowSide ? low : "") + " " + (highSide ? high : ""));
      }
      case 3 -> { // partial dates: a month, an hour
        if (lowSide) {
          r.put(low, random.nextBoolean() ? "2024-03" : LocalDateTime.ofInstant(a, ZoneOffset.UTC)
              .format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH")));
        }
        if (highSide) {
          r.put(high, random.nextBoolean() ? "2024-04" : LocalDateTime.ofInstant(b, ZoneOffset.UTC)
              .format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm")));
        }
        feature("range partial date");
      }
      case 4 -> { // epoch millis as numbers, and with format epoch_millis as strings
        boolean strings = random.nextBoolean();
        if (strings) {
          format = "epoch_millis";
        }
        if (lowSide) {
          if (strings) {
            r.put(low, Long.toString(a.toEpochMilli()));
          } else {
            r.put(low, a.toEpochMilli());
          }
        }
        if (highSide) {
          if (strings) {
            r.put(high, Long.toString(b.toEpochMilli()));
          } else {
            r.put(high, b.toEpochMilli());
          }
        }
        feature(strings ? "range date format epoch_millis" : "range date epoch number");
      }
      case 5 -> { // epoch seconds
        format = "epoch_second";
        if (lowSide) {
          r.put(low, Long.toString(a.getEpochSecond()));
        }
        if (highSide) {
          r.put(high, b.getEpochSecond());
        }
        feature("range date format epoch_second");
      }
      case 6 -> { // a Java-time pattern, or several
        String pattern = pick(List.of("yyyy-MM-dd HH:mm", "dd/MM/yyyy", "yyyy/MM/dd HH:mm:ss", "yyyyMMdd",
            "yyyy-MM-dd HH:mm||epoch_millis"));
        format = pattern;
        DateTimeFormatter f = DateTimeFormatter.ofPattern(pattern.split("\\|\\|")[0]);
        if (random.nextInt(3) == 0) {
          zone = pick(ZONES);
        }
        if (lowSide) {
          r.put(low, LocalDateTime.ofInstant(a, ZoneOffset.UTC).format(f));
        }
        if (highSide) {
          r.put(high, pattern.endsWith("epoch_millis") && random.nextBoolean() ? Long.toString(b.toEpochMilli())
              : LocalDateTime.ofInstant(b, ZoneOffset.UTC).format(f));
        }
        feature("range date format pattern " + pattern);
      }
      case 7 -> { // built-in format names
        String name = pick(List.of("strict_date_optional_time", "date_optional_time", "basic_date",
            "basic_date_time_no_millis", "strict_date_hour_minute", "date", "strict_date_time"));
        format = name;
        DateTimeFormatter f = switch (name) {
          case "basic_date" -> DateTimeFormatter.ofPattern("yyyyMMdd");
          case "basic_date_time_no_millis" -> DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmssXXX");
          case "strict_date_hour_minute" -> DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm");
          case "date" -> DateTimeFormatter.ofPattern("yyyy-MM-dd");
          case "strict_date_time" -> DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
          default -> DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
        };
        if (lowSide) {
          r.put(low, a.atOffset(ZoneOffset.UTC).format(f));
        }
        if (highSide) {
          r.put(high, b.atOffset(ZoneOffset.UTC).format(f));
        }
        feature("range date format " + name);
      }
      case 8 -> { // date math on an anchor, with rounding
        String unit = pick(List.of("d", "h", "M", "w", "m", "y"));
        if (lowSide) {
          r.put(low, localDay(a) + "||" + pick(List.of("", "+1d", "-2h", "+3h", "-1w")) + "/" + unit);
        }
        if (highSide) {
          r.put(high, b.truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + "||" + pick(List.of("", "+1M", "-1d",
              "+12h")) + "/" + pick(List.of("d", "h", "M")));
        }
        if (random.nextInt(3) == 0) {
          zone = pick(ZONES);
          feature("range date math rounding in a time_zone");
        }
        feature("range date math rounding " + (lowSide ? low : "") + " " + (highSide ? high : ""));
      }
      case 9 -> { // now, far enough back to reach the data
        long span = 1 + random.nextInt(20);
        // rounded to whole days, weeks or months, so that the node and the service, asked a moment apart, read the
        // same bound
        String highRounding = highSide ? pick(List.of("/d", "/w", "/M")) : null;
        if (random.nextInt(3) == 0) {
          zone = pick(ZONES);
          feature("range now with time_zone");
        }
        // counted in calendar days of the zone the bound rounds in, so that now-<days>d/d is a's day whatever the day
        // and the hour the test runs: a seed's requests mean the same every time
        ZoneId in = ZoneId.of(zone == null || zone.equals("Z") ? "UTC" : zone);
        long daysAgo = java.time.temporal.ChronoUnit.DAYS.between(a.atZone(in).toLocalDate(), LocalDate.now(in));
        if (lowSide) {
          r.put(low, "now-" + daysAgo + "d/d");
        }
        if (highSide) {
          r.put(high, "now-" + Math.max(0, daysAgo - span) + "d" + highRounding);
        }
        feature("range date math now");
      }
      case 11 -> { // date math on dates alone
        if (lowSide) {
          r.put(low, localDay(a) + "||" + pick(List.of("", "+1d", "-1w")) + pick(List.of("", "/d", "/M", "/w")));
        }
        if (highSide) {
          r.put(high, localDay(b) + "||" + pick(List.of("", "+1d", "-2d")) + pick(List.of("", "/d", "/M")));
        }
        feature("range date math on a date");
      }
      default -> { // date math without rounding
        if (lowSide) {
          r.put(low, a.toString() + "||-" + (1 + random.nextInt(48)) + "h");
        }
        if (highSide) {
          r.put(high, localDay(b) + "||+" + (1 + random.nextInt(3)) + "d");
        }
        feature("range date math");
      }
    }
    if (field.equals("day") && format == null && form != 1 && random.nextBoolean()) {
      feature("range on day (mapping format yyyy-MM-dd||epoch_millis)");
    }
    if (zone != null) {
      r.put("time_zone", zone);
      feature("range.time_zone " + (zone.contains("/") ? "region" : "offset"));
    }
    if (format != null) {
      r.put("format", format);
    }
    if (random.nextInt(12) == 0) {
      r.put("relation", pick(List.of("INTERSECTS", "within", "CONTAINS")));
      feature("range.relation " + r.get("relation").asString());
    }
    if (r.size() == (zone == null ? 0 : 1) + (format == null ? 0 : 1)) {
      r.put("gte", "2024-03-20"); // no side was drawn
    }
    boost(r, "range");
    label.add("range " + field + " " + r);
    return wrap("range", JSON.objectNode().set(field, r));
  }

  private void boost(ObjectNode clause, String name) {
    if (random.nextInt(8) == 0) {
      clause.put("boost", pick(List.of(0.5, 2.0, 3.0)));
      feature(name + ".boost");
    }
  }

  private ObjectNode exists(List<String> label) {
    String field = pick(List.of("service", "bytes", "tags", "user.name", "message", "latency", "day", "message.raw",
        "user", "@timestamp", "no_such_field"));
    feature("exists " + (field.equals("user") ? "object" : field.equals("no_such_field") ? "unmapped" : "field"));
    label.add("exists " + field);
    ObjectNode e = JSON.objectNode().put("field", field);
    boost(e, "exists");
    return wrap("exists", e);
  }

  private ObjectNode prefix(List<String> label) {
    String field = pick(List.of("host", "message.raw", "tags", "service", "user.name", "message", "level"));
    String value = switch (field) {
      case "host" -> pick(List.of("web", "web-0", "db", "x", "WEB", "Db-"));
      case "message.raw" -> pick(List.of("user", "disk", "connection t", "cache", "Disk", "USER login"));
      case "message" -> pick(List.of("tim", "log", "conn", "Us", "DISK"));
      case "tags" -> pick(List.of("a", "ga", "e", "z", "Al", "BETA"));
      case "level" -> pick(List.of("e", "in", "W"));
      default -> pick(List.of("a", "b", "se", "A", "S"));
    };
    ObjectNode q = JSON.objectNode();
    if (random.nextInt(3) == 0) {
      q.putObject("prefix").put(field, value);
      feature("prefix short form");
    } else {
      ObjectNode p = q.putObject("prefix").putObject(field).put("value", value);
      if (random.nextBoolean()) {
        p.put("case_insensitive", true);
        feature("prefix.case_insensitive");
      }
      boost(p, "prefix");
    }
    feature("prefix " + (field.equals("message") ? "text" : "keyword"));
    label.add("prefix " + q.get("prefix"));
    return q;
  }

  private ObjectNode wildcard(List<String> label) {
    String field = pick(List.of("host", "message.raw", "tags", "service", "message", "user.name"));
    String pattern = switch (field) {
      case "host" -> pick(List.of("web-0*", "*-01", "w?b-0?", "*", "WEB-*", "*0?"));
      case "message.raw" -> pick(List.of("*login*", "disk*", "*peer*", "*LOGIN*", "? *"));
      case "message" -> pick(List.of("tim*", "*ed", "l?gin", "*", "Cach*"));
      case "user.name" -> pick(List.of("?nn", "*e", "B*"));
      default -> pick(List.of("?eta", "*a", "g*", "*", "A*", "s*h"));
    };
    ObjectNode q = JSON.objectNode();
    if (random.nextInt(4) == 0) {
      q.putObject("wildcard").put(field, pattern);
      feature("wildcard short form");
    } else {
      ObjectNode w = q.putObject("wildcard").putObject(field);
      w.put(random.nextInt(4) == 0 ? "wildcard" : "value", pattern);
      if (random.nextBoolean()) {
        w.put("case_insensitive", true);
        feature("wildcard.case_insensitive");
      }
      boost(w, "wildcard");
    }
    feature("wildcard " + (field.equals("message") ? "text" : "keyword"));
    label.add("wildcard " + q.get("wildcard"));
    return q;
  }

  private ObjectNode ids(List<String> label) {
    ArrayNode values = JSON.arrayNode();
    for (int i = 1 + random.nextInt(8); i > 0; i--) {
      values.add(DslDataset.id(random.nextInt(DOCS_A + DOCS_B + 20)));
    }
    feature("ids");
    label.add("ids " + values);
    ObjectNode ids = JSON.objectNode();
    ids.set("values", values);
    return wrap("ids", ids);
  }

  private ObjectNode match(List<String> label) {
    ObjectNode q = JSON.objectNode();
    String field = random.nextInt(6) == 0 ? pick(List.of("host", "level", "message.raw")) : "message";
    String text = field.equals("message") ? text(1 + random.nextInt(4)) : keywordValue(field);
    if (random.nextInt(4) == 0) {
      q.putObject("match").put(field, text);
      feature("match short form");
    } else {
      ObjectNode m = q.putObject("match").putObject(field).put("query", text);
      if (random.nextBoolean()) {
        m.put("operator", pick(List.of("and", "or", "AND", "OR")));
        feature("match.operator " + m.get("operator").asString().toLowerCase(Locale.ROOT));
      }
      if (random.nextInt(3) == 0) {
        Object msm = pick(List.of(1, 2, -1, "2", "50%", "-30%", "75%", "100%"));
        if (msm instanceof Integer i) {
          m.put("minimum_should_match", i);
        } else {
          m.put("minimum_should_match", (String) msm);
        }
        feature("match.minimum_should_match" + (m.has("operator") ? " with operator" : ""));
      }
      boost(m, "match");
    }
    feature("match " + (field.equals("message") ? "text" : "keyword"));
    label.add("match " + q.get("match"));
    return q;
  }

  private ObjectNode matchPhrase(List<String> label) {
    ObjectNode q = JSON.objectNode();
    String phrase = phrase();
    if (random.nextInt(3) == 0) {
      q.putObject("match_phrase").put("message", phrase);
      feature("match_phrase short form");
    } else {
      ObjectNode m = q.putObject("match_phrase").putObject("message").put("query", phrase);
      if (random.nextBoolean()) {
        m.put("slop", pick(List.of(0, 1, 2, 3, 5)));
        feature("match_phrase.slop");
      }
      boost(m, "match_phrase");
    }
    feature("match_phrase");
    label.add("match_phrase " + q.get("match_phrase"));
    return q;
  }

  private ObjectNode multiMatch(List<String> label) {
    ObjectNode mm = JSON.objectNode();
    boolean keywords = random.nextInt(3) == 0;
    String text = keywords ? pick(LEVELS) + " " + pick(HOSTS) + (random.nextBoolean() ? " " + pick(WORDS) : "")
        : text(1 + random.nextInt(3));
    mm.put("query", text);
    ArrayNode fields = mm.putArray("fields");
    List<String> choices = keywords
        ? List.of("message", "level", "host^2", "message.raw", "lev*", "ho*^3")
        : List.of("message", "message^2", "message.raw", "mess*", "message*^1.5");
    TreeSet<String> chosen = new TreeSet<>();
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      String f = pick(choices);
      if (chosen.add(f.split("\\^")[0])) {
        fields.add(f);
      }
    }
    feature("multi_match" + (fields.toString().contains("*") ? " field pattern" : "")
        + (fields.toString().contains("^") ? " field boost" : ""));
    if (random.nextBoolean()) {
      mm.put("type", "best_fields");
      feature("multi_match.type best_fields");
    }
    if (random.nextBoolean()) {
      mm.put("tie_breaker", pick(List.of(0.0, 0.3, 1.0)));
      feature("multi_match.tie_breaker");
    }
    boost(mm, "multi_match");
    label.add("multi_match " + mm);
    return wrap("multi_match", mm);
  }

  /** A query string in Lucene's syntax: every term names its field, or the request names a default field. */
  private ObjectNode queryString(List<String> label) {
    ObjectNode qs = JSON.objectNode();
    String defaultField = null;
    if (random.nextInt(4) == 0) {
      defaultField = pick(List.of("message", "host", "level"));
      qs.put("default_field", defaultField);
      feature("query_string.default_field");
    }
    String query = random.nextInt(25) == 0 ? "*" : qsExpression(2, defaultField);
    if (query.equals("*")) {
      feature("query_string *");
    }
    qs.put("query", query);
    if (random.nextInt(3) == 0) {
      qs.put("default_operator", pick(List.of("AND", "OR", "and")));
      feature("query_string.default_operator " + qs.get("default_operator").asString().toUpperCase(Locale.ROOT));
    }
    if (random.nextInt(10) == 0) {
      qs.put("time_zone", pick(ZONES));
      feature("query_string.time_zone");
    }
    boost(qs, "query_string");
    label.add("query_string " + qs);
    return wrap("query_string", qs);
  }

  private String qsExpression(int depth, String defaultField) {
    if (depth == 0 || random.nextInt(3) == 0) {
      return qsClause(defaultField);
    }
    int n = 2 + random.nextInt(2);
    List<String> parts = new ArrayList<>();
    int style = random.nextInt(4);
    for (int i = 0; i < n; i++) {
      String part = qsExpression(depth - 1, defaultField);
      if (style == 3) {
        String sign = pick(List.of("+", "-", "", "+"));
        part = sign + (part.contains(" ") ? "(" + part + ")" : part);
      } else if (part.contains(" ")) {
        part = "(" + part + ")";
      }
      parts.add(part);
    }
    String expression = switch (style) {
      case 0 -> String.join(pick(List.of(" AND ", " && ")), parts);
      case 1 -> String.join(pick(List.of(" OR ", " || ")), parts);
      case 2 -> String.join(" ", parts); // default_operator decides
      default -> String.join(" ", parts);
    };
    feature("query_string operators " + List.of("AND", "OR", "implicit", "+/-").get(style));
    if (random.nextInt(8) == 0) {
      feature("query_string NOT");
      return pick(List.of("NOT ", "!")) + "(" + expression + ")";
    }
    return expression;
  }

  private String qsClause(String defaultField) {
    int kind = random.nextInt(defaultField == null ? 12 : 14);
    switch (kind) {
      case 0, 1 -> {
        String field = pick(List.of("host", "service", "level", "tags", "user.name"));
        feature("query_string field:value keyword");
        return field + ":" + keywordValue(field);
      }
      case 2 -> {
        String field = pick(List.of("status", "user.age", "seq"));
        feature("query_string field:value number");
        return field + ":" + numberValue(field);
      }
      case 3 -> {
        feature("query_string field:value text");
        String words = text(1 + random.nextInt(2));
        return "message:" + (words.contains(" ") ? "(" + words + ")" : words);
      }
      case 4 -> {
        feature("query_string field:\"phrase\"");
        return "message:\"" + phrase() + "\"" + (random.nextInt(4) == 0 ? "~" + (1 + random.nextInt(3)) : "");
      }
      case 5 -> {
        String field = pick(List.of("status", "bytes", "user.age", "latency"));
        double min = numberMin(field);
        double max = numberMax(field);
        long a = Math.round(min + random.nextDouble() * (max - min));
        long b = Math.round(a + random.nextDouble() * (max - a));
        String open = pick(List.of("[", "{"));
        String close = pick(List.of("]", "}"));
        String from = random.nextInt(6) == 0 ? "*" : Long.toString(a);
        String to = random.nextInt(6) == 0 ? "*" : Long.toString(b);
        feature("query_string range " + open + close + " number");
        return field + ":" + open + from + " TO " + to + close;
      }
      case 6 -> {
        String field = pick(List.of("status", "bytes", "user.age", "latency", "seq"));
        double min = numberMin(field);
        double max = numberMax(field);
        String op = pick(List.of(">", ">=", "<", "<="));
        long v = Math.round(min + random.nextDouble() * (max - min));
        feature("query_string range " + op + " number");
        if (random.nextInt(4) == 0) {
          long w = Math.round(v + random.nextDouble() * (max - v));
          feature("query_string range (>= AND <)");
          return field + ":(>=" + v + " AND <" + w + ")";
        }
        return field + ":" + op + v;
      }
      case 7 -> {
        String field = random.nextInt(3) == 0 ? "day" : "@timestamp";
        Instant a = instant();
        Instant b = a.plusMillis((long) (random.nextDouble() * 10 * DAY));
        String open = pick(List.of("[", "{"));
        String close = pick(List.of("]", "}"));
        boolean dateOnly = random.nextBoolean();
        dateOnly |= field.equals("day"); // its mapping's format reads dates alone
        String from = dateOnly ? localDay(a).toString() : "\"" + a.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            + "\"";
        String to = dateOnly ? localDay(b).toString() : "\"" + b.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            + "\"";
        if (random.nextInt(6) == 0) {
          to = "*";
        }
        feature("query_string range " + open + close + (dateOnly ? " date-only" : " date-time"));
        return (field.equals("@timestamp") ? "@timestamp" : field) + ":" + open + from + " TO " + to + close;
      }
      case 8 -> {
        String op = pick(List.of(">", ">=", "<", "<="));
        feature("query_string range " + op + " date-only");
        return "@timestamp:" + op + localDay(instant());
      }
      case 9 -> {
        String field = pick(List.of("host", "tags", "message", "service", "user.name"));
        String pattern = switch (field) {
          case "host" -> pick(List.of("web-0*", "w?b-01", "*-01", "db*"));
          case "tags" -> pick(List.of("*eta", "g*", "?lpha"));
          case "message" -> pick(List.of("tim*", "log?n", "conn*"));
          case "service" -> pick(List.of("*th", "a*", "bill*"));
          default -> pick(List.of("?nn", "e*"));
        };
        feature("query_string wildcard");
        return field + ":" + pattern;
      }
      case 10 -> {
        feature("query_string _exists_");
        return "_exists_:" + pick(List.of("service", "bytes", "tags", "user.name", "user"));
      }
      case 11 -> {
        String field = pick(List.of("host", "level", "status"));
        feature("query_string field:(a OR b)");
        String a = field.equals("status") ? pick(STATUSES).toString() : keywordValue(field);
        String b = field.equals("status") ? pick(STATUSES).toString() : keywordValue(field);
        return field + ":(" + a + " OR " + b + ")";
      }
      default -> {
        feature("query_string term in default_field");
        return switch (defaultField) {
          case "message" -> text(1 + random.nextInt(2));
          case "host" -> pick(HOSTS);
          default -> pick(LEVELS);
        };
      }
    }
  }

  private ObjectNode simpleQueryString(List<String> label) {
    ObjectNode sqs = JSON.objectNode();
    List<String> parts = new ArrayList<>();
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      String part = switch (random.nextInt(6)) {
        case 0 -> "\"" + phrase() + "\"";
        case 1 -> {
          String w = pick(WORDS);
          yield w.substring(0, Math.min(w.length(), 1 + random.nextInt(3))) + "*";
        }
        case 2 -> "(" + pick(WORDS) + " | " + pick(WORDS) + ")";
        default -> pick(WORDS);
      };
      String sign = pick(List.of("", "", "+", "-"));
      parts.add(sign + part);
    }
    String query = String.join(random.nextInt(3) == 0 ? " | " : " ", parts);
    sqs.put("query", query);
    ArrayNode fields = sqs.putArray("fields");
    fields.add(pick(List.of("message", "message^2", "mess*")));
    if (random.nextInt(3) == 0) {
      fields.add(pick(List.of("level", "host", "message.raw")));
      feature("simple_query_string several fields");
    }
    if (random.nextInt(3) == 0) {
      sqs.put("default_operator", pick(List.of("AND", "OR", "and")));
      feature("simple_query_string.default_operator");
    }
    feature("simple_query_string" + (query.contains("\"") ? " phrase" : "") + (query.contains("*") ? " prefix" : "")
        + (query.contains("|") ? " or" : "") + (query.contains("-") ? " not" : ""));
    boost(sqs, "simple_query_string");
    label.add("simple_query_string " + sqs);
    return wrap("simple_query_string", sqs);
  }

  /** A query the service documents as refused, somewhere in an otherwise supported query. */
  private void refusedQuery(ObjectNode body, List<String> label) {
    String[] refusal = pick(List.of(
        new String[] {"fuzzy", "{\"fuzzy\": {\"message\": {\"value\": \"timout\"}}}"},
        new String[] {"regexp", "{\"regexp\": {\"host\": \"web-0[12]\"}}"},
        new String[] {"function_score", "{\"function_score\": {\"query\": {\"match_all\": {}}, \"weight\": 2}}"},
        new String[] {"combined_fields", "{\"combined_fields\": {\"query\": \"disk full\", \"fields\": [\"message\"]}}"},
        new String[] {"most_fields", "{\"multi_match\": {\"query\": \"disk full\", \"type\": \"most_fields\","
            + " \"fields\": [\"message\", \"message.raw\"]}}"},
        new String[] {"span_term", "{\"span_term\": {\"message\": \"disk\"}}"},
        new String[] {"intervals", "{\"intervals\": {\"message\": {\"match\": {\"query\": \"disk full\"}}}}"},
        new String[] {"more_like_this", "{\"more_like_this\": {\"fields\": [\"message\"], \"like\": \"disk full\","
            + " \"min_term_freq\": 1, \"min_doc_freq\": 1}}"}));
    refused = refusal[0];
    ObjectNode clause = (ObjectNode) tools.jackson.databind.json.JsonMapper.builder().build().readTree(refusal[1]);
    if (random.nextBoolean()) {
      ObjectNode bool = JSON.objectNode();
      bool.putArray("filter").add(term(new ArrayList<>()));
      bool.putArray("must").add(clause);
      body.set("query", wrap("bool", bool));
    } else {
      body.set("query", clause);
    }
    feature("refused query " + refused);
    label.add("refused " + refused);
  }

  // ----------------------------------------------------------------------------------------------- aggregations

  private ObjectNode aggregations(List<String> label) {
    ObjectNode aggs = JSON.objectNode();
    List<String> names = new ArrayList<>();
    for (int i = 1 + random.nextInt(random.nextInt(4) == 0 ? 3 : 1); i > 0; i--) {
      String name = pick(List.of("a", "per_", "by-", "x")) + aggs.size();
      List<String> inner = new ArrayList<>();
      aggs.set(name, aggregation(true, inner));
      names.add(name + ":" + String.join("", inner));
    }
    label.add("aggs{" + String.join("; ", names) + "}");
    return aggs;
  }

  private ObjectNode aggregation(boolean top, List<String> label) {
    int kind = random.nextInt(top ? 10 : 12);
    ObjectNode agg = switch (kind) {
      case 0, 1 -> dateHistogram(label);
      case 2 -> histogram(label);
      case 3, 4 -> termsAgg(label);
      case 5 -> rangeAgg(label);
      case 6 -> dateRangeAgg(label);
      case 7 -> filterAgg(label);
      case 8 -> filtersAgg(label);
      default -> metric(label);
    };
    boolean bucketing = kind <= 8;
    if (top && bucketing && random.nextInt(2) == 0) {
      ObjectNode sub = agg.putObject("aggs");
      List<String> inner = new ArrayList<>();
      for (int i = 1 + random.nextInt(2); i > 0; i--) {
        sub.set("s" + sub.size(), aggregation(false, inner));
      }
      feature("sub-aggregation");
      label.add(" > [" + String.join(", ", inner) + "]");
    }
    return agg;
  }

  private ObjectNode dateHistogram(List<String> label) {
    ObjectNode h = JSON.objectNode();
    String field = random.nextInt(4) == 0 ? "day" : "@timestamp";
    h.put("field", field);
    boolean calendar = random.nextBoolean();
    String interval;
    if (calendar) {
      interval = pick(List.of("day", "1d", "week", "1w", "month", "1M", "quarter", "year", "hour", "1h"));
      h.put("calendar_interval", interval);
      feature("date_histogram.calendar_interval " + interval);
    } else {
      interval = pick(List.of("1h", "3h", "12h", "1d", "2d", "7d", "90m", "30m", "36h", "86400s"));
      h.put("fixed_interval", interval);
      feature("date_histogram.fixed_interval");
    }
    boolean hourly = interval.endsWith("h") && interval.length() <= 2 || interval.endsWith("m")
        || interval.equals("hour");
    if (random.nextBoolean()) {
      String zone = pick(ZONES);
      h.put("time_zone", zone);
      feature("date_histogram.time_zone " + (zone.contains("/") ? "region (DST)" : "offset"));
    }
    if (random.nextInt(4) == 0) {
      String offset = pick(List.of("+6h", "-3h", "+1d", "+30m", "-1h", "+2d", "+19d"));
      h.put("offset", offset);
      feature("date_histogram.offset" + (h.has("time_zone") ? " with time_zone" : ""));
    }
    if (random.nextInt(3) == 0) {
      String format = pick(List.of("yyyy-MM-dd", "epoch_millis", "yyyy-MM-dd'T'HH:mm", "strict_date_hour_minute",
          "yyyy-MM-dd HH:mm:ss Z", "basic_date_time", "yyyy-MM-dd'T'HH:mm:ssXXX", "MMM dd yyyy"));
      h.put("format", format);
      feature("date_histogram.format");
    }
    int minDocCount = pick(List.of(0, 0, 1, 1, 1, 5, 40));
    boolean bounds = random.nextInt(4) == 0;
    if (bounds) {
      minDocCount = 0;
      ObjectNode b = h.putObject("extended_bounds");
      Instant min = START.minusMillis((hourly ? 1 : 20) * DAY / (hourly ? 2 : 1));
      Instant max = END.plusMillis((hourly ? 1 : 10) * DAY);
      if (random.nextBoolean() || h.has("format")) { // dates as strings are read with the aggregation's format
        b.put("min", min.toEpochMilli()).put("max", max.toEpochMilli());
        feature("date_histogram.extended_bounds millis");
      } else {
        b.put("min", localDay(min).toString()).put("max", localDay(max).toString());
        feature("date_histogram.extended_bounds dates");
      }
    }
    if (minDocCount != 1 || random.nextInt(4) == 0) {
      h.put("min_doc_count", minDocCount);
      feature("date_histogram.min_doc_count " + minDocCount);
    }
    order(h, "date_histogram");
    label.add("date_histogram " + h);
    return wrap("date_histogram", h);
  }

  private void order(ObjectNode agg, String name) {
    if (random.nextInt(4) == 0) {
      String key = random.nextBoolean() ? "_key" : "_count";
      String dir = random.nextBoolean() ? "asc" : "desc";
      agg.putObject("order").put(key, dir);
      feature(name + ".order " + key + " " + dir);
    }
  }

  private ObjectNode histogram(List<String> label) {
    ObjectNode h = JSON.objectNode();
    String field = pick(List.of("bytes", "latency", "user.age", "status", "seq"));
    h.put("field", field);
    double interval = switch (field) {
      case "bytes" -> pick(List.of(5000.0, 10000.0, 2500.5, 33333.0));
      case "latency" -> pick(List.of(0.25, 0.5, 1.0, 0.1));
      case "user.age" -> pick(List.of(5.0, 10.0, 7.0, 2.5));
      case "status" -> pick(List.of(100.0, 50.0, 1.0));
      default -> pick(List.of(500.0, 1000.0, 250.0));
    };
    if (interval == Math.rint(interval) && random.nextBoolean()) {
      h.put("interval", (long) interval);
    } else {
      h.put("interval", interval);
    }
    feature("histogram");
    if (random.nextInt(4) == 0) {
      h.put("offset", interval / pick(List.of(2.0, 4.0, 3.0)));
      feature("histogram.offset");
    }
    if (random.nextInt(4) == 0) {
      h.put("min_doc_count", 0);
      if (random.nextBoolean()) {
        double min = numberMin(field) - 2 * interval;
        double max = numberMax(field) + 2 * interval;
        h.putObject("extended_bounds").put("min", min).put("max", max);
        feature("histogram.extended_bounds");
      }
      feature("histogram.min_doc_count 0");
    } else if (random.nextInt(4) == 0) {
      h.put("min_doc_count", pick(List.of(1, 3, 50)));
      feature("histogram.min_doc_count");
    }
    order(h, "histogram");
    label.add("histogram " + h);
    return wrap("histogram", h);
  }

  private ObjectNode termsAgg(List<String> label) {
    ObjectNode t = JSON.objectNode();
    int kind = random.nextInt(10);
    String field;
    int cardinality;
    if (kind < 6) {
      field = pick(FEW_VALUES);
      cardinality = switch (field) {
        case "host", "user.name" -> 5;
        case "service" -> 4;
        case "level" -> 3;
        default -> 6;
      };
      feature("terms agg keyword");
    } else if (kind < 8) {
      field = pick(List.of("status", "user.age"));
      cardinality = field.equals("status") ? STATUSES.size() : AGE_MAX - AGE_MIN + 1;
      feature("terms agg number");
    } else if (kind == 8) {
      field = "day";
      cardinality = 41;
      feature("terms agg date");
    } else {
      field = "message.raw";
      cardinality = 101;
      feature("terms agg keyword, many values");
    }
    t.put("field", field);
    int size = random.nextInt(3) == 0 ? 10 : pick(List.of(1, 2, 3, 5, 8, 20, 50, 200));
    if (size != 10) {
      t.put("size", size);
      feature("terms.size");
    }
    // A node's counts are exact when every shard returns every term (its shard_size, size * 1.5 + 10, covers them):
    // there the order may be by count. Else by key, as docs/elasticsearch-api.md says the differential test orders.
    boolean exact = size * 1.5 + 10 >= cardinality;
    if (!exact) {
      t.putObject("order").put("_key", random.nextBoolean() ? "asc" : "desc");
      feature("terms.order _key");
    } else {
      order(t, "terms");
    }
    // Above 1, only where every shard returns every term: a node leaves the documents of terms a shard did not return
    // in sum_other_doc_count, but not those of terms the reduction dropped for min_doc_count (an estimate).
    if (random.nextInt(5) == 0) {
      int minDocCount = exact ? pick(List.of(0, 2, 100)) : 0;
      t.put("min_doc_count", minDocCount);
      feature("terms.min_doc_count " + (minDocCount == 0 ? "0" : "n"));
    }
    if (random.nextInt(5) == 0) {
      if (field.equals("status") || field.equals("user.age")) {
        t.put("missing", pick(List.of(0, 999)));
      } else if (field.equals("day")) {
        t.put("missing", "2024-01-01");
      } else {
        t.put("missing", pick(List.of("none", "N/A", "zzz")));
      }
      feature("terms.missing");
    }
    label.add("terms " + t);
    return wrap("terms", t);
  }

  private ObjectNode rangeAgg(List<String> label) {
    ObjectNode r = JSON.objectNode();
    String field = pick(List.of("bytes", "latency", "user.age", "status"));
    r.put("field", field);
    ArrayNode ranges = r.putArray("ranges");
    double min = numberMin(field);
    double max = numberMax(field);
    for (int i = 1 + random.nextInt(4); i > 0; i--) {
      ObjectNode range = ranges.addObject();
      double a = min + random.nextDouble() * (max - min);
      double b = a + random.nextDouble() * (max - a);
      boolean decimals = field.equals("latency");
      int sides = random.nextInt(4);
      if (sides != 1) {
        range.put("from", decimals ? Math.round(a * 100) / 100.0 : Math.round(a));
      }
      if (sides != 2) {
        range.put("to", decimals ? Math.round(b * 100) / 100.0 : Math.round(b));
      }
      if (random.nextInt(3) == 0) {
        range.put("key", "r" + i);
        feature("range agg.key");
      }
    }
    feature("range agg");
    label.add("range " + r);
    return wrap("range", r);
  }

  private ObjectNode dateRangeAgg(List<String> label) {
    ObjectNode r = JSON.objectNode();
    r.put("field", random.nextInt(4) == 0 ? "day" : "@timestamp");
    ArrayNode ranges = r.putArray("ranges");
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      ObjectNode range = ranges.addObject();
      Instant a = instant();
      Instant b = a.plusMillis((long) (random.nextDouble() * 15 * DAY));
      int form = r.get("field").asString().equals("day") ? 1 + random.nextInt(3) : random.nextInt(4);
      int sides = random.nextInt(4);
      if (sides != 1) {
        switch (form) {
          case 0 -> range.put("from", a.toString());
          case 1 -> range.put("from", localDay(a).toString());
          case 2 -> range.put("from", a.toEpochMilli());
          default -> range.put("from", localDay(a) + "||+1d/d");
        }
      }
      if (sides != 2) {
        switch (form) {
          case 0 -> range.put("to", b.toString());
          case 1 -> range.put("to", localDay(b).toString());
          case 2 -> range.put("to", b.toEpochMilli());
          default -> range.put("to", localDay(b) + "||/M");
        }
      }
      feature("date_range agg " + List.of("instant", "date", "millis", "date math").get(form));
      if (random.nextInt(3) == 0) {
        range.put("key", "d" + i);
        feature("date_range agg.key");
      }
    }
    label.add("date_range " + r);
    return wrap("date_range", r);
  }

  private ObjectNode filterAgg(List<String> label) {
    List<String> inner = new ArrayList<>();
    ObjectNode filter = query(1, inner);
    feature("filter agg");
    label.add("filter(" + String.join(", ", inner) + ")");
    return wrap("filter", filter);
  }

  private ObjectNode filtersAgg(List<String> label) {
    ObjectNode f = JSON.objectNode();
    List<String> inner = new ArrayList<>();
    int n = 1 + random.nextInt(3);
    if (random.nextBoolean()) {
      ObjectNode named = f.putObject("filters");
      for (int i = 0; i < n; i++) {
        named.set(pick(List.of("errors", "slow", "web", "b", "a")) + i, query(0, inner));
      }
      feature("filters agg named");
    } else {
      ArrayNode anonymous = f.putArray("filters");
      for (int i = 0; i < n; i++) {
        anonymous.add(query(0, inner));
      }
      feature("filters agg anonymous");
    }
    label.add("filters(" + String.join(", ", inner) + ")");
    return wrap("filters", f);
  }

  private ObjectNode metric(List<String> label) {
    String type = pick(List.of("min", "max", "avg", "sum", "value_count", "stats"));
    int kind = random.nextInt(6);
    String field;
    if (kind < 3) {
      field = pick(NUMBERS);
    } else if (kind < 5) {
      field = pick(DATES);
    } else {
      field = type.equals("value_count") ? pick(KEYWORDS) : pick(NUMBERS);
    }
    feature(type + " on " + (NUMBERS.contains(field) ? "number" : DATES.contains(field) ? "date" : "keyword"));
    label.add(type + " " + field);
    return wrap(type, JSON.objectNode().put("field", field));
  }

  /** An aggregation the service documents as refused. */
  private ObjectNode refusedAggregation(List<String> label) {
    String[] refusal = pick(List.of(
        new String[] {"cardinality", "{\"c\": {\"cardinality\": {\"field\": \"host\"}}}"},
        new String[] {"percentiles", "{\"p\": {\"percentiles\": {\"field\": \"latency\"}}}"},
        new String[] {"top_hits", "{\"t\": {\"terms\": {\"field\": \"host\"}, \"aggs\": {\"top\": {\"top_hits\":"
            + " {\"size\": 1}}}}}"},
        new String[] {"composite", "{\"c\": {\"composite\": {\"sources\": [{\"h\": {\"terms\": {\"field\":"
            + " \"host\"}}}]}}}"},
        new String[] {"significant_terms", "{\"s\": {\"significant_terms\": {\"field\": \"tags\"}}}"},
        new String[] {"keyed", "{\"k\": {\"histogram\": {\"field\": \"status\", \"interval\": 100, \"keyed\": true}}}"},
        new String[] {"[l]", "{\"h\": {\"terms\": {\"field\": \"host\"}, \"aggs\": {\"l\": {\"terms\":"
            + " {\"field\": \"level\"}, \"aggs\": {\"deepest\": {\"max\": {\"field\": \"bytes\"}}}}}}}"},
        new String[] {"avg_bucket", "{\"h\": {\"terms\": {\"field\": \"host\"}}, \"avg_bucket\": {\"avg_bucket\":"
            + " {\"buckets_path\": \"h>_count\"}}}"}));
    refused = refusal[0];
    feature("refused aggregation " + (refused.equals("[l]") ? "nested twice" : refused));
    label.add("refused " + refused);
    return (ObjectNode) tools.jackson.databind.json.JsonMapper.builder().build().readTree(refusal[1]);
  }

  // ------------------------------------------------------------------------------------- sort, totals, _source

  /** Adds a sort (or none), and {@code from} or {@code search_after}; whether the hits come by score alone. */
  private boolean sort(ObjectNode body, int size, List<String> label) {
    int kind = random.nextInt(10);
    boolean rankedByScore;
    List<String> keys = new ArrayList<>();
    if (kind < 4) {
      rankedByScore = true;
      if (kind == 3) {
        ArrayNode sort = body.putArray("sort");
        if (random.nextBoolean()) {
          sort.add("_score");
        } else {
          sort.addObject().put("_score", "desc");
        }
        feature("sort _score alone");
        keys.add("_score");
      } else {
        feature("sort none (score)");
        keys.add("(score)");
      }
    } else {
      rankedByScore = false;
      ArrayNode sort = body.putArray("sort");
      if (kind == 4) {
        ObjectNode s = sort.addObject();
        if (random.nextBoolean()) {
          s.put("_score", random.nextInt(4) == 0 ? "asc" : "desc");
        } else {
          s.putObject("_score").put("order", random.nextInt(4) == 0 ? "asc" : "desc");
        }
        feature("sort _score then seq");
        keys.add("_score " + s);
      }
      int n = kind == 4 ? random.nextInt(2) : 1 + random.nextInt(2);
      List<String> used = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String field = pick(SORTABLE);
        if (used.contains(field)) {
          continue;
        }
        used.add(field);
        String order = random.nextBoolean() ? "asc" : "desc";
        switch (random.nextInt(5)) {
          case 0 -> {
            sort.add(field); // ascending by default
            order = "asc";
            feature("sort field name alone");
          }
          case 1 -> sort.addObject().put(field, order);
          case 2 -> {
            ObjectNode spec = sort.addObject().putObject(field).put("order", order);
            spec.put("missing", random.nextBoolean() ? "_first" : "_last");
            feature("sort.missing " + spec.get("missing").asString());
          }
          case 3 -> {
            ObjectNode spec = sort.addObject().putObject(field);
            if (NUMBERS.contains(field)) {
              spec.put("missing", pick(List.of(0, 50_000, -1)));
              feature("sort.missing value");
            }
            spec.put("order", order);
            sortOptions(field, spec);
          }
          default -> {
            sortOptions(field, sort.addObject().putObject(field).put("order", order));
          }
        }
        feature("sort " + (KEYWORDS.contains(field) ? "keyword" : DATES.contains(field) ? "date" : "number") + " "
            + order);
        keys.add(field + " " + order);
      }
      String seqOrder = random.nextBoolean() ? "asc" : "desc";
      sort.addObject().put("seq", seqOrder);
      keys.add("seq " + seqOrder);
      // search_after: after values of the sort's own keys, for a first key that is a keyword (or any other)
      if (size > 0 && random.nextInt(3) == 0) {
        ArrayNode after = body.putArray("search_after");
        for (var key : sort) {
          String field = key.isString() ? key.asString() : key.propertyNames().iterator().next();
          switch (field) {
            case "_score" -> after.add(pick(List.of(0.5, 1.0, 2.0, 3.5)));
            case "seq" -> after.add(random.nextInt(DOCS_A + DOCS_B));
            case "@timestamp", "day" -> {
              long millis = instant().toEpochMilli() / (field.equals("day") ? DAY : 1) * (field.equals("day") ? DAY : 1);
              boolean nanos = key.isObject() && key.get(field).isObject()
                  && "date_nanos".equals(key.get(field).path("numeric_type").asString(null));
              after.add(nanos ? millis * 1_000_000L : millis); // values in the type the sort converts them to
            }
            default -> {
              if (KEYWORDS.contains(field)) {
                after.add(keywordValue(field));
              } else {
                Number v = numberValue(field);
                if (v instanceof Double d) {
                  after.add(d);
                } else {
                  after.add(v.longValue());
                }
              }
            }
          }
        }
        String first = keys.get(0).split(" ")[0];
        feature("search_after " + (KEYWORDS.contains(first) ? "keyword first"
            : first.equals("_score") ? "_score first" : "number or date first"));
        label.add("search_after " + after);
      }
    }
    if (size > 0 && !body.has("search_after") && random.nextInt(4) == 0) {
      int from = pick(List.of(1, 5, 10, 20, 37));
      body.put("from", from);
      feature("from");
      label.add("from " + from);
    }
    label.add("sort " + keys);
    return rankedByScore;
  }

  /**
   * Sometimes (drawn from {@link #sortOptions}) a sort's options from the reference's sort page: {@code format} "to
   * specify a date format for the sort values" of a date field, and {@code numeric_type} ({@code double},
   * {@code long}, {@code date}, {@code date_nanos}) "to cast the values from one type to another", which the page
   * offers for any numeric field. The service documents as refused a cast that could join the field's values
   * ({@code long} or {@code date} of a {@code double}).
   */
  private void sortOptions(String field, ObjectNode spec) {
    if (sortOptions.nextInt(4) != 0 || KEYWORDS.contains(field)) {
      return;
    }
    if (DATES.contains(field) && sortOptions.nextBoolean()) {
      String format = List.of("strict_date_optional_time", "epoch_millis", "epoch_second", "date", "basic_date_time",
          "yyyy-MM-dd HH:mm:ss", "yyyy/MM/dd", "strict_date_optional_time_nanos").get(sortOptions.nextInt(8));
      spec.put("format", format);
      feature("sort.format " + (format.contains("/") || format.contains(" ") ? "pattern" : format));
    }
    if (sortOptions.nextInt(3) != 0) {
      String type = List.of("double", "long", "date", "date_nanos").get(sortOptions.nextInt(DATES.contains(field) ? 4 : 3));
      spec.put("numeric_type", type);
      feature("sort.numeric_type " + type + " of " + (DATES.contains(field) ? "date" : "number"));
      if (field.equals("latency") && !type.equals("double") && refused == null) {
        refused = "[numeric_type]";
        feature("refused sort numeric_type of a double");
      }
    }
  }

  private void totalHits(ObjectNode body, List<String> label) {
    switch (random.nextInt(6)) {
      case 0 -> body.put("track_total_hits", true);
      case 1 -> body.put("track_total_hits", false);
      case 2 -> body.put("track_total_hits", pick(List.of(0, 1, 10, 100, 1000, 3000, 5000)));
      default -> {
        feature("track_total_hits default");
        return;
      }
    }
    feature("track_total_hits " + (body.get("track_total_hits").isNumber() ? "number" : body.get("track_total_hits")));
    label.add("total " + body.get("track_total_hits"));
  }

  private void source(ObjectNode body, List<String> label) {
    switch (random.nextInt(9)) {
      case 0 -> body.put("_source", false);
      case 1 -> body.put("_source", true);
      case 2 -> body.put("_source", pick(List.of("host", "user.*", "mess*", "user")));
      case 3 -> body.putArray("_source").add(pick(List.of("seq", "tags"))).add(pick(List.of("user.name", "*stamp",
          "status")));
      case 4 -> {
        ObjectNode s = body.putObject("_source");
        s.putArray("includes").add(pick(List.of("user.*", "seq", "mess*", "*", "user", "*a*")));
        if (random.nextBoolean()) {
          s.putArray("excludes").add(pick(List.of("user.age", "message", "tags", "*.raw", "u*")));
        }
      }
      case 5 -> body.putObject("_source").putArray("excludes").add(pick(List.of("message", "user", "bytes",
          "@timestamp", "*s", "user.n*")));
      default -> {
        return;
      }
    }
    feature("_source " + body.get("_source").getNodeType().toString().toLowerCase(Locale.ROOT)
        + (body.get("_source").toString().contains("*") ? " wildcard" : ""));
    label.add("_source " + body.get("_source"));
  }

  // ---------------------------------------------------------------------------------------------------- values

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  private String keywordValue(String field) {
    return switch (field) {
      case "host" -> random.nextInt(12) == 0 ? "web-09" : pick(HOSTS);
      case "service" -> random.nextInt(12) == 0 ? "mail" : pick(SERVICES);
      case "level" -> pick(LEVELS);
      case "tags" -> pick(TAGS);
      case "user.name" -> pick(NAMES);
      case "message.raw" -> random.nextInt(10) == 0 ? UPDATED_MESSAGE : pick(PHRASES) + " " + pick(PHRASES);
      default -> throw new IllegalArgumentException(field);
    };
  }

  private Number numberValue(String field) {
    return switch (field) {
      case "seq" -> (long) random.nextInt(DOCS_A + DOCS_B);
      case "status" -> (long) (random.nextInt(10) == 0 ? 302 : pick(STATUSES));
      case "bytes" -> (long) random.nextInt((int) BYTES_MAX + 1);
      case "latency" -> random.nextInt((int) (LATENCY_MAX * 1000) + 1) / 1000.0;
      case "user.age" -> (long) (AGE_MIN + random.nextInt(AGE_MAX - AGE_MIN + 1));
      default -> throw new IllegalArgumentException(field);
    };
  }

  private static void putNumber(ObjectNode node, String name, Number n) {
    if (n instanceof Double d) {
      node.put(name, d);
    } else {
      node.put(name, n.longValue());
    }
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
      case "seq" -> DOCS_A + DOCS_B;
      case "status" -> 503;
      case "bytes" -> BYTES_MAX;
      case "latency" -> LATENCY_MAX;
      case "user.age" -> AGE_MAX;
      default -> throw new IllegalArgumentException(field);
    };
  }

  /** An instant in the data's span, or a little outside it. */
  private Instant instant() {
    long from = START.toEpochMilli() - 2 * DAY;
    long to = END.toEpochMilli() + 2 * DAY;
    return Instant.ofEpochMilli(from + (long) (random.nextDouble() * (to - from)));
  }

  private static java.time.LocalDate localDay(Instant instant) {
    return instant.atZone(ZoneId.of("UTC")).toLocalDate();
  }

  /** Words of the messages, sometimes in other cases or one not in any message. */
  private String text(int words) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < words; i++) {
      String w = random.nextInt(12) == 0 ? "absent" : pick(WORDS);
      out.add(random.nextInt(6) == 0 ? capitalize(w) : w);
    }
    return String.join(" ", out);
  }

  /** Consecutive words of a phrase, sometimes out of order. */
  private String phrase() {
    String[] words = (random.nextInt(8) == 0 ? UPDATED_MESSAGE : pick(PHRASES)).split(" ");
    int from = random.nextInt(words.length - 1);
    int to = from + 2 + random.nextInt(words.length - from - 1);
    List<String> chosen = new ArrayList<>(List.of(words).subList(from, to));
    if (random.nextInt(5) == 0) {
      java.util.Collections.reverse(chosen);
    }
    return String.join(" ", chosen);
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  private static ObjectNode wrap(String name, ObjectNode value) {
    ObjectNode q = JSON.objectNode();
    q.set(name, value);
    return q;
  }
}
