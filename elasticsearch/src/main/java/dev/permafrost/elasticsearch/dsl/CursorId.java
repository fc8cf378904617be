/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.zip.CRC32;

/**
 * The id of an open scroll or point in time, as clients see it: opaque URL-safe base64 of a kind byte, 16 random
 * bytes and a CRC32 of both, so that the id of one kind is never taken for the other's, a guess finds nothing, and a
 * mangled or truncated id is told apart from an unknown one ({@link #parse}: 400, not 404). The cursor itself is in
 * the {@link CursorRegistry}, keyed by the id's text.
 */
final class CursorId {
  /** What an id opens. */
  enum Kind {
    SCROLL((byte) 'S', "scroll id"),
    POINT_IN_TIME((byte) 'P', "point in time id");

    final byte tag;
    final String what;

    Kind(byte tag, String what) {
      this.tag = tag;
      this.what = what;
    }
  }

  private static final int RANDOM_BYTES = 16;
  private static final int LENGTH = 1 + RANDOM_BYTES + 4;
  private static final SecureRandom RANDOM = new SecureRandom();

  private CursorId() {}

  /** A new id of {@code kind}. */
  static String next(Kind kind) {
    ByteBuffer b = ByteBuffer.allocate(LENGTH);
    byte[] random = new byte[RANDOM_BYTES];
    RANDOM.nextBytes(random);
    b.put(kind.tag).put(random);
    b.putInt(crc(b.array()));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
  }

  /**
   * {@code id} checked as an id of {@code kind}: itself, or a 400 ({@code illegal_argument_exception}) naming what is
   * wrong with it if it is not one (garbage, truncated, altered, or the other kind's).
   */
  static String parse(String id, Kind kind) {
    if (id == null || id.isBlank()) {
      throw cannotParse("", kind, "none given");
    }
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(id.trim());
    } catch (IllegalArgumentException e) {
      throw cannotParse(id, kind, "not base64");
    }
    if (bytes.length != LENGTH) {
      throw cannotParse(id, kind, "not a " + kind.what + " of this service");
    }
    if (ByteBuffer.wrap(bytes, LENGTH - 4, 4).getInt() != crc(bytes)) {
      throw cannotParse(id, kind, "its checksum does not match: altered or truncated");
    }
    if (bytes[0] != kind.tag) {
      throw cannotParse(id, kind, "it is not a " + kind.what);
    }
    return id.trim();
  }

  private static DslException cannotParse(String id, Kind kind, String why) {
    String shown = id.length() > 64 ? id.substring(0, 64) + "..." : id;
    return DslException.illegalArgument("Cannot parse " + kind.what + " [" + shown + "]: " + why);
  }

  /** The CRC32 of all but the last 4 bytes. */
  private static int crc(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, LENGTH - 4);
    return (int) crc.getValue();
  }
}
