/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.ByteSizes;
import java.io.Serial;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options of a {@code permafrost} read, checked once on the driver and shipped to the executors with each
 * partition. Option names are case-insensitive (Spark lower-cases them); an unknown one is refused, naming it and
 * listing the known ones, so that a typo never silently changes what is read.
 */
final class SourceOptions implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  static final String REPOSITORY = "repository";
  static final String PATH = "path";
  static final String SNAPSHOTS = "snapshots";
  static final String QUERY = "query";
  static final String DEFAULT_FIELD = "defaultfield";
  static final String FIELDS = "fields";
  static final String SCHEMA = "schema";
  static final String TIMESTAMP_FIELD = "timestampfield";
  static final String CACHE_SIZE = "cache.size";
  static final String CACHE_PATH = "cache.path";
  static final String AFFINITY = "affinity";
  static final String AFFINITY_EXECUTORS = "affinity.executors";
  static final String MODE = "mode";
  static final String INTERVAL = "interval";
  static final String PARTITION_MAX_BYTES = "partition.maxbytes";
  static final String FORMAT = "format";
  static final String INDICES = "indices";
  /** The default of {@value #PARTITION_MAX_BYTES}: snapshots up to this many bytes in all share a task. */
  static final String DEFAULT_PARTITION_MAX_BYTES = "256mb";

  private static final Set<String> KNOWN = Set.of(REPOSITORY, PATH, SNAPSHOTS, QUERY, DEFAULT_FIELD, FIELDS, SCHEMA, TIMESTAMP_FIELD,
      CACHE_SIZE, CACHE_PATH, AFFINITY, AFFINITY_EXECUTORS, MODE, INTERVAL, PARTITION_MAX_BYTES, FORMAT, INDICES);

  /** The environment variable that names an executor's cache directory when {@code cache.path} is not given. */
  static final String CACHE_PATH_ENV = "PERMAFROST_CACHE_PATH";
  static final String DEFAULT_CACHE_SIZE = "1gb";
  static final String DEFAULT_QUERY = "*:*";
  static final String DEFAULT_TIMESTAMP_FIELD = "@timestamp";

  /** What a read returns. */
  enum Mode {
    /** The hits' fields, one row per hit. */
    HITS,
    /** Hits counted per interval of the timestamp field, one row per index and bucket. */
    HISTOGRAM
  }

  final URI repository;
  /**
   * Whether the repository was written by Elasticsearch or OpenSearch ({@code format=elasticsearch}): then
   * {@code snapshots} names one of its snapshots (default: the newest that completed), {@code indices} its indices
   * (names or globs, default all), each shard is read as a snapshot of its own, and the schema comes from the mapping.
   */
  final boolean engine;
  /** The engine indices to read (names or globs); only with {@link #engine}. */
  final List<String> indices;
  final List<String> snapshots;
  final String query;
  /** The field a query term without one searches. */
  final String defaultField;
  /** The columns asked for by name, or empty for every field the schema has. */
  final List<String> fields;
  /** A DDL schema given as an option, or null. */
  final String schemaDdl;
  final String timestampField;
  final String cacheSize;
  /** The cache directory, or null: the executor's {@value #CACHE_PATH_ENV}, else a folder in its scratch space. */
  final String cachePath;
  final boolean affinity;
  final int affinityExecutors;
  final Mode mode;
  final long intervalMillis;
  /** Snapshots share an input partition up to this many bytes in all; 0 gives each its own. */
  final long partitionMaxBytes;

  private SourceOptions(Map<String, String> o) {
    String repo = o.containsKey(REPOSITORY) ? o.get(REPOSITORY) : o.get(PATH);
    if (repo == null || repo.isBlank()) {
      throw new IllegalArgumentException("option '" + REPOSITORY + "' is required: the URI of the snapshot repository,"
          + " e.g. file:///var/snapshots or s3://bucket/prefix");
    }
    this.repository = uri(repo.trim());
    this.engine = switch (o.getOrDefault(FORMAT, "permafrost").trim().toLowerCase(Locale.ROOT)) {
      case "permafrost" -> false;
      case "elasticsearch", "opensearch" -> true;
      default -> throw new IllegalArgumentException("option '" + FORMAT + "' must be permafrost (the default),"
          + " elasticsearch or opensearch, got '" + o.get(FORMAT) + "'");
    };
    if (!engine && o.containsKey(INDICES)) {
      throw new IllegalArgumentException("option '" + INDICES + "' names an Elasticsearch or OpenSearch repository's"
          + " indices: give it with format=elasticsearch (a Permafrost repository's snapshots are chosen with 'snapshots')");
    }
    this.indices = list(o.getOrDefault(INDICES, "*"), INDICES);
    this.snapshots = list(o.getOrDefault(SNAPSHOTS, "*"), SNAPSHOTS);
    String q = o.get(QUERY);
    this.query = q == null || q.isBlank() ? DEFAULT_QUERY : q;
    this.defaultField = o.getOrDefault(DEFAULT_FIELD, "message").trim();
    this.fields = o.containsKey(FIELDS) ? list(o.get(FIELDS), FIELDS) : List.of();
    this.schemaDdl = o.get(SCHEMA);
    this.timestampField = o.getOrDefault(TIMESTAMP_FIELD, DEFAULT_TIMESTAMP_FIELD).trim();
    this.cacheSize = o.getOrDefault(CACHE_SIZE, DEFAULT_CACHE_SIZE).trim();
    if (!cacheSize.endsWith("%")) {
      try {
        ByteSizes.parse(cacheSize);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("option '" + CACHE_SIZE + "': " + e.getMessage(), e);
      }
    }
    this.cachePath = o.get(CACHE_PATH);
    this.affinity = bool(o.getOrDefault(AFFINITY, "true"), AFFINITY);
    this.affinityExecutors = positiveInt(o.getOrDefault(AFFINITY_EXECUTORS, "1"), AFFINITY_EXECUTORS);
    this.mode = switch (o.getOrDefault(MODE, "hits").trim().toLowerCase(Locale.ROOT)) {
      case "hits" -> Mode.HITS;
      case "histogram" -> Mode.HISTOGRAM;
      default -> throw new IllegalArgumentException("option '" + MODE + "' must be 'hits' or 'histogram', got '"
          + o.get(MODE) + "'");
    };
    this.intervalMillis = interval(o.getOrDefault(INTERVAL, "1h"));
    String maxBytes = o.getOrDefault(PARTITION_MAX_BYTES, DEFAULT_PARTITION_MAX_BYTES).trim();
    try {
      this.partitionMaxBytes = ByteSizes.parse(maxBytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("option 'partition.maxBytes': " + e.getMessage(), e);
    }
    if (partitionMaxBytes < 0) {
      throw new IllegalArgumentException("option 'partition.maxBytes' must not be negative, got '" + maxBytes + "'");
    }
  }

  /** Checks and parses Spark's (lower-cased) options. */
  static SourceOptions parse(Map<String, String> options) {
    Set<String> unknown = new TreeSet<>();
    for (String key : options.keySet()) {
      if (!KNOWN.contains(key.toLowerCase(Locale.ROOT))) {
        unknown.add(key);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown option" + (unknown.size() > 1 ? "s " : " ") + unknown
          + " for the permafrost data source; the options are " + new TreeSet<>(KNOWN));
    }
    Map<String, String> lower = new HashMap<>();
    options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
    return new SourceOptions(lower);
  }

  private static URI uri(String value) {
    try {
      URI uri = new URI(value);
      if (uri.getScheme() == null) {
        throw new IllegalArgumentException("option '" + REPOSITORY + "' must be a URI with a scheme (file://, s3://,"
            + " gs://, azblob://), got '" + BlobStores.redact(uri) + "'");
      }
      return uri;
    } catch (URISyntaxException e) {
      // not e.getMessage(): it quotes the whole value, whose query may hold secrets
      throw new IllegalArgumentException("option '" + REPOSITORY + "' is not a URI: " + e.getReason()
          + (e.getIndex() >= 0 ? " at index " + e.getIndex() : ""));
    }
  }

  private static List<String> list(String value, String option) {
    List<String> items = new ArrayList<>();
    for (String s : value.split(",")) {
      if (!s.isBlank()) {
        items.add(s.trim());
      }
    }
    if (items.isEmpty()) {
      throw new IllegalArgumentException("option '" + option + "' is empty: give one or more names, comma-separated");
    }
    return List.copyOf(items);
  }

  private static boolean bool(String value, String option) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("option '" + option + "' must be true or false, got '" + value + "'");
    };
  }

  private static int positiveInt(String value, String option) {
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("option '" + option + "' must be a positive whole number, got '" + value + "'");
  }

  /** Parses an interval such as {@code 30s}, {@code 15m}, {@code 1h}, {@code 1d} or {@code 500ms}. */
  static long interval(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    try {
      long millis;
      if (v.endsWith("ms")) {
        millis = Long.parseLong(v.substring(0, v.length() - 2));
      } else {
        long n = Long.parseLong(v.substring(0, v.length() - 1));
        millis = switch (v.charAt(v.length() - 1)) {
          case 's' -> Duration.ofSeconds(n).toMillis();
          case 'm' -> Duration.ofMinutes(n).toMillis();
          case 'h' -> Duration.ofHours(n).toMillis();
          case 'd' -> Duration.ofDays(n).toMillis();
          default -> -1;
        };
      }
      if (millis > 0) {
        return millis;
      }
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      // reported below
    }
    throw new IllegalArgumentException("option '" + INTERVAL + "' must be a positive duration such as 500ms, 30s, 15m,"
        + " 1h or 1d, got '" + value + "'");
  }

  /** The repository URI with any user info and query removed, for messages. */
  String describeRepository() {
    return BlobStores.redact(repository);
  }
}
