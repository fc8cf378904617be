/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;

/**
 * How a date histogram rounds an instant (UTC epoch milliseconds) down to the key of its bucket, and which key
 * follows a key. Where bucket widths never vary (a fixed interval, or a calendar unit up to a week, in a zone without
 * transitions) the rounding is arithmetic: {@link #interval()} is positive and a key is
 * {@code floorDiv(t - origin, interval) * interval + origin}, which collectors compute inline. Otherwise the keys are
 * local times of the zone, so a day in a zone with daylight saving may last 23 or 25 hours.
 */
abstract class DateRounding {
  static final long MINUTE = 60_000L;
  static final long HOUR = 60 * MINUTE;
  static final long DAY = 24 * HOUR;
  static final long WEEK = 7 * DAY;
  /** 1969-12-29, a Monday: weeks start on Mondays. */
  private static final long MONDAY = -3 * DAY;

  /** Calendar units of {@code calendar_interval}. */
  enum Unit {
    MINUTE(DateRounding.MINUTE), HOUR(DateRounding.HOUR), DAY(DateRounding.DAY), WEEK(DateRounding.WEEK), MONTH(0),
    QUARTER(0), YEAR(0);

    /** The length of one, if every one lasts as long (in a zone without transitions), else 0. */
    final long fixedLength;

    Unit(long fixedLength) {
      this.fixedLength = fixedLength;
    }
  }

  /** The interval of an arithmetic rounding, else 0. */
  long interval() {
    return 0;
  }

  /** The origin of an arithmetic rounding. */
  long origin() {
    return 0;
  }

  /** The key of the bucket holding {@code utcMillis}: the latest key not after it. */
  abstract long round(long utcMillis);

  /** The key of the bucket after the one whose key is {@code key}. */
  abstract long next(long key);

  /** Calendar buckets of {@code unit} in {@code zone}, shifted by {@code offset} milliseconds. */
  static DateRounding calendar(Unit unit, ZoneId zone, long offset) {
    if (unit.fixedLength > 0 && zone.getRules().isFixedOffset()) {
      long zoneOffset = zone.getRules().getOffset(Instant.EPOCH).getTotalSeconds() * 1000L;
      return new Arithmetic(unit.fixedLength, offset - zoneOffset + (unit == Unit.WEEK ? MONDAY : 0));
    }
    return new Calendar(unit, zone, offset);
  }

  /** Fixed buckets of {@code interval} milliseconds, in the local time of {@code zone}, shifted by {@code offset}. */
  static DateRounding fixed(long interval, ZoneId zone, long offset) {
    if (zone.getRules().isFixedOffset()) {
      long zoneOffset = zone.getRules().getOffset(Instant.EPOCH).getTotalSeconds() * 1000L;
      return new Arithmetic(interval, offset - zoneOffset);
    }
    return new FixedInZone(interval, zone, offset);
  }

  /** Buckets of one width from an origin. */
  private static final class Arithmetic extends DateRounding {
    private final long interval;
    private final long origin;

    Arithmetic(long interval, long origin) {
      this.interval = interval;
      this.origin = Math.floorMod(origin, interval);
    }

    @Override
    long interval() {
      return interval;
    }

    @Override
    long origin() {
      return origin;
    }

    @Override
    long round(long utcMillis) {
      return Math.floorDiv(utcMillis - origin, interval) * interval + origin;
    }

    @Override
    long next(long key) {
      return key + interval;
    }
  }

  /** Calendar units in a zone with transitions, or months, quarters and years anywhere. */
  private static final class Calendar extends DateRounding {
    private final Unit unit;
    private final ZoneId zone;
    private final ZoneRules rules;
    private final long offset;

    Calendar(Unit unit, ZoneId zone, long offset) {
      this.unit = unit;
      this.zone = zone;
      this.rules = zone.getRules();
      this.offset = offset;
    }

    private LocalDateTime truncate(LocalDateTime local) {
      LocalDate date = local.toLocalDate();
      return switch (unit) {
        case MINUTE -> local.truncatedTo(ChronoUnit.MINUTES);
        case HOUR -> local.truncatedTo(ChronoUnit.HOURS);
        case DAY -> date.atStartOfDay();
        case WEEK -> date.minusDays(date.getDayOfWeek().getValue() - DayOfWeek.MONDAY.getValue()).atStartOfDay();
        case MONTH -> date.withDayOfMonth(1).atStartOfDay();
        case QUARTER -> LocalDate.of(date.getYear(), (date.getMonthValue() - 1) / 3 * 3 + 1, 1).atStartOfDay();
        case YEAR -> LocalDate.of(date.getYear(), 1, 1).atStartOfDay();
      };
    }

