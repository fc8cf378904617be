/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The settings of a blob store, as given in a URI's query ({@code s3://bucket/prefix?region=eu-west-1}) or
 * programmatically. Every backend reads its settings through this class, so that a misspelt or unknown setting
 * is reported by name instead of being ignored, and a malformed value names the setting at fault.
 */
public final class StoreSettings {
  private final String backend;
  private final Map<String, String> values;
  private final Set<String> read = new HashSet<>();

  public StoreSettings(String backend, Map<String, String> values) {
    this.backend = backend;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** Parses the URI's query parameters ({@code a=1&b=2}, percent-decoded); a repeated parameter is an error. */
  public static StoreSettings fromQuery(URI uri) {
    Map<String, String> values = new LinkedHashMap<>();
    String query = uri.getRawQuery();
    if (query != null && !query.isEmpty()) {
      for (String pair : query.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        if (values.put(key, value) != null) {
          throw new IllegalArgumentException(
              "setting '" + key + "' is given twice in the query of " + Uris.redact(uri));
        }
      }
    }
    return new StoreSettings(uri.getScheme(), values);
  }

  /** The raw value, or {@code defaultValue} if the setting is absent. */
  public String get(String key, String defaultValue) {
    read.add(key);
    String value = values.get(key);
    return value == null ? defaultValue : value;
  }

  /** The settings given, by name (for a builder that passes them on). */
  public Map<String, String> values() {
    return values;
  }

  public boolean getBoolean(String key, boolean defaultValue) {
    String value = get(key, null);
    if (value == null) {
      return defaultValue;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw bad(key, value, "true or false");
    };
  }

  public int getInt(String key, int defaultValue) {
    String value = get(key, null);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw bad(key, value, "an integer");
    }
  }

  /** A byte size: a plain number of bytes or a number with a unit (kb, mb, gb; powers of 1024). */
  public long getBytes(String key, long defaultValue) {
    String value = get(key, null);
    if (value == null) {
      return defaultValue;
    }
    try {
      return ByteSizes.parse(value);
    } catch (IllegalArgumentException e) {
      throw bad(key, value, "a byte size such as 8mb");
    }
  }

  /**
   * A duration as {@link Durations#parse} reads it: a number with a unit ({@code 500ms}, {@code 30s}, {@code 2m}) or
   * ISO-8601 ({@code PT30S}).
   */
  public Duration getDuration(String key, Duration defaultValue) {
    String value = get(key, null);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Durations.parse(value);
    } catch (RuntimeException e) {
      throw bad(key, value, "a duration such as 30s, 500ms or PT30S");
    }
  }

  /**
   * Fails, naming them, if any setting was given that the backend never asked for: a misspelt setting must
   * not be silently ignored. Call after reading every setting.
   */
  public void rejectUnknown() {
    Set<String> unknown = new TreeSet<>(values.keySet());
    unknown.removeAll(read);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown " + backend + " blob store setting(s) " + unknown + "; known settings: " + new TreeSet<>(read));
    }
  }

  private IllegalArgumentException bad(String key, String value, String expected) {
    boolean secret = key.toLowerCase(Locale.ROOT).matches(".*(secret|key|password|token|credential|sas).*");
    return new IllegalArgumentException(
        backend + " blob store setting '" + key + "' must be " + expected + ", got '" + (secret ? "<redacted>" : value) + "'");
  }
}
