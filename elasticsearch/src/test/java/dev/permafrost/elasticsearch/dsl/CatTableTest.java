/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link CatTable}'s text and JSON, each expected answer the text a 9.3.3 node printed for the same table. */
class CatTableTest {
  private static CatTable indices() {
    CatTable t = new CatTable("_cat/indices", List.of(
        new CatTable.Column("health", List.of("h"), false, true, "current health status"),
        new CatTable.Column("index", List.of("i", "idx"), false, true, "index name"),
        new CatTable.Column("pri", List.of("p"), true, true, "number of primary shards"),
        new CatTable.Column("docs.deleted", List.of("dd"), true, true, "deleted docs"),
        new CatTable.Column("creation.date", List.of("cd"), false, false, "creation"),
        new CatTable.Column("store.size", List.of("ss"), true, true, "store size")));
    t.add("green", "dsl-b", 1L, 49L, 1795943899900L, new CatTable.Bytes(307624));
    t.add("green", "dsl-a", 2L, 101L, 1795943897719L, new CatTable.Bytes(659597));
    return t;
  }

  @Test
  void sizesAreReadableAsTheNodePrintsThem() {
    assertEquals("0b", CatTable.readable(0));
    assertEquals("1023b", CatTable.readable(1023));
    assertEquals("1kb", CatTable.readable(1024));
    assertEquals("2kb", CatTable.readable(2048));
    assertEquals("300.4kb", CatTable.readable(307624));
    assertEquals("644.1kb", CatTable.readable(659597));
    assertEquals("1.9kb", CatTable.readable(2047)); // cut, not rounded
    assertEquals("1mb", CatTable.readable(1 << 20));
    assertEquals("1.5gb", CatTable.readable(3L << 29));
  }

  @Test
  void textColumnsAreAlignedAsTheNodeAlignsThem() {
    assertEquals("""
        green dsl-b 1  49 300.4kb
        green dsl-a 2 101 644.1kb
        """, indices().render(Map.of()).text());
    assertEquals("""
        health index pri docs.deleted store.size
        green  dsl-b   1           49    300.4kb
        green  dsl-a   2          101    644.1kb
        """, indices().render(Map.of("v", "")).text());
    // a left-aligned last column is not padded; an alias is its column's header; sizes in a unit are cut to whole units
    assertEquals("""
        p i     h
        1 dsl-b green
        2 dsl-a green
        """, indices().render(Map.of("v", "true", "h", "p,i,h")).text());
    assertEquals("""
        i      ss cd
        dsl-a 644 1795943897719
        dsl-b 300 1795943899900
        """, indices().render(Map.of("v", "true", "h", "i,ss,cd", "bytes", "kb", "s", "cd")).text());
    assertEquals("""
        index
        dsl-b
        dsl-a
        """, indices().render(Map.of("v", "true", "h", "index,nosuch", "s", "index:desc")).text());
  }

  @Test
  void jsonIsAnArrayOfStrings() {
    assertEquals("[{\"index\":\"dsl-a\",\"store.size\":\"659597\"},{\"index\":\"dsl-b\",\"store.size\":\"307624\"}]",
        indices().render(Map.of("format", "json", "h", "index,store.size", "bytes", "b", "s", "dd:desc")).json()
            .toString());
  }

  @Test
  void anUnknownSortKeyIsRefusedAsTheNodeRefusesIt() {
    DslException e = assertThrows(DslException.class, () -> indices().render(Map.of("s", "index:up")));
    assertEquals("Unable to sort by unknown sort key `index:up`", e.getMessage());
    assertEquals("illegal_argument_exception", e.type());
  }
}
