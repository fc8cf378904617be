/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import dev.permafrost.sample.AccessLogGenerator;
import dev.permafrost.sample.DatasetSpec;
import java.util.List;

/** The three workloads, with parameters derived from a data set's time span. */
public final class Workloads {
  /** Names accepted by {@link #byName}. */
  public static final List<String> NAMES = List.of("needle", "dashboard", "discover");
  private static final long HOUR = 3_600_000L;

  private Workloads() {}

  /** Every workload over the data set. */
  public static List<Workload> all(DatasetSpec spec) {
    return NAMES.stream().map(n -> byName(n, spec)).toList();
  }

  /**
   * The named workload over the data set: the needle looks for {@link AccessLogGenerator#NEEDLE_IP}; the
   * dashboard and discover cover the whole span but its first tenth, the dashboard with hourly buckets and the
   * top 10 URLs and countries, discover returning 500 events.
   */
  public static Workload byName(String name, DatasetSpec spec) {
    long from = spec.startMillis() + (spec.endMillis() - spec.startMillis()) / 10;
    long to = spec.endMillis();
    return switch (name) {
      case "needle" -> new NeedleWorkload(AccessLogGenerator.NEEDLE_IP);
      case "dashboard" -> new DashboardWorkload(from, to, HOUR, 10);
      case "discover" -> new DiscoverWorkload(from, to, 500);
      default -> throw new IllegalArgumentException("unknown workload '" + name + "'; use one of " + NAMES);
    };
  }

  /**
   * The same kind of search as the named workload with other parameters, as a warm set taken before the searches
   * are known would be: a needle of another address, a dashboard of the first half of the span in half-hour
   * buckets, discover over the first half returning 100 events.
   */
  public static Workload sibling(String name, DatasetSpec spec) {
    long half = spec.startMillis() + (spec.endMillis() - spec.startMillis()) / 2;
    return switch (name) {
      case "needle" -> new NeedleWorkload("198.51.100.23");
      case "dashboard" -> new DashboardWorkload(spec.startMillis(), half, HOUR / 2, 10);
      case "discover" -> new DiscoverWorkload(spec.startMillis(), half, 100);
      default -> throw new IllegalArgumentException("unknown workload '" + name + "'; use one of " + NAMES);
    };
  }
}
