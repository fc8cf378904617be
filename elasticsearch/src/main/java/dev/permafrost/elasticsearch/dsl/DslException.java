/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the Elasticsearch-compatible API refuses, with the HTTP status and the error {@code type} Elasticsearch
 * gives for it ({@code parsing_exception}, {@code illegal_argument_exception}, {@code index_not_found_exception},
 * ...). The message names the clause, field, parameter or index at fault; it is the error body's {@code reason}.
 */
public final class DslException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final int status;
  private final String type;
  /** The type of the error's root cause, as Elasticsearch names it ({@link #type} unless the shards failed). */
  private final String rootCauseType;
  /** The bucket limit a search's aggregations went past ({@link #tooManyBuckets}), else -1. */
  private final int maxBuckets;
  /** What the error body says besides its type and reason ({@code resource.id}, {@code index}, ...), in order. */
  private final Map<String, String> metadata;

  /** A refusal with {@code status} and Elasticsearch's error {@code type}. */
  public DslException(int status, String type, String reason) {
    this(status, type, reason, type, -1);
  }

  private DslException(int status, String type, String reason, String rootCauseType, int maxBuckets) {
    this(status, type, reason, rootCauseType, maxBuckets, Map.of());
  }

  private DslException(int status, String type, String reason, String rootCauseType, int maxBuckets,
      Map<String, String> metadata) {
    super(reason);
    this.status = status;
    this.type = type;
    this.rootCauseType = rootCauseType;
    this.maxBuckets = maxBuckets;
    this.metadata = metadata;
  }

  /**
   * An index expression naming an index that is not there: 404, {@code index_not_found_exception}, with the fields a
   * node's error body gives it ({@code resource.type}, {@code resource.id}, {@code index_uuid}, {@code index}).
   */
  public static DslException indexNotFound(String name) {
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("resource.type", "index_or_alias");
    metadata.put("resource.id", name);
    metadata.put("index_uuid", "_na_");
    metadata.put("index", name);
    return new DslException(404, "index_not_found_exception", "no such index [" + name + "]",
        "index_not_found_exception", -1, Collections.unmodifiableMap(metadata));
  }

  /**
   * A name no index may have ({@code _x}, as {@code GET /_x} reads it): 400, {@code invalid_index_name_exception},
   * with the fields a node's error body gives it ({@code index_uuid}, {@code index}).
   */
  public static DslException invalidIndexName(String name, String why) {
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("index_uuid", "_na_");
    metadata.put("index", name);
    return new DslException(400, "invalid_index_name_exception", "Invalid index name [" + name + "], " + why + ".",
        "invalid_index_name_exception", -1, Collections.unmodifiableMap(metadata));
  }

  /** What the error body says besides its type and reason, in order (none for most errors). */
  public Map<String, String> metadata() {
    return metadata;
  }

  /**
   * A search whose aggregations come to more buckets than {@code search.max_buckets}: 400, as the node's final reduce
   * fails it, a {@code search_phase_execution_exception} of no shard caused by a {@code too_many_buckets_exception}
   * naming the limit ({@link #maxBuckets}).
   */
  public static DslException tooManyBuckets(int maxBuckets) {
    return new DslException(400, "search_phase_execution_exception", "Trying to create too many buckets. Must be less"
        + " than or equal to: [" + maxBuckets + "] but this number of buckets was exceeded. This limit can be set by"
        + " changing the [search.max_buckets] cluster level setting.", "too_many_buckets_exception", maxBuckets);
  }

  /** The bucket limit a search's aggregations went past, or -1 if this is another refusal. */
  public int maxBuckets() {
    return maxBuckets;
  }

  /**
   * A request Elasticsearch refuses on every shard (a result window too large, say): 400,
   * {@code search_phase_execution_exception}, with a root cause of {@code illegal_argument_exception}.
   */
  public static DslException everyShard(String reason) {
    return new DslException(400, "search_phase_execution_exception", reason, "illegal_argument_exception", -1);
  }

  /**
   * A value Elasticsearch refuses while it builds a shard's query (a number field's value that is not a number): 400,
   * {@code search_phase_execution_exception} ("all shards failed"), with a root cause of {@code rootCauseType}
   * ({@code query_shard_exception}, or {@code parse_exception} for a date) and {@code reason}.
   */
  public static DslException shard(String rootCauseType, String reason) {
    return new DslException(400, "search_phase_execution_exception", reason, rootCauseType, -1);
  }

  /**
   * A failure Elasticsearch meets as it merges the shards' answers (a sort or aggregation over a field the indices
   * map two ways): 400, {@code search_phase_execution_exception} with no root cause, caused by an
   * {@code illegal_argument_exception} with {@code reason}.
   */
  public static DslException reduce(String reason) {
    return new DslException(400, "search_phase_execution_exception", reason, null, -1);
  }

  /**
   * A request body (or an {@code _msearch} line) that is not JSON, as Elasticsearch's parser refuses it: 400,
   * {@code x_content_e_o_f_exception} where the text ends too soon, else {@code x_content_parse_exception}, the reason
   * starting with the {@code [line:column]} where it failed.
   */
  public static DslException malformedJson(String what, JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    String where = at == null ? "" : "[" + at.getLineNr() + ":" + at.getColumnNr() + "] ";
    return new DslException(400, e instanceof JsonEOFException ? "x_content_e_o_f_exception" : "x_content_parse_exception",
        where + what + " is not valid JSON: " + e.getOriginalMessage());
  }

  /**
   * A scroll or point in time that is not open (unknown, closed, lapsed, or ended by its indices): 404,
   * {@code search_phase_execution_exception} ("all shards failed") with a root cause of
   * {@code search_context_missing_exception} and {@code reason}, as the node answers it.
   */
  public static DslException searchContextMissing(String reason) {
    return new DslException(404, "search_phase_execution_exception", reason, "search_context_missing_exception", -1);
  }

  /** A request Elasticsearch would not parse: 400, {@code parsing_exception}. */
  public static DslException parsing(String reason) {
    return new DslException(400, "parsing_exception", reason);
  }

  /** A request that parses but asks for something invalid or not supported here: 400, {@code illegal_argument_exception}. */
  public static DslException illegalArgument(String reason) {
    return new DslException(400, "illegal_argument_exception", reason);
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** Elasticsearch's error type. */
  public String type() {
    return type;
  }

  /** The type of the error's root cause, or null if there is none (a failure while merging the shards' answers). */
  public String rootCauseType() {
    return rootCauseType;
  }
}
