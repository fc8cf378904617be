/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import dev.permafrost.blob.Durations;
import java.time.Duration;

/**
 * What a request to object storage costs: a wait for the first byte, then a transfer at a bounded per-stream
 * bandwidth. {@link #S3_STANDARD} models S3 Standard from a same-region EC2 instance: about 30 ms to the first
 * byte and about 80 MB/s per stream.
 *
 * @param timeToFirstByte the wait before the first byte of every request
 * @param bytesPerSecond each stream's bandwidth; {@code Long.MAX_VALUE} for unbounded
 */
public record LatencyModel(Duration timeToFirstByte, long bytesPerSecond) {
  public static final LatencyModel S3_STANDARD = new LatencyModel(Duration.ofMillis(30), 80_000_000L);
  public static final LatencyModel NONE = new LatencyModel(Duration.ZERO, Long.MAX_VALUE);

  public LatencyModel {
    if (timeToFirstByte.isNegative() || bytesPerSecond <= 0) {
      throw new IllegalArgumentException("time to first byte must not be negative and bandwidth must be positive");
    }
  }

  /** A model with {@code ttfbMillis} milliseconds to first byte and {@code mbPerSecond} MB (10^6 bytes) per second. */
  public static LatencyModel of(double ttfbMillis, double mbPerSecond) {
    return new LatencyModel(Duration.ofNanos((long) (ttfbMillis * 1e6)), (long) (mbPerSecond * 1e6));
  }

  /** The nanoseconds a transfer of {@code bytes} takes after the first byte. */
  long transferNanos(long bytes) {
    if (bytesPerSecond == Long.MAX_VALUE) {
      return 0;
    }
    return (long) (bytes * 1e9 / bytesPerSecond);
  }

  @Override
  public String toString() {
    return Durations.format(timeToFirstByte) + " to first byte, "
        + (bytesPerSecond == Long.MAX_VALUE ? "unbounded" : bytesPerSecond / 1_000_000 + " MB/s per stream");
  }
}
