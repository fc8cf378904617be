/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which terms Elasticsearch's {@code query_string} reads as one text: each case's count checked on a 9.3.3 node over
 * the differential test's data ({@code level} and {@code host} keywords, {@code message} text, {@code status} a
 * number), where a joined run on a keyword matches nothing and the same terms apart match their documents.
 */
class TermRunsTest {
  private static final Set<String> KEYWORDS = Set.of("level", "host", "tags");

  private static String joined(String query, String defaultField) {
    return TermRuns.joined(query, defaultField, field -> KEYWORDS.contains(field) ? TermRuns.Reading.ONE_VALUE
        : field.equals("status") ? TermRuns.Reading.NOTHING : TermRuns.Reading.SPLIT);
  }

  /** On a number the node matches nothing for a run, lenient or not ({@code status:(200 404)}: 0 documents). */
  @Test
  void aRunOfNumbersIsATermOfNoValue() {
    assertEquals("status:(_no_value_:\"200 404\")", joined("status:(200 404)", null));
    assertEquals("status:(200 OR 404)", joined("status:(200 OR 404)", null));
  }

  @Test
  void plainTermsInARowOnAKeywordAreOneValue() {
    assertEquals("\"error warn\"", joined("error warn", "level"));
    assertEquals("\"error warn info\"", joined("error warn info", "level"));
    assertEquals("level:(\"error warn\")", joined("level:(error warn)", null));
    assertEquals("+(\"error error\")", joined("+(error error)", "level"));
    assertEquals("\"error warn\" NOT info", joined("error warn NOT info", "level"));
    assertEquals("NOT ((!(\"web-01 web-02\")) -(level:(\"error warn\")))",
        joined("NOT ((!(web-01 web-02)) -(level:(error warn)))", "host"));
    assertEquals("(\"error warn\") OR level:info", joined("(error warn) OR level:info", "level"));
    assertEquals("\"error\\\\ warn x\"", joined("error\\\\ warn x", "level")); // an escaped backslash stays one
  }

  @Test
  void anOperatorModifierFieldOrSuffixEndsARun() {
    for (String q : new String[] {"error OR warn", "error +warn", "error warn*", "error host:web-01 warn", "error^2 warn",
        "error warn^2", "\"error\" warn", "NOT error warn", "x AND error warn", "error warn AND info", "error || warn",
        "level:(error~1 warn)", "error", "*rror warn", "error [a TO b]"}) {
      assertEquals(q, joined(q, "level"), q);
    }
  }

  @Test
  void textAndUnknownFieldsAreLeftToTheirAnalyzer() {
    assertEquals("user login", joined("user login", "message"));
    assertEquals("message:(user login)", joined("message:(user login)", "level"));
    assertEquals("error warn", joined("error warn", null));
    assertEquals("level:(\"error warn\") message:(a b)", joined("level:(error warn) message:(a b)", null));
  }
}
