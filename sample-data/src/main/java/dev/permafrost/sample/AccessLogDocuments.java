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

  /** Receives the keyword and number fields of an event, in the order {@link #fields} lists them. */
  private interface FieldSink {
    /** A keyword; {@code value} is null where the event has none (the field is mapped but absent). */
    void keyword(String field, String value);

    void number(String field, long value);
  }

  /**
   * The one list of an event's keyword and number fields, which {@link #toDocument}, {@link #engineDocument} and
   * {@link #engineIndexBody} each turn into their own form; {@code @timestamp} and {@code message} are added by each.
   */
  private static void fields(AccessLogEvent e, FieldSink sink) {
    String host = AccessLogGenerator.HOSTS[e.host()];
    String[] ua = AccessLogGenerator.USER_AGENTS[e.userAgent()];
    String region = e.host() < 8 ? "eu-west-1" : "us-east-1";
    sink.keyword("event.dataset", "nginx.access");
    sink.keyword("event.kind", "event");
    sink.keyword("event.category", "web");
    sink.keyword("event.outcome", e.status() >= 400 ? "failure" : "success");
    sink.number("event.duration", e.durationNanos());
    sink.keyword("service.type", "nginx");
    sink.keyword("host.name", host);
    sink.keyword("host.os.name", "Ubuntu");
    sink.keyword("agent.type", "filebeat");
    sink.keyword("agent.version", "8.12.0");
    sink.keyword("agent.id", "agent-" + host);
    sink.keyword("ecs.version", "8.11.0");
    sink.keyword("log.file.path", "/var/log/nginx/access.log");
    sink.keyword("cloud.provider", "aws");
    sink.keyword("cloud.region", region);
    sink.keyword("cloud.availability_zone", region + "abc".charAt(e.host() % 3));
    sink.keyword(SOURCE_IP, e.sourceIp());
    sink.number("source.port", e.sourcePort());
    sink.keyword(COUNTRY, e.country());
    sink.keyword("source.geo.continent_name", e.continent());
    sink.keyword("source.geo.city_name", e.city());
    sink.keyword("http.version", e.httpVersion());
    sink.keyword("http.request.method", e.method());
    sink.keyword("http.request.referrer", e.referrer());
    sink.keyword(STATUS, Integer.toString(e.status()));
    sink.number("http.response.body.bytes", e.bytes());
    sink.keyword(URL_PATH, e.path());
    sink.keyword("url.extension", extension(e.path()));
    sink.keyword("url.query", e.query());
    sink.keyword("user_agent.original", ua[0]);
    sink.keyword("user_agent.name", ua[1]);
    sink.keyword("user_agent.os.name", ua[2]);
    sink.keyword("user_agent.device.name", ua[3]);
    sink.keyword("trace.id", e.traceId());
  }

  /** The document for {@code e}: 36 fields, as listed in the class comment. */
  public static Document toDocument(AccessLogEvent e) {
    Document doc = new Document();
    doc.add(new LongPoint(TIMESTAMP, e.timestamp()));
    doc.add(new NumericDocValuesField(TIMESTAMP, e.timestamp()));
    fields(e, new FieldSink() {
      @Override
      public void keyword(String field, String value) {
        if (value != null) {
          doc.add(new StringField(field, value, Field.Store.NO));
          doc.add(new SortedSetDocValuesField(field, new BytesRef(value)));
        }
      }

      @Override
      public void number(String field, long value) {
        doc.add(new LongPoint(field, value));
        doc.add(new SortedNumericDocValuesField(field, value));
      }
    });
    doc.add(new TextField(MESSAGE, message(e), Field.Store.NO));
    doc.add(new StoredField(SOURCE, source(e)));
    return doc;
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

  /** Appends {@code "key":"value"} with the value escaped as JSON requires. */
  private static StringBuilder json(StringBuilder sb, String key, String value) {
    sb.append('"').append(key).append("\":\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
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
    AccessLogEvent any = new AccessLogEvent(0, 0, "", 0, "", "", "", "", "/", null, "", 200, 0, 0, "", 0, "");
    fields(any, new FieldSink() {
      @Override
      public void keyword(String field, String value) {
        properties.append(",\"").append(field).append("\":{\"type\":\"keyword\"}");
      }

      @Override
      public void number(String field, long value) {
        properties.append(",\"").append(field).append("\":{\"type\":\"long\"}");
      }
    });
    return "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"refresh_interval\":\"-1\"},"
        + "\"mappings\":{\"dynamic\":\"strict\",\"properties\":{" + properties + "}}}";
  }

  /** The event as the JSON document an engine indexes: the same fields and values as {@link #toDocument}. */
  public static String engineDocument(AccessLogEvent e) {
    StringBuilder sb = new StringBuilder(1200).append('{');
    str(sb, TIMESTAMP, Instant.ofEpochMilli(e.timestamp()).toString());
    fields(e, new FieldSink() {
      @Override
      public void keyword(String field, String value) {
        if (value != null) {
          str(sb, field, value);
        }
      }

      @Override
      public void number(String field, long value) {
        sb.append('"').append(field).append("\":").append(value).append(',');
      }
    });
    str(sb, MESSAGE, message(e));
    sb.setLength(sb.length() - 1); // the last comma
    return sb.append('}').toString();
  }

  private static void str(StringBuilder sb, String key, String value) {
    json(sb, key, value).append(',');
  }
}
