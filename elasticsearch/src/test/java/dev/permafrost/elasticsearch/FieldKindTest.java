/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.lucene.search.SortField;
import org.junit.jupiter.api.Test;

/**
 * The answers of {@link FieldKind} written out by hand, kind by kind, so that a kind moved from one family to another
 * shows here and not as a query that matches something else; and that a mapping's fields carry their kind, unknown
 * type names kept for messages.
 */
class FieldKindTest {
  @Test
  void everyKnownNameIsItsKindAndBack() {
    for (FieldKind k : FieldKind.values()) {
      if (k != FieldKind.UNKNOWN) {
        assertSame(k, FieldKind.of(k.typeName()), k.toString());
      }
    }
    assertEquals("match_only_text", FieldKind.MATCH_ONLY_TEXT.typeName());
    assertEquals("date_nanos", FieldKind.DATE_NANOS.typeName());
    assertNull(FieldKind.UNKNOWN.typeName());
  }

  @Test
  void aMissingTypeIsAnObjectAndAnyOtherNameUnknown() {
    assertSame(FieldKind.OBJECT, FieldKind.of(null));
    for (String name : new String[] {"geo_shape", "flattened", "Keyword", "keyword ", "", "unknown", "search_as_you_type"}) {
      assertSame(FieldKind.UNKNOWN, FieldKind.of(name), name);
    }
  }

  @Test
  void familiesAsWrittenOut() {
    assertEquals(EnumSet.of(FieldKind.TEXT, FieldKind.MATCH_ONLY_TEXT), kinds(FieldKind::isText));
    assertEquals(EnumSet.of(FieldKind.KEYWORD, FieldKind.CONSTANT_KEYWORD, FieldKind.WILDCARD),
        kinds(FieldKind::isKeywordFamily));
    assertEquals(EnumSet.of(FieldKind.KEYWORD, FieldKind.CONSTANT_KEYWORD), kinds(FieldKind::hasTermOrdinals));
    assertEquals(EnumSet.of(FieldKind.DATE, FieldKind.DATE_NANOS), kinds(FieldKind::isDate));
    assertEquals(EnumSet.of(FieldKind.LONG, FieldKind.INTEGER, FieldKind.SHORT, FieldKind.BYTE),
        kinds(FieldKind::isInteger));
    assertEquals(EnumSet.of(FieldKind.OBJECT, FieldKind.NESTED), kinds(FieldKind::isObject));
    assertEquals(EnumSet.complementOf(EnumSet.of(FieldKind.TEXT, FieldKind.MATCH_ONLY_TEXT)),
        kinds(FieldKind::hasDocValuesByDefault));
  }

  @Test
  void numericAndSortTypes() {
    for (FieldKind k : FieldKind.values()) {
      SortField.Type numeric = switch (k) {
        case LONG, DATE, DATE_NANOS -> SortField.Type.LONG;
        case INTEGER, SHORT, BYTE -> SortField.Type.INT;
        case DOUBLE -> SortField.Type.DOUBLE;
        case FLOAT -> SortField.Type.FLOAT;
        default -> null;
      };
      assertEquals(numeric, k.numericType(), k.toString());
      SortField.Type sort = switch (k) {
        case KEYWORD, CONSTANT_KEYWORD -> SortField.Type.STRING;
        case SCALED_FLOAT -> SortField.Type.LONG;
        default -> numeric;
      };
      assertEquals(sort, k.sortType(), k.toString());
    }
    // what has its own encoding is neither read as a number nor sorted on
    for (FieldKind k : EnumSet.of(FieldKind.HALF_FLOAT, FieldKind.UNSIGNED_LONG, FieldKind.BOOLEAN, FieldKind.IP,
        FieldKind.WILDCARD, FieldKind.TEXT, FieldKind.GEO_POINT, FieldKind.UNKNOWN, FieldKind.OBJECT)) {
      assertNull(k.sortType(), k.toString());
    }
  }

  @Test
  void integerRangesAreTheJavaTypes() {
    assertEquals(Long.MIN_VALUE, FieldKind.LONG.minValue());
    assertEquals(Long.MAX_VALUE, FieldKind.LONG.maxValue());
    assertEquals(-2147483648L, FieldKind.INTEGER.minValue());
    assertEquals(2147483647L, FieldKind.INTEGER.maxValue());
    assertEquals(-32768L, FieldKind.SHORT.minValue());
    assertEquals(32767L, FieldKind.SHORT.maxValue());
    assertEquals(-128L, FieldKind.BYTE.minValue());
    assertEquals(127L, FieldKind.BYTE.maxValue());
    for (FieldKind k : FieldKind.values()) {
      if (!k.isInteger()) {
        assertThrows(IllegalStateException.class, k::minValue, k.toString());
        assertThrows(IllegalStateException.class, k::maxValue, k.toString());
      }
    }
  }

  @Test
  void aMappingsFieldsCarryTheirKind() throws Exception {
    IndexMapping mapping = IndexMapping.of(new ObjectMapper().readTree("""
        {"properties": {
          "msg": {"type": "match_only_text", "doc_values": true, "fields": {"raw": {"type": "keyword"}}},
          "at": {"type": "date_nanos"},
          "shape": {"type": "geo_shape"},
          "blob": {"enabled": false},
          "n": {"type": "nested", "properties": {"x": {"type": "short", "doc_values": false}}},
          "o": {"properties": {"y": {"type": "ip"}}}
        }}"""));
    IndexMapping.Field msg = mapping.field("msg");
    assertSame(FieldKind.MATCH_ONLY_TEXT, msg.kind());
    assertFalse(msg.docValues(), "text never keeps doc values, whatever the mapping says");
    assertEquals("standard", msg.analyzer());
    assertSame(FieldKind.KEYWORD, mapping.field("msg.raw").kind());
    assertTrue(mapping.field("msg.raw").docValues());
    assertSame(FieldKind.DATE_NANOS, mapping.field("at").kind());
    assertTrue(mapping.field("at").isDate());
    assertEquals(IndexMapping.Field.DEFAULT_DATE_FORMAT, mapping.field("at").format());
    assertSame(FieldKind.UNKNOWN, mapping.field("shape").kind());
    assertEquals("geo_shape", mapping.field("shape").type(), "an unknown type keeps its name");
    assertSame(FieldKind.OBJECT, mapping.field("blob").kind(), "no type and no properties: an object");
    assertEquals("object", mapping.field("blob").type());
    assertSame(FieldKind.SHORT, mapping.field("n.x").kind());
    assertEquals("n", mapping.field("n.x").nestedPath());
    assertFalse(mapping.field("n.x").docValues());
    assertSame(FieldKind.IP, mapping.field("o.y").kind());
    assertNull(mapping.field("o.y").nestedPath());
  }

  @Test
  void aFieldWhoseKindIsNotItsTypesIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new IndexMapping.Field("f",
        "keyword", FieldKind.TEXT, null, null, null, null, true, true));
    assertTrue(e.getMessage().contains("'f'") && e.getMessage().contains("KEYWORD"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new IndexMapping.Field("f", "geo_shape", FieldKind.OBJECT,
        null, null, null, null, true, true));
    assertEquals(FieldKind.UNKNOWN, new IndexMapping.Field("f", "geo_shape", FieldKind.UNKNOWN, null, null, null, null,
        true, true).kind());
  }

  private static Set<FieldKind> kinds(java.util.function.Predicate<FieldKind> question) {
    return Stream.of(FieldKind.values()).filter(question)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(FieldKind.class)));
  }
}
