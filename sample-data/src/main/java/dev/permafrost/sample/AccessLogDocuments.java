/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.sample;

import java.time.Instant;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.util.BytesRef;

/**
 * Maps an {@link AccessLogEvent} to a Lucene document the way Elasticsearch maps the ECS fields of its nginx
 * integration: keywords are indexed terms with sorted-set doc values, numbers are points with sorted-numeric doc
 * values, {@code message} is analyzed text, and the whole event is kept as a stored JSON {@code _source}.
 * {@code @timestamp} is a point plus single-valued numeric doc values, so sorting on it can skip documents.
 */
public final class AccessLogDocuments {
  public static final String TIMESTAMP = "@timestamp";
  public static final String SOURCE_IP = "source.ip";
  public static final String STATUS = "http.response.status_code";
  public static final String URL_PATH = "url.path";
  public static final String COUNTRY = "source.geo.country_iso_code";
  public static final String MESSAGE = "message";
  public static final String SOURCE = "_source";

  private AccessLogDocuments() {}

  private static final String[] ENGINE_KEYWORDS = {"event.dataset", "event.kind", "event.category", "event.outcome",
      "service.type", "host.name", "host.os.name", "agent.type", "agent.version", "agent.id", "ecs.version",
      "log.file.path", "cloud.provider", "cloud.region", "cloud.availability_zone", SOURCE_IP,
      COUNTRY, "source.geo.continent_name", "source.geo.city_name", "http.version",
      "http.request.method", "http.request.referrer", STATUS, URL_PATH,
      "url.extension", "url.query", "user_agent.original", "user_agent.name", "user_agent.os.name",
      "user_agent.device.name", "trace.id"};
  private static final String[] ENGINE_LONGS = {"event.duration", "source.port", "http.response.body.bytes"};

  /** The document for {@code e}: 36 fields, as listed in the class comment. */
  public static Document toDocument(AccessLogEvent e) {
    Document doc = new Document();
    doc.add(new LongPoint(TIMESTAMP, e.timestamp()));
    doc.add(new NumericDocValuesField(TIMESTAMP, e.timestamp()));
    String host = AccessLogGenerator.HOSTS[e.host()];
    String[] ua = AccessLogGenerator.USER_AGENTS[e.userAgent()];
    int zone = e.host() % 3;
    keyword(doc, "event.dataset", "nginx.access");
    keyword(doc, "event.kind", "event");
    keyword(doc, "event.category", "web");
    keyword(doc, "event.outcome", e.status() >= 400 ? "failure" : "success");
    number(doc, "event.duration", e.durationNanos());
    keyword(doc, "service.type", "nginx");
    keyword(doc, "host.name", host);
    keyword(doc, "host.os.name", "Ubuntu");
    keyword(doc, "agent.type", "filebeat");
    keyword(doc, "agent.version", "8.12.0");
    keyword(doc, "agent.id", "agent-" + host);
    keyword(doc, "ecs.version", "8.11.0");
    keyword(doc, "log.file.path", "/var/log/nginx/access.log");
    keyword(doc, "cloud.provider", "aws");
    keyword(doc, "cloud.region", e.host() < 8 ? "eu-west-1" : "us-east-1");
    keyword(doc, "cloud.availability_zone", (e.host() < 8 ? "eu-west-1" : "us-east-1") + "abc".charAt(zone));
    keyword(doc, SOURCE_IP, e.sourceIp());
    number(doc, "source.port", e.sourcePort());
    keyword(doc, COUNTRY, e.country());
    keyword(doc, "source.geo.continent_name", e.continent());
    keyword(doc, "source.geo.city_name", e.city());
    keyword(doc, "http.version", e.httpVersion());
    keyword(doc, "http.request.method", e.method());
    keyword(doc, "http.request.referrer", e.referrer());
    keyword(doc, STATUS, Integer.toString(e.status()));
    number(doc, "http.response.body.bytes", e.bytes());
    keyword(doc, URL_PATH, e.path());
    keyword(doc, "url.extension", extension(e.path()));
    if (e.query() != null) {
      keyword(doc, "url.query", e.query());
    }
    keyword(doc, "user_agent.original", ua[0]);
    keyword(doc, "user_agent.name", ua[1]);
    keyword(doc, "user_agent.os.name", ua[2]);
    keyword(doc, "user_agent.device.name", ua[3]);
    keyword(doc, "trace.id", e.traceId());
    doc.add(new TextField(MESSAGE, message(e), Field.Store.NO));
    doc.add(new StoredField(SOURCE, source(e)));
    return doc;
  }

  private static void keyword(Document doc, String field, String value) {
    doc.add(new StringField(field, value, Field.Store.NO));
    doc.add(new SortedSetDocValuesField(field, new BytesRef(value)));
  }

  private static void number(Document doc, String field, long value) {
    doc.add(new LongPoint(field, value));
    doc.add(new SortedNumericDocValuesField(field, value));
  }

  private static String extension(String path) {
    int slash = path.lastIndexOf('/');
    int dot = path.lastIndexOf('.');
    return dot > slash ? path.substring(dot + 1) : "";
  }

  /** The nginx "combined" log line of the event. */
  public static String message(AccessLogEvent e) {
    String[] ua = AccessLogGenerator.USER_AGENTS[e.userAgent()];
    return e.sourceIp() + " - - [" + Instant.ofEpochMilli(e.timestamp()) + "] \"" + e.method() + " " + e.path()
        + (e.query() == null ? "" : "?" + e.query()) + " HTTP/" + e.httpVersion() + "\" " + e.status() + " "
        + e.bytes() + " \"" + e.referrer() + "\" \"" + ua[0] + "\"";
  }

