/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.sample;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Draws web-server access-log events deterministically: the same seed, day and count give the same events, on
 * any machine. Shaped after the nginx logs of Elasticsearch's frozen-tier benchmarks: client addresses and URLs
 * follow Zipf laws, most answers are 200 with realistic shares of 3xx, 404 (about 5%, mostly on paths that never
 * existed) and 5xx (about 1.5%), and traffic follows a daily cycle.
 *
 * <p>One address, {@link #NEEDLE_IP}, appears in a handful of events per day and nowhere else: the needle.
 */
public final class AccessLogGenerator {
  /** The client address of the needle workload: a few events per day, at fixed positions. */
  public static final String NEEDLE_IP = "203.0.113.77";
  /** One needle event every this many events of a day, starting at event 17. */
  static final int NEEDLE_EVERY = 50_021;

  static final String[] HOSTS = {
    "web-01", "web-02", "web-03", "web-04", "web-05", "web-06", "web-07", "web-08",
    "web-09", "web-10", "web-11", "web-12", "edge-01", "edge-02", "edge-03", "edge-04"
  };

  /** User agents: original string, name, OS, device. */
  static final String[][] USER_AGENTS = {
    {"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", "Chrome", "Windows", "Other"},
    {"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15", "Safari", "Mac OS X", "Mac"},
    {"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1", "Mobile Safari", "iOS", "iPhone"},
    {"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", "Chrome Mobile", "Android", "Pixel 8"},
    {"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0", "Firefox", "Linux", "Other"},
    {"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0", "Firefox", "Windows", "Other"},
    {"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0", "Edge", "Windows", "Other"},
    {"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", "Other", "Spider"},
    {"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "Bingbot", "Other", "Spider"},
    {"curl/8.4.0", "curl", "Other", "Other"},
    {"python-requests/2.31.0", "Python Requests", "Other", "Other"},
    {"Go-http-client/1.1", "Go-http-client", "Other", "Other"},
    {"Apache-HttpClient/4.5.14 (Java/17.0.9)", "Apache-HttpClient", "Other", "Other"},
    {"Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1", "Mobile Safari", "iOS", "iPad"},
  };
  private static final double[] USER_AGENT_WEIGHTS = {30, 14, 16, 12, 4, 4, 6, 3, 2, 2, 2, 1.5, 1, 2.5};

  /** Countries (ISO code, continent), in order of traffic. */
  static final String[][] COUNTRIES = {
    {"US", "North America"}, {"CN", "Asia"}, {"IN", "Asia"}, {"DE", "Europe"}, {"GB", "Europe"},
    {"BR", "South America"}, {"FR", "Europe"}, {"JP", "Asia"}, {"RU", "Europe"}, {"CA", "North America"},
    {"KR", "Asia"}, {"NL", "Europe"}, {"IT", "Europe"}, {"ES", "Europe"}, {"AU", "Oceania"},
    {"MX", "North America"}, {"ID", "Asia"}, {"TR", "Asia"}, {"PL", "Europe"}, {"SE", "Europe"},
    {"VN", "Asia"}, {"UA", "Europe"}, {"AR", "South America"}, {"ZA", "Africa"}, {"NG", "Africa"},
    {"EG", "Africa"}, {"TH", "Asia"}, {"PH", "Asia"}, {"CO", "South America"}, {"CH", "Europe"},
    {"BE", "Europe"}, {"AT", "Europe"}, {"SG", "Asia"}, {"IE", "Europe"}, {"NO", "Europe"},
    {"FI", "Europe"}, {"DK", "Europe"}, {"PT", "Europe"}, {"CZ", "Europe"}, {"RO", "Europe"},
    {"IL", "Asia"}, {"CL", "South America"}, {"NZ", "Oceania"}, {"KE", "Africa"}, {"MA", "Africa"},
  };

  private static final String[] SECTIONS = {"products", "blog", "docs", "api/v1/items", "api/v2/search", "category", "user", "static/js", "static/css", "static/img"};
  private static final String[] EXTENSIONS = {"", "", "", ".html", ".json", "", ".js", ".css", ".png", ".jpg"};
  private static final String[] SCANNER_PATHS = {
    "/wp-login.php", "/.env", "/admin/config.php", "/phpmyadmin/index.php", "/.git/config", "/xmlrpc.php",
    "/cgi-bin/luci", "/actuator/health", "/server-status", "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php"
  };
  private static final String[] REFERRERS = {
    "-", "-", "-", "https://www.google.com/", "https://www.bing.com/", "https://duckduckgo.com/",
    "https://t.co/", "https://www.facebook.com/", "https://news.ycombinator.com/", "https://www.reddit.com/"
  };
  private static final Integer[] STATUSES = {200, 304, 301, 302, 206, 404, 403, 401, 499, 500, 502, 503, 504};
  private static final double[] STATUS_WEIGHTS = {83.0, 4.0, 1.2, 1.3, 0.5, 0 /* 404 drawn separately */, 0.6, 0.9, 0.5, 0.6, 0.4, 0.35, 0.25};
  private static final String[] METHODS = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS"};
  private static final double[] METHOD_WEIGHTS = {89, 7, 2, 1, 0.5, 0.5};

  /** Share of events that are 404s. */
  static final double NOT_FOUND_SHARE = 0.05;

  private final long seed;
  private final String[] ips;
  private final String[] paths;
  private final Distributions.Zipf ipDistribution;
  private final Distributions.Zipf pathDistribution;
  private final Distributions.Zipf countryDistribution;
  private final Distributions.Weighted<Integer> statusDistribution;
  private final Distributions.Weighted<String> methodDistribution;
  private final Distributions.Weighted<Integer> userAgentDistribution;

  /** A generator whose output depends on {@code seed} only. */
  public AccessLogGenerator(long seed) {
    this.seed = seed;
    SplittableRandom random = new SplittableRandom(seed);
    ips = new String[50_000];
    for (int i = 0; i < ips.length; i++) {
      String ip;
      do {
        ip = (1 + random.nextInt(223)) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + (1 + random.nextInt(254));
      } while (ip.equals(NEEDLE_IP));
      ips[i] = ip;
    }
    paths = new String[5_000];
    for (int i = 0; i < paths.length; i++) {
      int section = random.nextInt(SECTIONS.length);
      paths[i] = "/" + SECTIONS[section] + "/" + slug(random) + EXTENSIONS[section];
    }
    ipDistribution = new Distributions.Zipf(ips.length, 1.1);
    pathDistribution = new Distributions.Zipf(paths.length, 1.0);
    countryDistribution = new Distributions.Zipf(COUNTRIES.length, 1.2);
    statusDistribution = new Distributions.Weighted<>(STATUS_WEIGHTS, STATUSES);
    methodDistribution = new Distributions.Weighted<>(METHOD_WEIGHTS, METHODS);
    Integer[] uaIndexes = new Integer[USER_AGENTS.length];
    for (int i = 0; i < uaIndexes.length; i++) {
      uaIndexes[i] = i;
    }
    userAgentDistribution = new Distributions.Weighted<>(USER_AGENT_WEIGHTS, uaIndexes);
  }

  private static String slug(SplittableRandom random) {
    String[] words = {"alpha", "north", "river", "pixel", "cloud", "stone", "ember", "frost", "delta", "orbit", "maple", "cedar"};
    return words[random.nextInt(words.length)] + "-" + words[random.nextInt(words.length)] + "-" + random.nextInt(1000);
  }

  /** Midnight UTC of {@code day}, in epoch milliseconds. */
  public static long dayStart(LocalDate day) {
    return day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
  }

  /**
   * Draws {@code count} events of {@code day} in timestamp order and hands each to {@code sink}. Timestamps
   * follow a daily cycle: traffic peaks in the afternoon (UTC) and is lowest at night.
   */
  public void generateDay(LocalDate day, int count, Consumer<AccessLogEvent> sink) {
    SplittableRandom random = new SplittableRandom(seed * 31 + day.toEpochDay());
    long start = dayStart(day);
    double dayMillis = 86_400_000.0;
    for (int i = 0; i < count; i++) {
      // An increasing map of [0, 1] onto itself whose slope is lowest (events densest) at x = 0.65, 15:36 UTC.
      double x = (i + 0.5) / count;
      double t = x - 0.6 * (Math.sin(2 * Math.PI * (x - 0.65)) - Math.sin(-2 * Math.PI * 0.65)) / (2 * Math.PI);
      long timestamp = start + Math.min((long) (t * dayMillis), 86_399_999L);
      sink.accept(event(random, timestamp, i % NEEDLE_EVERY == 17));
    }
  }

  /** All events of a day in a list; for tests and small runs. */
  public List<AccessLogEvent> day(LocalDate day, int count) {
    List<AccessLogEvent> events = new ArrayList<>(count);
    generateDay(day, count, events::add);
    return events;
  }

  private AccessLogEvent event(SplittableRandom random, long timestamp, boolean needle) {
    String ip = needle ? NEEDLE_IP : ips[ipDistribution.sample(random)];
    String[] country = COUNTRIES[needle ? 0 : countryDistribution.sample(random)];
    String method = methodDistribution.sample(random);
    int status;
    String path;
    String query = null;
    if (random.nextDouble() < NOT_FOUND_SHARE) {
      status = 404;
      double kind = random.nextDouble();
      if (kind < 0.35) {
        path = SCANNER_PATHS[random.nextInt(SCANNER_PATHS.length)];
      } else if (kind < 0.7) {
        path = "/static/img/" + Long.toHexString(random.nextLong() & 0xFFFFFFFFFFL) + ".png";
      } else {
        path = paths[pathDistribution.sample(random)] + "/" + random.nextInt(100);
      }
    } else {
      status = statusDistribution.sample(random);
      path = paths[pathDistribution.sample(random)];
      if (path.startsWith("/api/") && random.nextInt(3) == 0) {
        query = "q=" + random.nextInt(10_000) + "&page=" + (1 + random.nextInt(20));
      }
    }
    long bytes =
        switch (status) {
          case 304, 301, 302, 204 -> 0;
          case 404, 403, 401 -> 150 + random.nextInt(400);
          case 500, 502, 503, 504 -> 160 + random.nextInt(200);
          default -> (long) Math.min(50_000_000, Math.exp(6 + 3.5 * random.nextDouble()) + random.nextInt(200));
        };
    long duration = (long) (1_000_000 * Math.exp(random.nextDouble() * 5)) + (status >= 500 ? 2_000_000_000L : 0);
    int host = random.nextInt(HOSTS.length);
    int userAgent = userAgentDistribution.sample(random);
    String referrer = REFERRERS[random.nextInt(REFERRERS.length)];
    byte[] trace = new byte[16];
    for (int i = 0; i < trace.length; i += 8) {
      long v = random.nextLong();
      for (int j = 0; j < 8; j++) {
        trace[i + j] = (byte) (v >>> (8 * j));
      }
    }
    String city = country[0] + "-city-" + random.nextInt(8);
    return new AccessLogEvent(
        timestamp,
        host,
        ip,
        1024 + random.nextInt(64_000),
        country[0],
        country[1],
        city,
        method,
        path,
        query,
        random.nextInt(4) == 0 ? "2.0" : "1.1",
        status,
        bytes,
        duration,
        referrer,
        userAgent,
        HexFormat.of().formatHex(trace));
  }
}
