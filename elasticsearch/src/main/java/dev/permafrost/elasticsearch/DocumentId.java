/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.apache.lucene.util.BytesRef;

/**
 * A document's {@code _id} as the engines keep it in the index: a string of decimal digits packed two to a byte
 * after the marker {@code 0xfe} (a final nibble {@code 0xf} when their count is odd), a URL-safe base64 string
 * without padding as the bytes it encodes (behind {@code 0xfd} when its first byte is {@code 0xfd} or more), anything
 * else as UTF-8 after {@code 0xff}.
 */
public final class DocumentId {
  private static final int UTF8 = 0xff;
  private static final int NUMERIC = 0xfe;
  private static final int BASE64_ESCAPE = 0xfd;

  private DocumentId() {}

  /** The id that the indexed or stored bytes of {@code _id} encode. */
  public static String decode(BytesRef bytes) {
    return decode(bytes.bytes, bytes.offset, bytes.length);
  }

  /** The id that {@code length} bytes of {@code _id} from {@code offset} encode. */
  public static String decode(byte[] b, int offset, int length) {
    if (length == 0) {
      throw new IllegalArgumentException("an _id of no bytes");
    }
    int marker = b[offset] & 0xff;
    if (marker == UTF8) {
      return new String(b, offset + 1, length - 1, StandardCharsets.UTF_8);
    }
    if (marker == NUMERIC) {
      StringBuilder digits = new StringBuilder(2 * (length - 1));
      for (int i = offset + 1; i < offset + length; i++) {
        int high = (b[i] & 0xff) >>> 4;
        int low = b[i] & 0x0f;
        digits.append((char) ('0' + high));
        if (low == 0x0f && i == offset + length - 1) {
          break;
        }
        digits.append((char) ('0' + low));
      }
      return digits.toString();
    }
    int from = marker == BASE64_ESCAPE ? offset + 1 : offset;
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOfRange(b, from, offset + length));
  }

  /** The bytes the engines index for {@code id}: what a term query on {@code _id} looks for. */
  public static BytesRef encode(String id) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("an empty _id");
    }
    if (id.chars().allMatch(c -> c >= '0' && c <= '9')) {
      byte[] b = new byte[1 + (id.length() + 1) / 2];
      b[0] = (byte) NUMERIC;
      for (int i = 0; i < id.length(); i += 2) {
        int high = id.charAt(i) - '0';
        int low = i + 1 < id.length() ? id.charAt(i + 1) - '0' : 0x0f;
        b[1 + i / 2] = (byte) (high << 4 | low);
      }
      return new BytesRef(b);
    }
    if (isUnpaddedUrlBase64(id)) {
      byte[] decoded = Base64.getUrlDecoder().decode(id);
      if (decoded.length > 0 && (decoded[0] & 0xff) >= BASE64_ESCAPE) {
        byte[] escaped = new byte[decoded.length + 1];
        escaped[0] = (byte) BASE64_ESCAPE;
        System.arraycopy(decoded, 0, escaped, 1, decoded.length);
        decoded = escaped;
      }
      return new BytesRef(decoded);
    }
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    byte[] b = new byte[utf8.length + 1];
    b[0] = (byte) UTF8;
    System.arraycopy(utf8, 0, b, 1, utf8.length);
    return new BytesRef(b);
  }

  /**
   * Whether {@code id} is URL-safe base64 without padding that decodes to bytes which encode back to exactly it:
   * its length is not 1 modulo 4, and its last character leaves no bits that decoding would drop.
   */
  static boolean isUnpaddedUrlBase64(String id) {
    int rest = id.length() & 3;
    if (rest == 1) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '-' || c == '_')) {
        return false;
      }
    }
    if (rest == 0) {
      return true;
    }
    int last = base64Value(id.charAt(id.length() - 1));
    int unusedBits = rest == 2 ? 4 : 2; // 2 characters carry 1 byte (12 - 8 bits spare), 3 carry 2 (18 - 16)
    return (last & ((1 << unusedBits) - 1)) == 0;
  }

  private static int base64Value(char c) {
    if (c >= 'A' && c <= 'Z') {
      return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
      return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
      return c - '0' + 52;
    }
    return c == '-' ? 62 : 63;
  }
}
