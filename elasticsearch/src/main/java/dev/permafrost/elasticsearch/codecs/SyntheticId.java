/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.lucene.util.BitUtil;
import org.apache.lucene.util.BytesRef;

/**
 * The synthetic {@code _id} of a time_series document of Elasticsearch 9.4 and later, as a rule of its own: the id is
 * the URL-safe base64 (no padding) of {@code tsid ‖ BE64(Long.MAX_VALUE − @timestamp) ‖ BE32(routingHash)}, and its
 * indexed form ({@code DocumentId}'s rules for a base64 id) is those bytes, behind {@code 0xfd} when the tsid's first
 * byte is {@code 0xfd} or more. So ids sort, as bytes, like the documents of an index sorted by {@code _tsid} ascending
 * and {@code @timestamp} descending (the tail after the tsid is {@value #TAIL} bytes; a tsid that is a proper prefix
 * of another would break that, which the terms enum checks as it walks). The routing hash is kept in
 * {@code _ts_routing_hash} as the indexed form of the base64 id of its four little-endian bytes.
 *
 * <p>{@code dev.permafrost.elasticsearch.DocumentId} is the home of the id encoding; this package, which that one
 * names, decodes only the routing hash's short ids itself, so that no package cycle forms (a test checks that both
 * agree).
 */
final class SyntheticId {
  /** Bytes after the tsid: the inverted timestamp and the routing hash. */
  static final int TAIL = Long.BYTES + Integer.BYTES;
  /** The escape before decoded base64 bytes whose first byte is this or more. */
  static final int ESCAPE = 0xfd;

  /** The parts an indexed synthetic id names: a tsid, a timestamp, a routing hash. */
  record Parts(BytesRef tsid, long timestamp, int routingHash) {}

  private SyntheticId() {}

  /** The indexed bytes of the id of a document with {@code tsid}, {@code timestamp} and {@code routingHash}. */
  static BytesRef indexed(BytesRef tsid, long timestamp, int routingHash) {
    if (tsid.length == 0) {
      throw new IllegalArgumentException("an empty _tsid");
    }
    int escape = (tsid.bytes[tsid.offset] & 0xff) >= ESCAPE ? 1 : 0;
    byte[] b = new byte[escape + tsid.length + TAIL];
    b[0] = (byte) ESCAPE; // overwritten by the tsid when there is no escape
    System.arraycopy(tsid.bytes, tsid.offset, b, escape, tsid.length);
    int at = escape + tsid.length;
    BitUtil.VH_BE_LONG.set(b, at, Long.MAX_VALUE - timestamp);
    BitUtil.VH_BE_INT.set(b, at + Long.BYTES, routingHash);
    return new BytesRef(b);
  }

  /**
   * The parts {@code indexed} names, or null if no synthetic id is indexed so: a numeric or UTF-8 id (first byte
   * {@code 0xfe}, {@code 0xff}), an escape before a byte under {@code 0xfd}, or too few bytes for a tsid and a tail.
   * The tsid shares {@code indexed}'s bytes.
   */
  static Parts parse(BytesRef indexed) {
    int from = indexed.offset;
    int end = indexed.offset + indexed.length;
    if (indexed.length > 0) {
      int first = indexed.bytes[from] & 0xff;
      if (first > ESCAPE) {
        return null;
      }
      if (first == ESCAPE) {
        from++;
        if (from == end || (indexed.bytes[from] & 0xff) < ESCAPE) {
          return null;
        }
      }
    }
    int tsidLength = end - from - TAIL;
    if (tsidLength < 1) {
      return null;
    }
    int at = from + tsidLength;
    long timestamp = Long.MAX_VALUE - (long) BitUtil.VH_BE_LONG.get(indexed.bytes, at);
    int routingHash = (int) BitUtil.VH_BE_INT.get(indexed.bytes, at + Long.BYTES);
    return new Parts(new BytesRef(indexed.bytes, from, tsidLength), timestamp, routingHash);
  }

  /**
   * The routing hash a {@code _ts_routing_hash} term keeps: the indexed form of the base64 id of the hash's four
   * little-endian bytes, decoded by the id encoding's rules (so that a six-character id of digits, which is indexed
   * as a number, decodes too).
   *
   * @throws IllegalArgumentException if the term is not four bytes so encoded
   */
  static int routingHash(BytesRef term) {
    byte[] bytes = term.length == 0 ? null : idBytes(term);
    if (bytes == null || bytes.length != Integer.BYTES) {
      throw new IllegalArgumentException("a _ts_routing_hash of " + term + " ('"
          + new String(term.bytes, term.offset, term.length, StandardCharsets.ISO_8859_1).replaceAll("[^ -~]", "?")
          + "'), not the indexed base64 id of four bytes");
    }
    return (int) BitUtil.VH_LE_INT.get(bytes, 0);
  }

  /** The bytes an indexed id's base64 string stands for, or null if its string is not base64. */
  private static byte[] idBytes(BytesRef term) {
    int first = term.bytes[term.offset] & 0xff;
    int from = term.offset + 1;
    int end = term.offset + term.length;
    String text;
    if (first == 0xfe) { // decimal digits, two to a byte, a final nibble 0xf when their count is odd
      StringBuilder digits = new StringBuilder();
      for (int i = from; i < end; i++) {
        digits.append((char) ('0' + ((term.bytes[i] & 0xff) >>> 4)));
        int low = term.bytes[i] & 0x0f;
        if (low != 0x0f || i != end - 1) {
          digits.append((char) ('0' + low));
        }
      }
      text = digits.toString();
    } else if (first == 0xff) {
      text = new String(term.bytes, from, end - from, StandardCharsets.UTF_8);
    } else {
      int at = first == ESCAPE ? from : term.offset;
      byte[] b = new byte[end - at];
      System.arraycopy(term.bytes, at, b, 0, b.length);
      return b;
    }
    try {
      return Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
