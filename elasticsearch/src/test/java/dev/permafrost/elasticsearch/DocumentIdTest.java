/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Base64;
import java.util.Random;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * Ids of every kind survive encoding and decoding: decimal strings (odd and even lengths, leading zeros), URL-safe
 * base64 of any bytes (including those starting with the escape byte or above), and arbitrary Unicode. The ids the
 * real engine wrote are checked against its own answers in {@link OpenSearchSnapshotsTest}.
 */
class DocumentIdTest {
  @Test
  void randomIdsRoundTrip() {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    Random random = new Random(seed);
    for (int i = 0; i < 20_000; i++) {
      String id = switch (random.nextInt(4)) {
        case 0 -> digits(random);
        case 1 -> {
          byte[] b = new byte[1 + random.nextInt(20)];
          random.nextBytes(b);
          yield Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        }
        case 2 -> random.ints(1 + random.nextInt(12), 0x20, 0x2FFF).collect(StringBuilder::new,
            StringBuilder::appendCodePoint, StringBuilder::append).toString();
        default -> random.ints(1 + random.nextInt(12), 0, 128).filter(c -> c > 32)
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).append('x').toString();
      };
      BytesRef encoded = DocumentId.encode(id);
      assertEquals(id, DocumentId.decode(encoded), "seed " + seed + ": " + id);
    }
  }

  @Test
  void knownEncodings() {
    assertEquals(new BytesRef(new byte[] {(byte) 0xfe, 0x12, 0x3f}), DocumentId.encode("123"));
    assertEquals(new BytesRef(new byte[] {(byte) 0xfe, 0x12, 0x34}), DocumentId.encode("1234"));
    assertEquals(new BytesRef(new byte[] {(byte) 0xff, 'a', '-', 'b', '='}), DocumentId.encode("a-b="));
    // "_w" is base64 of 0xff: escaped, as it would read as a UTF-8 marker
    assertEquals(new BytesRef(new byte[] {(byte) 0xfd, (byte) 0xff}), DocumentId.encode("_w"));
    // "_x" leaves bits that decoding drops: not base64 for the engines, so UTF-8
    assertEquals(new BytesRef(new byte[] {(byte) 0xff, '_', 'x'}), DocumentId.encode("_x"));
    assertThrows(IllegalArgumentException.class, () -> DocumentId.encode(""));
  }

  private static String digits(Random random) {
    StringBuilder b = new StringBuilder();
    for (int n = 1 + random.nextInt(25); n > 0; n--) {
      b.append((char) ('0' + random.nextInt(10)));
    }
    return b.toString();
  }
}
