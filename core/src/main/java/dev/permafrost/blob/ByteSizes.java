/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.util.Locale;

/** Parses and prints byte sizes such as {@code 16mb} or {@code 10gb} (powers of 1024). */
public final class ByteSizes {
  private ByteSizes() {}

  /**
   * Parses a byte size: a whole number of bytes, optionally followed by b, kb, mb, gb or tb (case-insensitive,
   * powers of 1024).
   *
   * @throws IllegalArgumentException if the text is not such a size or overflows a long
   */
  public static long parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    long multiplier = 1;
    String digits = s;
    String[] units = {"tb", "gb", "mb", "kb", "b"};
    long[] factors = {1L << 40, 1L << 30, 1L << 20, 1L << 10, 1};
    for (int i = 0; i < units.length; i++) {
      if (s.endsWith(units[i])) {
        multiplier = factors[i];
        digits = s.substring(0, s.length() - units[i].length()).trim();
        break;
      }
    }
    try {
      long value = Long.parseLong(digits);
      if (value < 0) {
        throw new IllegalArgumentException("byte size must not be negative: '" + text + "'");
      }
      return Math.multiplyExact(value, multiplier);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("not a byte size: '" + text + "' (expected e.g. 512kb, 16mb, 10gb)", e);
    }
  }

  /** Prints a size with the largest unit that keeps it a whole number, e.g. {@code 16mb}. */
  public static String format(long bytes) {
    String[] units = {"tb", "gb", "mb", "kb"};
    int[] shifts = {40, 30, 20, 10};
    for (int i = 0; i < units.length; i++) {
      if (bytes != 0 && bytes % (1L << shifts[i]) == 0) {
        return (bytes >> shifts[i]) + units[i];
      }
    }
    return bytes + "b";
  }
}