    private LocalDateTime plusOne(LocalDateTime local) {
      return switch (unit) {
        case MINUTE -> local.plusMinutes(1);
        case HOUR -> local.plusHours(1);
        case DAY -> local.plusDays(1);
        case WEEK -> local.plusWeeks(1);
        case MONTH -> local.plusMonths(1);
        case QUARTER -> local.plusMonths(3);
        case YEAR -> local.plusYears(1);
      };
    }

    @Override
    long round(long utcMillis) {
      Instant instant = Instant.ofEpochMilli(utcMillis - offset);
      ZoneOffset at = rules.getOffset(instant);
      LocalDateTime local = truncate(LocalDateTime.ofInstant(instant, zone));
      // a local time that occurs twice keeps the offset of the instant; one in a gap moves to the gap's end
      return ZonedDateTime.ofLocal(local, zone, at).toInstant().toEpochMilli() + offset;
    }

    @Override
    long next(long key) {
      if (unit.fixedLength > 0 && unit.fixedLength <= HOUR) {
        long next = round(key + unit.fixedLength); // minutes and hours follow the clock through an overlap
        if (next > key) {
          return next;
        }
      }
      LocalDateTime local = truncate(LocalDateTime.ofInstant(Instant.ofEpochMilli(key - offset), zone));
      long next = ZonedDateTime.ofLocal(plusOne(local), zone, null).toInstant().toEpochMilli() + offset;
      return Math.max(next, key + 1);
    }
  }

  /**
   * Fixed intervals in a zone with transitions: the local time is rounded down to a multiple of the interval (the
   * offset at that instant), and taken back to the latest instant with that local time that is not after the input
   * (the start of the gap if that local time does not exist). An {@code offset} shifts the buckets in absolute time,
   * as Elasticsearch does: the key of {@code t} is the unshifted key of {@code t - offset}, plus {@code offset} (so with
   * {@code offset: +1d} the day after a change of offset has its edges where the day before had them: a 3 h interval
   * in {@code America/New_York} on 10 March 2024 starts buckets at 00:00, 04:00, 07:00 local).
   */
  private static final class FixedInZone extends DateRounding {
    private final long interval;
    private final ZoneRules rules;
    private final long offset;

    FixedInZone(long interval, ZoneId zone, long offset) {
      this.interval = interval;
      this.rules = zone.getRules();
      this.offset = offset;
    }

    @Override
    long round(long utcMillis) {
      return unshifted(utcMillis - offset) + offset;
    }

    private long unshifted(long utcMillis) {
      long zoneOffset = rules.getOffset(Instant.ofEpochMilli(utcMillis)).getTotalSeconds() * 1000L;
      long local = Math.floorDiv(utcMillis + zoneOffset, interval) * interval;
      return toUtc(local, utcMillis);
    }

    /** The latest instant not after {@code notAfter} whose local time is {@code localMillis}. */
    private long toUtc(long localMillis, long notAfter) {
      LocalDateTime local = LocalDateTime.ofEpochSecond(Math.floorDiv(localMillis, 1000L),
          (int) Math.floorMod(localMillis, 1000L) * 1_000_000, ZoneOffset.UTC);
      List<ZoneOffset> offsets = rules.getValidOffsets(local);
      if (offsets.isEmpty()) {
        ZoneOffsetTransition gap = rules.getTransition(local);
        return gap.getInstant().toEpochMilli();
      }
      long best = Long.MIN_VALUE;
      long earliest = Long.MAX_VALUE;
      for (ZoneOffset o : offsets) {
        long utc = localMillis - o.getTotalSeconds() * 1000L;
        earliest = Math.min(earliest, utc);
        if (utc <= notAfter) {
          best = Math.max(best, utc);
        }
      }
      return best == Long.MIN_VALUE ? earliest : best;
    }

    @Override
    long next(long key) {
      long unshiftedKey = key - offset;
      long next = unshifted(unshiftedKey + interval);
      if (next <= unshiftedKey) {
        // a day that lasts longer than the interval (clocks set back): the same local time one interval later
        long zoneOffset = rules.getOffset(Instant.ofEpochMilli(unshiftedKey)).getTotalSeconds() * 1000L;
        next = Math.max(toUtc(unshiftedKey + zoneOffset + interval, Long.MIN_VALUE), unshiftedKey + 1);
      }
      return next + offset;
    }
  }
}
