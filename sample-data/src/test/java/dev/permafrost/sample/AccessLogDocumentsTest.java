/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.IndexOptions;
import org.junit.jupiter.api.Test;

/** The engine's document of an event holds the same fields and values as its Lucene document, all of them mapped. */
class AccessLogDocumentsTest {
  /** "key":"string" or "key":number, as engineDocument writes them (strings with \" and \\ escaped). */
  private static final Pattern FIELD = Pattern.compile("\"([^\"]+)\":(\"((?:[^\"\\\\]|\\\\.)*)\"|-?[0-9]+)");

  private static Map<String, String> parse(String json) {
    Map<String, String> fields = new TreeMap<>();
    Matcher m = FIELD.matcher(json);
    while (m.find()) {
      String value = m.group(3) != null ? m.group(3).replaceAll("\\\\(.)", "$1") : m.group(2);
      fields.put(m.group(1), value);
    }
    return fields;
  }

  /** The indexed value of each field of the Lucene document (the terms of keywords, the numbers of points). */
  private static Map<String, String> indexed(Document doc) {
    Map<String, String> fields = new TreeMap<>();
    for (IndexableField f : doc.getFields()) {
      if (f.name().equals(AccessLogDocuments.SOURCE)) {
        continue; // the engine keeps its own _source
      }
      if (f.fieldType().indexOptions() != IndexOptions.NONE && f.stringValue() != null) {
        fields.put(f.name(), f.stringValue()); // keywords and the message text
      } else if (f.fieldType().pointDimensionCount() > 0 && f.numericValue() != null) {
        fields.put(f.name(), f.numericValue().toString());
      }
    }
    return fields;
  }

  @Test
  void theEngineDocumentHasTheLuceneDocumentsFieldsAndValues() {
    AccessLogGenerator generator = new AccessLogGenerator(7);
    String mapping = AccessLogDocuments.engineIndexBody();
    int checked = 0;
    for (AccessLogEvent e : generator.day(LocalDate.of(2024, 2, 1), 3000)) {
      Map<String, String> json = parse(AccessLogDocuments.engineDocument(e));
      Map<String, String> lucene = indexed(AccessLogDocuments.toDocument(e));
      String timestamp = json.remove(AccessLogDocuments.TIMESTAMP);
      assertEquals(Long.parseLong(lucene.remove(AccessLogDocuments.TIMESTAMP)), Instant.parse(timestamp).toEpochMilli());
      assertEquals(lucene, json, "event " + e);
      for (String field : json.keySet()) {
        assertTrue(mapping.contains("\"" + field + "\":{\"type\""), field + " is mapped");
      }
      checked++;
    }
    assertEquals(3000, checked);
  }
}
