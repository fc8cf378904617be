/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * An answer of the index, {@code _cat} and cluster APIs ({@link IndicesApi}) as an HTTP answer carries it: a status,
 * and a JSON body or a text one ({@code _cat}'s tables), with warnings for the {@code Warning} header (why an index
 * cannot be read, for {@code _cluster/health}).
 *
 * @param status the HTTP status
 * @param json the JSON body, or null if it is text
 * @param text the text body ({@code text/plain}), or null if it is JSON
 * @param warnings what the answer warns of, each a sentence
 */
public record Answer(int status, JsonNode json, String text, List<String> warnings) {
  public Answer {
    assert (json == null) != (text == null) : "JSON or text";
    warnings = List.copyOf(warnings);
  }

  static Answer json(int status, JsonNode json) {
    return new Answer(status, json, null, List.of());
  }

  static Answer text(int status, String text) {
    return new Answer(status, null, text, List.of());
  }

  /** Whether the body is JSON (else text). */
  public boolean isJson() {
    return json != null;
  }
}
