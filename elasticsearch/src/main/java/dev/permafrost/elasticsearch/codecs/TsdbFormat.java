/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

/**
 * What one of Elasticsearch's TSDB doc-values format names writes into the container they share ({@code .dvm},
 * {@code .dvd} and, from version 5, {@code .dvs}; one version number for all the names): its files' header codec
 * names, how its binary blocks record their values' offsets, and how its numeric blocks are encoded. The container's
 * version gates and markers are here too, as Lucene keeps its own on {@code Lucene90DocValuesFormat}.
 *
 * @param name the format's SPI name, as a segment records it
 * @param docOffsets how a binary block's value offsets are written
 * @param numeric how a numeric field's blocks are written (ordinal blocks are the same in every name; only
 *     {@code ES95TSDB}'s files of versions 6 and 7 give each ordinal stream its own block size)
 */
record TsdbFormat(String name, String metaCodec, String dataCodec, String skipCodec, TsdbDocOffsets docOffsets,
    TsdbNumericCodec numeric) {

  /** Version 0: the container of Elasticsearch 8.19 and 9.1; binary fields as Lucene 9.0 writes them. */
  static final int VERSION_START = 0;
  /** Version 1: a binary entry starts with a compression byte; compressed values are written in blocks. */
  static final int VERSION_BINARY_BLOCKS = 1;
  /** Version 2: a byte of numeric block shift after the {@code .dvm} header (7: 128 values, 9: 512). */
  static final int VERSION_NUMERIC_BLOCK_SHIFT = 2;
  /**
   * Version 4: a sorted entry's terms dictionary comes before its ordinals, and the segment's primary sort field's
   * sorted entry ends with a partitions flag byte (and, if 1, where its prefix partitions lie).
   */
  static final int VERSION_PREFIX_PARTITIONS = 4;
  /** Version 5: the skippers' intervals are in a file of their own, {@code .dvs}. */
  static final int VERSION_SKIPPER_SEPARATE_FILE = 5;
  // Versions 6 and 8 change ES95TSDB alone: Es95NumericCodec has their gates.
  /** Version 7: a skipper entry ends with the largest count of values in one document. */
  static final int VERSION_SKIPPER_MAX_VALUE_COUNT = 7;
  /** The newest version read: what Elasticsearch 9.5.3 writes. */
  static final int VERSION_CURRENT = 8;

  /** The numeric block shift of files before {@link #VERSION_NUMERIC_BLOCK_SHIFT}: blocks of 128 values. */
  static final int DEFAULT_BLOCK_SHIFT = 7;

  // doc-values types of a .dvm record, as Lucene90's
  static final byte NUMERIC = 0;
  static final byte BINARY = 1;
  static final byte SORTED = 2;
  static final byte SORTED_SET = 3;
  static final byte SORTED_NUMERIC = 4;

  /** A numeric entry's encoding where a block shift would be: a single ordinal, no values written. */
  static final int SINGLE_ORDINAL = -1;
  /** A numeric entry's encoding where a block shift would be: each ordinal's first document (a primary sort field). */
  static final int ORDINAL_RANGES = -2;
  /** A document set's offset: no document has a value. */
  static final long NO_DOCS = -2;
  /** A document set's offset: every document has a value. */
  static final long ALL_DOCS = -1;
  /** The field number that ends the {@code .dvm}'s records. */
  static final int END_OF_FIELDS = -1;

  /** The primary sort field's partitions flag (from {@link #VERSION_PREFIX_PARTITIONS}): no partitions. */
  static final byte NOT_PARTITIONED = 0;
  /** The primary sort field's partitions flag: prefix partitions follow (their bits, offset and length). */
  static final byte PARTITIONED = 1;

  /** A binary entry's compression byte: values as Lucene 9.0 writes them. */
  static final byte BINARY_UNCOMPRESSED = 0;
  /** A binary entry's compression byte: values in zstd-compressed blocks. */
  static final byte BINARY_ZSTD_BLOCKS = 1;

  /** {@code ES819TSDB}: Elasticsearch 8.19 and 9.1 to 9.3, and 9.4 on for indices created before 9.4. */
  static final TsdbFormat ES819 = new TsdbFormat("ES819TSDB", "ES819TSDBDocValuesMetadata", "ES819TSDBDocValuesData",
      "ES819TSDBDocValuesSkip", TsdbDocOffsets.GROUPED_VINT, TsdbNumericCodec.FOR_BLOCKS);
  /**
   * {@code ES8193TSDB}: logsdb and time_series indices created by 9.4 on (time_series until 9.5's {@code ES95TSDB});
   * the same header codecs as {@code ES819TSDB}, bit-packed binary offsets.
   */
  static final TsdbFormat ES8193 = new TsdbFormat("ES8193TSDB", "ES819TSDBDocValuesMetadata",
      "ES819TSDBDocValuesData", "ES819TSDBDocValuesSkip", TsdbDocOffsets.BITPACKING, TsdbNumericCodec.FOR_BLOCKS);
  /**
   * {@code ES95TSDB}: time_series indices created by 9.5 on; header codecs of its own, bit-packed binary offsets, and
   * numeric fields each in a pipeline its entry describes ({@link Es95NumericCodec}).
   */
  static final TsdbFormat ES95 = new TsdbFormat("ES95TSDB", "ES95TSDBDocValuesMetadata", "ES95TSDBDocValuesData",
      "ES95TSDBDocValuesSkip", TsdbDocOffsets.BITPACKING, Es95NumericCodec.INSTANCE);
}
