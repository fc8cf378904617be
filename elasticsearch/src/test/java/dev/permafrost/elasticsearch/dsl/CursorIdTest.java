/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Cursor ids and the registry they key: a garbage, truncated, altered or other-kind id is a 400
 * ({@code illegal_argument_exception}, "Cannot parse ..."), a well-formed id nothing is open under a 404
 * ({@code search_context_missing_exception} under {@code search_phase_execution_exception}, as the node answers), never
 * another exception; keep-alives lapse on the registry's clock and lapsed cursors are swept.
 */
class CursorIdTest {
  @Test
  void anIdParsesBackAsItselfAndOnlyAsItsKind() {
    String scroll = CursorId.next(CursorId.Kind.SCROLL);
    assertEquals(scroll, CursorId.parse(scroll, CursorId.Kind.SCROLL));
    assertTrue(scroll.matches("[A-Za-z0-9_-]+"), "URL-safe: it may be sent in a path: " + scroll);
    DslException other = assertThrows(DslException.class, () -> CursorId.parse(scroll, CursorId.Kind.POINT_IN_TIME));
    assertEquals(400, other.status());
    assertTrue(other.getMessage().contains("not a point in time id"), other.getMessage());
  }

  @Test
  void idsAreNotRepeated() {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      assertTrue(ids.add(CursorId.next(CursorId.Kind.POINT_IN_TIME)));
    }
  }

  @Test
  void garbageTruncatedAndAlteredIdsAreA400() {
    String id = CursorId.next(CursorId.Kind.SCROLL);
    List<String> bad = new ArrayList<>(List.of("", " ", "garbage", "!!!!", "_all", id.substring(0, id.length() - 1),
        id + "A", id.substring(1), "FGluY2x1ZGVfY29udGV4dF91dWlkDnF1ZXJ5VGhlbkZldGNoAxZ1Z2Rjen"));
    Random random = new Random(57);
    byte[] bytes = Base64.getUrlDecoder().decode(id);
    for (int i = 0; i < 200; i++) { // every single altered bit is caught by the checksum
      byte[] altered = bytes.clone();
      int bit = random.nextInt(altered.length * 8);
      altered[bit / 8] ^= (byte) (1 << (bit % 8));
      bad.add(Base64.getUrlEncoder().withoutPadding().encodeToString(altered));
    }
    for (String b : bad) {
      DslException e = assertThrows(DslException.class, () -> CursorId.parse(b, CursorId.Kind.SCROLL), b);
      assertEquals(400, e.status(), b);
      assertEquals("illegal_argument_exception", e.type(), b);
      assertTrue(e.getMessage().startsWith("Cannot parse scroll id"), e.getMessage());
      assertNotEquals(id, b);
    }
    assertThrows(DslException.class, () -> CursorId.parse(null, CursorId.Kind.SCROLL));
  }

  @Test
  void aWellFormedIdNothingIsOpenUnderIsA404() {
    CursorRegistry registry = new CursorRegistry(() -> 0);
    String id = CursorId.next(CursorId.Kind.SCROLL);
    DslException e = assertThrows(DslException.class, () -> registry.get(id, CursorId.Kind.SCROLL));
    assertEquals(404, e.status());
    assertEquals("search_phase_execution_exception", e.type());
    assertEquals("search_context_missing_exception", e.rootCauseType());
    assertEquals("No search context found for id [" + id + "]", e.getMessage());
    assertEquals("search_context_missing_exception",
        SearchApi.error(e).at("/error/root_cause/0/type").asText(), SearchApi.error(e).toString());
    assertEquals(0, registry.close(id, CursorId.Kind.SCROLL));
  }

  @Test
  void aCursorLapsesAfterItsKeepAliveAndIsSwept() {
    AtomicLong now = new AtomicLong(5_000);
    CursorRegistry registry = new CursorRegistry(now::get);
    String a = registry.open(new Cursor(CursorId.Kind.POINT_IN_TIME, List.of(), null, java.util.Map.of(), 1000,
        now.get()));
    String b = registry.open(new Cursor(CursorId.Kind.POINT_IN_TIME, List.of(), null, java.util.Map.of(), 60_000,
        now.get()));
    now.addAndGet(1000);
    registry.get(a, CursorId.Kind.POINT_IN_TIME); // exactly at its end: still open
    now.addAndGet(1);
    assertEquals(404, assertThrows(DslException.class, () -> registry.get(a, CursorId.Kind.POINT_IN_TIME)).status());
    assertEquals(1, registry.size(), "a lapsed cursor is gone at its next use");
    registry.get(b, CursorId.Kind.POINT_IN_TIME).touch(now.get());
    now.addAndGet(60_000);
    String c = registry.open(new Cursor(CursorId.Kind.POINT_IN_TIME, List.of(), null, java.util.Map.of(), 1, now.get()));
    assertEquals(2, registry.size(), "b, touched, lives until " + (6_001 + 60_000));
    now.addAndGet(1_000);
    registry.sweep();
    assertEquals(0, registry.size(), "both lapsed, swept without being asked for");
    assertEquals(0, registry.close(c, CursorId.Kind.POINT_IN_TIME));
  }

  @Test
  void cursorsPastTheLimitAreRefusedUntilSomeLapse() {
    AtomicLong now = new AtomicLong(0);
    CursorRegistry registry = new CursorRegistry(now::get, 3);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(registry.open(new Cursor(CursorId.Kind.SCROLL, List.of(), "{}", java.util.Map.of(), 1000 + i,
          now.get())));
    }
    Cursor fourth = new Cursor(CursorId.Kind.SCROLL, List.of(), "{}", java.util.Map.of(), 1000, now.get());
    DslException full = assertThrows(DslException.class, () -> registry.open(fourth));
    assertEquals(429, full.status());
    assertEquals("too_many_scroll_contexts_exception", full.type());
    registry.close(ids.get(1), CursorId.Kind.SCROLL);
    registry.open(fourth); // a closed one makes room
    assertThrows(DslException.class, () -> registry.open(fourth));
    now.addAndGet(1001); // the first and the fourth's first opening lapse
    registry.open(new Cursor(CursorId.Kind.SCROLL, List.of(), "{}", java.util.Map.of(), 1000, now.get()));
    assertEquals(2, registry.size(), "the third (open until 1002) and the new one");
  }

  @Test
  void aShardDocValueNamesAShardAndDocument() {
    long v = CursorPosition.shardDoc(3, 17);
    assertEquals((3L << 32) | 17, v);
    CursorPosition p = CursorPosition.ofShardDoc(new Object[0], v, 4);
    assertEquals(3, p.shard());
    assertEquals(17, p.doc());
    for (long bad : new long[] {-1, CursorPosition.shardDoc(4, 0), Long.MAX_VALUE, (1L << 32) | 0x8000_0000L}) {
      DslException e = assertThrows(DslException.class, () -> CursorPosition.ofShardDoc(new Object[0], bad, 4));
      assertEquals(400, e.status(), Long.toString(bad));
    }
  }
}
