/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the pushed conditions say about which snapshots can have rows, read on the driver: the range of the timestamp
 * field every row must fall in (compared with each manifest's recorded range) and the {@code _index} values allowed.
 * Only what every row must satisfy counts: the conditions are ANDed, an {@code OR} bounds by the hull of its branches
 * when each branch is bounded, and anything else bounds nothing.
 */
final class Pruning {
  private Pruning() {}

  /** {from, to} in milliseconds (inclusive) that every row's timestamp falls in, or null if unbounded. */
  static long[] timeBounds(List<Condition> conditions, String timestampField) {
    long[] bounds = null;
    for (Condition c : conditions) {
      bounds = intersect(bounds, bounds(c, timestampField));
    }
    return bounds;
  }

  private static long[] bounds(Condition c, String field) {
    return switch (c) {
      case Condition.PointRange r when r.field().equals(field) -> new long[] {r.lower(), r.upper()};
      case Condition.PointSet s when s.field().equals(field) && !s.values().isEmpty() ->
          new long[] {s.values().stream().mapToLong(Long::longValue).min().getAsLong(),
              s.values().stream().mapToLong(Long::longValue).max().getAsLong()};
      case Condition.None n -> new long[] {1, 0};
      case Condition.And a -> {
        long[] b = null;
        for (Condition x : a.all()) {
          b = intersect(b, bounds(x, field));
        }
        yield b;
      }
      case Condition.Or o -> {
        long[] hull = null;
        for (Condition x : o.any()) {
          long[] b = bounds(x, field);
          if (b == null) {
            yield null;
          }
          hull = hull == null ? b : new long[] {Math.min(hull[0], b[0]), Math.max(hull[1], b[1])};
        }
        yield hull;
      }
      default -> null;
    };
  }

  private static long[] intersect(long[] a, long[] b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return new long[] {Math.max(a[0], b[0]), Math.min(a[1], b[1])};
  }

  /** The index names every row must come from, or null if any. */
  static Set<String> indices(List<Condition> conditions) {
    Set<String> allowed = null;
    for (Condition c : conditions) {
      if (c instanceof Condition.Indices i) {
        if (allowed == null) {
          allowed = new HashSet<>(i.names());
        } else {
          allowed.retainAll(i.names());
        }
      } else if (c instanceof Condition.And a) {
        Set<String> inner = indices(a.all());
        if (inner != null) {
          if (allowed == null) {
            allowed = inner;
          } else {
            allowed.retainAll(inner);
          }
        }
      }
    }
    return allowed;
  }
}