  /** The event as the JSON source Elasticsearch would store. */
  public static String source(AccessLogEvent e) {
    String[] ua = AccessLogGenerator.USER_AGENTS[e.userAgent()];
    StringBuilder sb = new StringBuilder(768);
    sb.append('{');
    json(sb, TIMESTAMP, Instant.ofEpochMilli(e.timestamp()).toString()).append(',');
    json(sb, "host.name", AccessLogGenerator.HOSTS[e.host()]).append(',');
    json(sb, SOURCE_IP, e.sourceIp()).append(',');
    sb.append("\"source.port\":").append(e.sourcePort()).append(',');
    json(sb, COUNTRY, e.country()).append(',');
    json(sb, "source.geo.city_name", e.city()).append(',');
    json(sb, "http.request.method", e.method()).append(',');
    json(sb, URL_PATH, e.path()).append(',');
    if (e.query() != null) {
      json(sb, "url.query", e.query()).append(',');
    }
    sb.append('"').append(STATUS).append("\":").append(e.status()).append(',');
    sb.append("\"http.response.body.bytes\":").append(e.bytes()).append(',');
    sb.append("\"event.duration\":").append(e.durationNanos()).append(',');
    json(sb, "http.request.referrer", e.referrer()).append(',');
    json(sb, "user_agent.original", ua[0]).append(',');
    json(sb, "trace.id", e.traceId()).append(',');
    json(sb, MESSAGE, message(e));
    return sb.append('}').toString();
  }

  private static StringBuilder json(StringBuilder sb, String key, String value) {
    sb.append('"').append(key).append("\":\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('"');
  }

  /**
   * The settings and mapping of an engine's index (OpenSearch, Elasticsearch) holding {@link #engineDocument}s: one
   * shard, no replica, every field of {@link #toDocument} with the same type (keywords, longs, the {@code @timestamp}
   * date, the {@code message} text).
   */
  public static String engineIndexBody() {
    StringBuilder properties = new StringBuilder();
    properties.append("\"").append(TIMESTAMP).append("\":{\"type\":\"date\"},");
    properties.append("\"").append(MESSAGE).append("\":{\"type\":\"text\"}");
    for (String k : ENGINE_KEYWORDS) {
      properties.append(",\"").append(k).append("\":{\"type\":\"keyword\"}");
    }
    for (String l : ENGINE_LONGS) {
      properties.append(",\"").append(l).append("\":{\"type\":\"long\"}");
    }
    return "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"refresh_interval\":\"-1\"},"
        + "\"mappings\":{\"dynamic\":\"strict\",\"properties\":{" + properties + "}}}";
  }

  /**
   * The event as the JSON document an engine indexes: the same fields and values as {@link #toDocument} (keep the two in
   * step; {@code AccessLogDocumentsTest} checks they are).
   */
  public static String engineDocument(AccessLogEvent e) {
    String host = AccessLogGenerator.HOSTS[e.host()];
    String[] ua = AccessLogGenerator.USER_AGENTS[e.userAgent()];
    int zone = e.host() % 3;
    String region = e.host() < 8 ? "eu-west-1" : "us-east-1";
    String path = e.path();
    int slash = path.lastIndexOf('/');
    int dot = path.lastIndexOf('.');
    StringBuilder sb = new StringBuilder(1200).append('{');
    str(sb, TIMESTAMP, Instant.ofEpochMilli(e.timestamp()).toString());
    str(sb, "event.dataset", "nginx.access");
    str(sb, "event.kind", "event");
    str(sb, "event.category", "web");
    str(sb, "event.outcome", e.status() >= 400 ? "failure" : "success");
    num(sb, "event.duration", e.durationNanos());
    str(sb, "service.type", "nginx");
    str(sb, "host.name", host);
    str(sb, "host.os.name", "Ubuntu");
    str(sb, "agent.type", "filebeat");
    str(sb, "agent.version", "8.12.0");
    str(sb, "agent.id", "agent-" + host);
    str(sb, "ecs.version", "8.11.0");
    str(sb, "log.file.path", "/var/log/nginx/access.log");
    str(sb, "cloud.provider", "aws");
    str(sb, "cloud.region", region);
    str(sb, "cloud.availability_zone", region + "abc".charAt(zone));
    str(sb, SOURCE_IP, e.sourceIp());
    num(sb, "source.port", e.sourcePort());
    str(sb, COUNTRY, e.country());
    str(sb, "source.geo.continent_name", e.continent());
    str(sb, "source.geo.city_name", e.city());
    str(sb, "http.version", e.httpVersion());
    str(sb, "http.request.method", e.method());
    str(sb, "http.request.referrer", e.referrer());
    str(sb, STATUS, Integer.toString(e.status()));
    num(sb, "http.response.body.bytes", e.bytes());
    str(sb, URL_PATH, path);
    str(sb, "url.extension", dot > slash ? path.substring(dot + 1) : "");
    if (e.query() != null) {
      str(sb, "url.query", e.query());
    }
    str(sb, "user_agent.original", ua[0]);
    str(sb, "user_agent.name", ua[1]);
    str(sb, "user_agent.os.name", ua[2]);
    str(sb, "user_agent.device.name", ua[3]);
    str(sb, "trace.id", e.traceId());
    str(sb, MESSAGE, message(e));
    sb.setLength(sb.length() - 1); // the last comma
    return sb.append('}').toString();
  }

  private static void str(StringBuilder sb, String key, String value) {
    sb.append('"').append(key).append("\":\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\');
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
        continue;
      }
      sb.append(c);
    }
    sb.append("\",");
  }

  private static void num(StringBuilder sb, String key, long value) {
    sb.append('"').append(key).append("\":").append(value).append(',');
  }
}
