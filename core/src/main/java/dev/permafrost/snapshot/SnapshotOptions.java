/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.util.List;
import java.util.Objects;

/**
 * How a snapshot is taken.
 *
 * @param pointFields point fields whose min and max values the manifest records (e.g. {@code @timestamp})
 * @param uploadThreads how many files upload at once (default 4)
 * @param inlineLimit files up to this many bytes are kept whole in the manifest (default 16 KiB)
 * @param metadataInlineLimit metadata files ({@code .si}, {@code .fnm}, {@code .cfe} and the codecs' {@code *m}
 *     meta files) up to this many bytes are kept whole (default 1 MiB)
 * @param hotBytesLimit at most this many recorded bytes of one non-inlined file are kept in the manifest
 *     (default 1 MiB)
 * @param listener receives progress reports
 */
public record SnapshotOptions(
    List<String> pointFields,
    int uploadThreads,
    int inlineLimit,
    int metadataInlineLimit,
    int hotBytesLimit,
    SnapshotProgress.Listener listener) {

  public static final SnapshotOptions DEFAULTS =
      new SnapshotOptions(List.of(), 4, 16 << 10, 1 << 20, 1 << 20, SnapshotProgress.Listener.NONE);

  public SnapshotOptions {
    pointFields = List.copyOf(pointFields);
    Objects.requireNonNull(listener, "listener");
    if (uploadThreads < 1) {
      throw new IllegalArgumentException("uploadThreads must be at least 1, got " + uploadThreads);
    }
    if (inlineLimit < 0 || metadataInlineLimit < 0 || hotBytesLimit < 0) {
      throw new IllegalArgumentException("inline and hot-bytes limits must not be negative");
    }
  }

  public SnapshotOptions withPointFields(String... fields) {
    return new SnapshotOptions(List.of(fields), uploadThreads, inlineLimit, metadataInlineLimit, hotBytesLimit, listener);
  }

  public SnapshotOptions withUploadThreads(int threads) {
    return new SnapshotOptions(pointFields, threads, inlineLimit, metadataInlineLimit, hotBytesLimit, listener);
  }

  public SnapshotOptions withInlineLimits(int inline, int metadataInline) {
    return new SnapshotOptions(pointFields, uploadThreads, inline, metadataInline, hotBytesLimit, listener);
  }

  public SnapshotOptions withHotBytesLimit(int limit) {
    return new SnapshotOptions(pointFields, uploadThreads, inlineLimit, metadataInlineLimit, limit, listener);
  }

  public SnapshotOptions withListener(SnapshotProgress.Listener l) {
    return new SnapshotOptions(pointFields, uploadThreads, inlineLimit, metadataInlineLimit, hotBytesLimit, l);
  }
}
