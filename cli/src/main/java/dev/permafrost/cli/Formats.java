/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.snapshot.PointRange;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.util.NumericUtils;

/** How the commands print sizes, counts, hit totals and point values. */
final class Formats {
  /** Epoch milliseconds from 1970 to 2200 are also printed as instants: most 8-byte point fields are times. */
  private static final long LAST_PLAUSIBLE_MILLIS = 7_258_118_400_000L;

  private Formats() {}

  /** {@code 1536} as {@code 1.5 KiB}; below 1 KiB, bytes. */
  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  /** A count with thousands separators: {@code 12,345}. */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** {@code n} and the noun, plural when {@code n != 1}: {@code 1 file}, {@code 3 files}. */
  static String plural(long n, String noun) {
    return count(n) + " " + noun + (n == 1 ? "" : "s");
  }

  /** {@code 1,234 hits}, or, for a lower bound, {@code at least 1,000 hits} and how to count them all. */
  static String total(TotalHits total) {
    return total.relation() == TotalHits.Relation.EQUAL_TO ? plural(total.value(), "hit")
        : "at least " + plural(total.value(), "hit") + " (a lower bound; --exact-total counts them all)";
  }

  /**
   * A point range's minimum and maximum: as integers for one dimension of 4 or 8 bytes (with the instant for 8-byte
   * values that look like epoch milliseconds), else as hex per dimension.
   */
  static String pointRange(PointRange r) {
    return "min " + pointValue(r, r.minPackedValue()) + ", max " + pointValue(r, r.maxPackedValue()) + " ("
        + plural(r.docCount(), "document") + " with a value, " + r.numDimensions() + "d x " + r.bytesPerDimension()
        + " bytes)";
  }

  static String pointValue(PointRange r, byte[] packed) {
    if (r.numDimensions() == 1 && r.bytesPerDimension() == Long.BYTES) {
      long v = NumericUtils.sortableBytesToLong(packed, 0);
      return v >= 0 && v <= LAST_PLAUSIBLE_MILLIS ? v + " (" + Instant.ofEpochMilli(v) + ")" : Long.toString(v);
    }
    if (r.numDimensions() == 1 && r.bytesPerDimension() == Integer.BYTES) {
      return Integer.toString(NumericUtils.sortableBytesToInt(packed, 0));
    }
    StringBuilder sb = new StringBuilder("[");
    for (int d = 0; d < r.numDimensions(); d++) {
      if (d > 0) {
        sb.append(", ");
      }
      sb.append(HexFormat.of().formatHex(packed, d * r.bytesPerDimension(), (d + 1) * r.bytesPerDimension()));
    }
    return sb.append(']').toString();
  }
}
