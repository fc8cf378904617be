/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.blob.BlobStores;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The repository URI with the typed store-policy properties added to its query, as the backends read them. */
final class RepositoryUri {
  private RepositoryUri() {}

  /**
   * {@code uri} with each policy setting of {@code repository} that is set added to its query.
   *
   * @throws IllegalArgumentException naming the property if the URI's query sets the same thing
   */
  static URI withPolicy(URI uri, PermafrostProperties.Repository repository) {
    Map<String, String> added = new LinkedHashMap<>();
    put(added, "request-timeout", "request_timeout", repository.requestTimeout());
    put(added, "max-retries", "max_retries", repository.maxRetries());
    put(added, "retry-time-limit", "retry_time_limit", repository.retryTimeLimit());
    put(added, "hedge-after", "hedge_after", repository.hedgeAfter());
    put(added, "max-bytes-per-sec", "max_bytes_per_sec", repository.maxBytesPerSec());
    put(added, "max-concurrent-requests", "max_concurrent_requests", repository.maxConcurrentRequests());
    put(added, "retry-budget", "retry_budget", repository.retryBudget());
    if (added.isEmpty()) {
      return uri;
    }
    String query = uri.getRawQuery();
    StringBuilder sb = new StringBuilder(query == null ? "" : query);
    for (Map.Entry<String, String> e : added.entrySet()) {
      String setting = e.getKey().substring(e.getKey().indexOf('=') + 1);
      if (query != null && ("&" + query).toLowerCase(Locale.ROOT).contains("&" + setting + "=")) {
        throw new IllegalArgumentException("permafrost.repository." + e.getKey().substring(0, e.getKey().indexOf('='))
            + " is set, and so is '" + setting + "' in permafrost.repository.uri (" + BlobStores.redact(uri)
            + "): give it one way only");
      }
      if (!sb.isEmpty()) {
        sb.append('&');
      }
      sb.append(setting).append('=').append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
    }
    String text = uri.toString();
    int cut = text.indexOf('?') >= 0 ? text.indexOf('?') : text.indexOf('#') >= 0 ? text.indexOf('#') : text.length();
    return URI.create(text.substring(0, cut) + "?" + sb);
  }

  private static void put(Map<String, String> added, String property, String setting, Object value) {
    if (value != null) {
      String text = value instanceof Duration d ? d.toMillis() + "ms" : value.toString();
      added.put(property + "=" + setting, text);
    }
  }
}
