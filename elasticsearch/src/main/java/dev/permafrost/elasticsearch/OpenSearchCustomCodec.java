/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.util.Optional;

/**
 * The codecs of OpenSearch's custom-codecs plugin, which this reader does not read: each compresses stored fields in
 * its own chunk layout (zstd in sub-blocks, with or without a dictionary taken from the chunk; or Intel QAT's LZ4,
 * DEFLATE or zstd) inside Lucene's container, and names its segments after itself and the Lucene codec under it
 * ({@code ZSTD104}, {@code ZSTDNODICT101}, {@code QATLZ4912}, ... and {@code ZSTD}, {@code ZSTDNODICT} for Lucene
 * 9.5). An index is known to use one by its {@code index.codec} setting (the plugin's name for it, or a segment
 * codec's name, which OpenSearch also takes) or by the codec its segments record.
 */
enum OpenSearchCustomCodec {
  ZSTD("zstd", "ZSTD"),
  ZSTD_NO_DICT("zstd_no_dict", "ZSTDNODICT"),
  QAT_LZ4("qat_lz4", "QATLZ4"),
  QAT_DEFLATE("qat_deflate", "QATDEFLATE"),
  QAT_ZSTD("qat_zstd", "QATZSTD");

  /** The Lucene 9.5 codec the plugin's first release registered for {@code zstd}, deprecated since OpenSearch 2.10. */
  private static final String LUCENE95_DEPRECATED = "Lucene95CustomCodec";

  /** The value of {@code index.codec} that selects it. */
  final String setting;
  /** What its segment codecs' names start with; the Lucene codec's version follows, or nothing (Lucene 9.5). */
  private final String segmentPrefix;

  OpenSearchCustomCodec(String setting, String segmentPrefix) {
    this.setting = setting;
    this.segmentPrefix = segmentPrefix;
  }

  /** The custom codec an index's {@code index.codec} selects: the plugin's name or one of its segment codecs'. */
  static Optional<OpenSearchCustomCodec> ofSetting(String value) {
    if (value == null) {
      return Optional.empty();
    }
    for (OpenSearchCustomCodec c : values()) {
      if (c.setting.equals(value)) {
        return Optional.of(c);
      }
    }
    return ofSegmentCodec(value);
  }

  /** The custom codec a segment codec's name is one of, e.g. {@code ZSTD104} or {@code QATZSTD101}. */
  static Optional<OpenSearchCustomCodec> ofSegmentCodec(String name) {
    if (LUCENE95_DEPRECATED.equals(name)) {
      return Optional.of(ZSTD);
    }
    for (OpenSearchCustomCodec c : values()) {
      if (name != null && name.startsWith(c.segmentPrefix)
          && name.substring(c.segmentPrefix.length()).chars().allMatch(Character::isDigit)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** Why an index of this codec is not read, and what to do, for a refusal's message. */
  String why() {
    return "OpenSearch's custom-codecs plugin compresses its stored fields with "
        + (name().startsWith("QAT") ? "Intel QAT (" + setting.substring(4) + ")" : "zstd in a chunk layout of its own")
        + ", which this reader does not read; reindex it with index.codec default or best_compression (Lucene's own"
        + " stored fields) and snapshot it again";
  }
}
