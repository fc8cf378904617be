/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.nio.charset.StandardCharsets;

/**
 * The rules every blob name follows, whatever the store: a relative '/'-separated path with no empty segment,
 * no "." or ".." segment, no backslash and no control character, at most {@value #MAX_LENGTH} bytes in UTF-8.
 * A name that breaks them is rejected before any store is touched, so that it can never resolve outside the
 * store's root.
 */
public final class BlobNames {
  /** The longest name any supported store accepts (S3 and GCS keys are limited to 1024 bytes). */
  public static final int MAX_LENGTH = 1024;

  private BlobNames() {}

  /**
   * Returns {@code name} if it is a valid blob name.
   *
   * @throws IllegalArgumentException saying what is wrong with the name
   */
  public static String validate(String name) {
    if (name == null) {
      throw new IllegalArgumentException("blob name must not be null");
    }
    if (name.isEmpty()) {
      throw new IllegalArgumentException("blob name must not be empty");
    }
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "blob name is longer than " + MAX_LENGTH + " bytes: '" + name.substring(0, 64) + "...'");
    }
    if (name.charAt(0) == '/') {
      throw invalid(name, "it is absolute (starts with '/')");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '\\') {
        throw invalid(name, "it contains a backslash");
      }
      if (Character.isISOControl(c)) {
        throw invalid(name, "it contains a control character at index " + i);
      }
    }
    int start = 0;
    while (start <= name.length()) {
      int end = name.indexOf('/', start);
      if (end < 0) {
        end = name.length();
      }
      String segment = name.substring(start, end);
      if (segment.isEmpty()) {
        throw invalid(name, "it has an empty path segment");
      }
      if (segment.equals(".") || segment.equals("..")) {
        throw invalid(name, "it has a '" + segment + "' path segment");
      }
      start = end + 1;
    }
    return name;
  }

  /**
   * Returns {@code prefix} if it is a valid listing prefix: empty, or a valid blob name, or a valid blob name
   * followed by '/'.
   */
  public static String validatePrefix(String prefix) {
    if (prefix == null) {
      throw new IllegalArgumentException("prefix must not be null");
    }
    if (prefix.isEmpty()) {
      return prefix;
    }
    validate(prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix);
    return prefix;
  }

  /**
   * Turns a backend's root prefix (from a URI path or a builder) into the form blob names are appended to: no
   * leading or trailing '/', then one trailing '/'; null, empty or "/" give the empty prefix.
   *
   * @param what names the prefix in the error message, e.g. {@code "s3 key prefix"}
   * @throws IllegalArgumentException if what remains is not a valid blob name
   */
  public static String normalizePrefix(String prefix, String what) {
    String p = prefix == null ? "" : prefix;
    int start = 0;
    int end = p.length();
    while (start < end && p.charAt(start) == '/') {
      start++;
    }
    while (end > start && p.charAt(end - 1) == '/') {
      end--;
    }
    p = p.substring(start, end);
    if (p.isEmpty()) {
      return "";
    }
    try {
      validate(p);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid " + what + " '" + prefix + "': " + e.getMessage(), e);
    }
    return p + "/";
  }

  private static IllegalArgumentException invalid(String name, String why) {
    return new IllegalArgumentException("invalid blob name '" + name + "': " + why);
  }
}
