/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one glob of index and snapshot names: its two wildcards, every other character as itself, whole names. */
class GlobTest {
  @Test
  void aStarIsAnyRunOfCharactersNoneToo() {
    Glob g = Glob.of("logs-*");
    assertTrue(g.matches("logs-"));
    assertTrue(g.matches("logs-2024.02.15"));
    assertFalse(g.matches("logs"));
    assertFalse(g.matches("xlogs-a"), "whole names only");
    assertTrue(Glob.of("*").matches(""));
    assertTrue(Glob.of("**").matches("a*b"));
    assertTrue(Glob.of("a*b*c").matches("abc"));
    assertFalse(Glob.of("a*b*c").matches("acb"));
  }

  @Test
  void aQuestionMarkIsExactlyOne() {
    Glob g = Glob.of("snap-?");
    assertTrue(g.matches("snap-1"));
    assertTrue(g.matches("snap-?"));
    assertFalse(g.matches("snap-"));
    assertFalse(g.matches("snap-10"));
  }

  @Test
  void everyOtherCharacterStandsForItselfRegularExpressionsIncluded() {
    assertTrue(Glob.of("a.b*").matches("a.b1"));
    assertFalse(Glob.of("a.b*").matches("axb1"), "a dot is a dot");
    for (String odd : new String[] {"\\Q*", "*\\E", "[a]*", "(x)+*", "$^*", "a|b*", "{1}*"}) {
      assertTrue(Glob.of(odd).matches(odd.replace("*", "any")), odd);
      assertTrue(Glob.of(odd).matches(odd.replace("*", "")), odd);
      assertFalse(Glob.of(odd).matches("a"), odd);
    }
    assertFalse(Glob.of("Logs-*").matches("logs-a"), "case-sensitive");
  }

  @Test
  void textWithoutWildcardsIsAPlainNameThatMatchesOnlyItself() {
    Glob g = Glob.of("logs.a");
    assertTrue(g.isPlainName());
    assertTrue(g.matches("logs.a"));
    assertFalse(g.matches("logsxa"));
    assertFalse(Glob.of("").matches("x"));
    assertTrue(Glob.of("").matches(""));
    assertFalse(Glob.isGlob("a[b]"));
    assertTrue(Glob.isGlob("a?"));
    assertEquals("logs-*", Glob.of("logs-*").toString());
  }

  @Test
  void selectKeepsTheNamesOrderOnceEachAndNamesAMissingPlainName() {
    List<String> names = List.of("b-2", "a-1", "b-1", "c");
    assertEquals(List.of("b-2", "b-1", "c"), Glob.select(List.of("c", "b-*", "b-?"), names, IllegalStateException::new));
    assertEquals(List.of(), Glob.select(List.of("z*"), names, IllegalStateException::new), "a glob may match none");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Glob.select(List.of("b-*", "d", "e"), names, IllegalStateException::new));
    assertEquals("d", e.getMessage(), "the first missing plain name");
    assertEquals(List.of("b-1"), Glob.of("b-1").filter(names));
  }
}
