/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.elasticsearch.DocumentId;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Random;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.PostingsFormat;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * The synthetic {@code _id} rule over the format notes' worked example (a real 9.5.3 document) and its corners: the
 * escape of a tsid whose first byte is {@code 0xfd} or more, a timestamp before 1970, ids that are not synthetic, a
 * routing hash whose base64 is all digits; and the names Lucene finds by SPI.
 */
class SyntheticIdTest {
  /** §4.3's example: the id the node returned for that document. */
  private static final String EXAMPLE = "JHtjgpkZHpZ3ePzU0vcX7HKjZaaR-wryqxQ4q4D45eYGeGymcX___l3am038C38ppw";
  private static final long EXAMPLE_TIMESTAMP = 1795923685891L;
  private static final int EXAMPLE_HASH = 192883111;

  @Test
  void theWorkedExampleIsTsidInvertedTimestampAndRoutingHash() {
    byte[] id = Base64.getUrlDecoder().decode(EXAMPLE);
    assertEquals(37 + 12, id.length);
    HexFormat hex = HexFormat.of();
    assertEquals("247b6382", hex.formatHex(id, 0, 4));
    assertEquals("6ca671", hex.formatHex(id, 34, 37));
    ByteBuffer tail = ByteBuffer.wrap(id, 37, 12);
    assertEquals(Long.MAX_VALUE - EXAMPLE_TIMESTAMP, tail.getLong());
    assertEquals(EXAMPLE_HASH, tail.getInt());

    // the routing hash as the node keeps it: "pyl_Cw", the base64 of its little-endian bytes
    assertEquals(EXAMPLE_HASH, SyntheticId.routingHash(DocumentId.encode("pyl_Cw")));
    BytesRef tsid = new BytesRef(Arrays.copyOf(id, 37));
    assertEquals(EXAMPLE, DocumentId.decode(SyntheticId.indexed(tsid, EXAMPLE_TIMESTAMP, EXAMPLE_HASH)));
    assertEquals(DocumentId.encode(EXAMPLE), SyntheticId.indexed(tsid, EXAMPLE_TIMESTAMP, EXAMPLE_HASH));

    SyntheticId.Parts parts = SyntheticId.parse(DocumentId.encode(EXAMPLE));
    assertEquals(tsid, parts.tsid());
    assertEquals(EXAMPLE_TIMESTAMP, parts.timestamp());
    assertEquals(EXAMPLE_HASH, parts.routingHash());
  }

  @Test
  void aTsidFromByte0xfdIsEscapedAsDocumentIdEscapesIt() {
    for (int first : new int[] {0x00, 0xfc, 0xfd, 0xfe, 0xff}) {
      BytesRef tsid = new BytesRef(new byte[] {(byte) first, 9, 8});
      BytesRef indexed = SyntheticId.indexed(tsid, -5, -1);
      String id = SyntheticIdTestSegment.expectedId(new byte[] {(byte) first, 9, 8}, -5, -1);
      assertEquals(DocumentId.encode(id), indexed, "first byte " + first);
      assertEquals(id, DocumentId.decode(indexed));
      assertEquals(first >= 0xfd ? 3 + 12 + 1 : 3 + 12, indexed.length);
      SyntheticId.Parts parts = SyntheticId.parse(indexed);
      assertEquals(tsid, parts.tsid());
      assertEquals(-5, parts.timestamp());
      assertEquals(-1, parts.routingHash());
    }
  }

  @Test
  void idsThatNoSeriesMakesParseToNothing() {
    byte[] twelve = new byte[12];
    assertNull(SyntheticId.parse(new BytesRef(twelve)), "no tsid");
    assertNull(SyntheticId.parse(new BytesRef()), "empty");
    assertNull(SyntheticId.parse(DocumentId.encode("12345678901234567890123456789")), "numeric");
    assertNull(SyntheticId.parse(DocumentId.encode("not base64 at all, but long enough")), "UTF-8");
    byte[] badEscape = new byte[20];
    badEscape[0] = (byte) 0xfd;
    badEscape[1] = 0x10;
    assertNull(SyntheticId.parse(new BytesRef(badEscape)), "an escape before a byte that needs none");
    assertTrue(SyntheticId.parse(new BytesRef(new byte[13])) != null, "a tsid of one byte");
  }

  /**
   * The routing hash decodes as {@code DocumentId} would decode its term, whatever form the id encoding gave it: raw
   * bytes, escaped from {@code 0xfd}, and (though the base64 of four bytes never is all digits: its sixth character
   * is one of A, Q, g, w) a number.
   */
  @Test
  void theRoutingHashDecodesAsDocumentIdDoes() {
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    for (int i = 0; i < 2000; i++) {
      int hash = i < 4 ? new int[] {0, -1, 0xfd, 0xfdffffff}[i] : random.nextInt();
      BytesRef term = SyntheticIdTestSegment.routingTerm(hash);
      String id = DocumentId.decode(term);
      assertEquals(hash, ByteBuffer.wrap(Base64.getUrlDecoder().decode(id)).order(ByteOrder.LITTLE_ENDIAN).getInt());
      assertEquals(hash, SyntheticId.routingHash(term), "seed " + seed + ": " + id);
      assertTrue("AQgw".indexOf(id.charAt(5)) >= 0, id);
    }
    byte[] bytes = Base64.getUrlDecoder().decode("123456");
    int hash = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt();
    BytesRef term = DocumentId.encode("123456");
    assertEquals(0xfe, term.bytes[term.offset] & 0xff, "indexed as a number");
    assertEquals(hash, SyntheticId.routingHash(term));
    for (String notFour : new String[] {"AAAAAAAA", "a b", "abc"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SyntheticId.routingHash(DocumentId.encode(notFour)));
      assertTrue(e.getMessage().contains("not the indexed base64 id of four bytes"), e.getMessage());
    }
  }

  @Test
  void theCodecsAndFormatsAreFoundByTheirNames() {
    Codec byDefault = Codec.forName("ES93TSDBDefaultCompressionLucene103Codec");
    assertInstanceOf(ES93TSDBDefaultCompressionLucene103Codec.class, byDefault);
    SyntheticIdStoredFieldsFormat stored = assertInstanceOf(SyntheticIdStoredFieldsFormat.class,
        byDefault.storedFieldsFormat());
    assertEquals(LuceneDelegate.newest().storedFieldsFormat().getClass(), stored.in().getClass());
    Codec best = Codec.forName("ES94TSDBBestCompressionLucene104Codec");
    assertSame(ZstdStoredFieldsFormat.INSTANCE,
        assertInstanceOf(SyntheticIdStoredFieldsFormat.class, best.storedFieldsFormat()).in());
    assertInstanceOf(TSDBSyntheticIdPostingsFormat.class, PostingsFormat.forName("TSDBSyntheticId"));
    assertInstanceOf(ES94BloomFilterDocValuesFormat.class, DocValuesFormat.forName("ES94BloomFilterDocValuesFormat"));
  }
}
