/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
/**
 * Elasticsearch's own codec and format names, read from their published layouts so that Lucene opens the segments
 * of an Elasticsearch 8.x/9.x snapshot: registered through Lucene's SPI (this module's
 * {@code META-INF/services}), read-only, used by name as the segments record them.
 *
 * <ul>
 *   <li>{@link dev.permafrost.elasticsearch.codecs.ES812PostingsFormat}: Lucene 9.0's postings layout under
 *       Elasticsearch's header names, read by Lucene's own {@code Lucene90} reader through a directory that reads
 *       those names as Lucene's ({@code RenamedHeadersDirectory}).
 *   <li>{@link dev.permafrost.elasticsearch.codecs.ES87BloomFilterPostingsFormat}: the {@code _id} field's wrapper,
 *       whose metadata file names the postings format it wraps; the bloom bits are not needed to search.
 *   <li>The codecs of {@code index.codec: best_compression} (and logsdb), {@code Elasticsearch816} and the like:
 *       a Lucene codec whose stored fields are Lucene's compressing container with each chunk one zstd frame
 *       ({@code ZstdStoredFieldsFormat}); {@code Elasticsearch92Lucene103} (9.2-9.5) reads what both its Lucene
 *       delegates write.
 *   <li>{@link dev.permafrost.elasticsearch.codecs.Elasticsearch96Codec}: Elasticsearch 9.6's codec for every index,
 *       whose stored fields each segment names in an attribute ({@code SegmentModeStoredFieldsFormat}).
 *   <li>{@link dev.permafrost.elasticsearch.codecs.ES819TSDBDocValuesFormat},
 *       {@link dev.permafrost.elasticsearch.codecs.ES8193TSDBDocValuesFormat} and
 *       {@link dev.permafrost.elasticsearch.codecs.ES95TSDBDocValuesFormat}: the doc values of logsdb and
 *       time_series indices of 8.19 and 9.1 to 9.5, versions 0 to 8 of the container the three names share
 *       ({@code TsdbFormat}: header codecs, version gates, markers; {@code TsdbDocValuesProducer} over
 *       {@code TsdbBlocks}, {@code TsdbTermsDictionary}, {@code TsdbSkipper}, {@code TsdbBinary} with
 *       {@code TsdbDocOffsets}); numeric blocks are decoded behind {@code TsdbNumericCodec}, where 9.5's
 *       {@code ES95TSDB} differs (each field's pipeline of stages: {@code Es95FieldDescriptor},
 *       {@code Es95BlockDecoder}, {@code Es95Alp}). The older {@code ES87TSDB} is registered to fail naming itself
 *       ({@code RefusedDocValuesFormat}).
 *   <li>{@link dev.permafrost.elasticsearch.codecs.ES93TSDBDefaultCompressionLucene103Codec} and
 *       {@link dev.permafrost.elasticsearch.codecs.ES94TSDBBestCompressionLucene104Codec}: time_series indices of 9.4
 *       and later with a synthetic {@code _id}, computed from {@code _tsid}, {@code @timestamp} and
 *       {@code _ts_routing_hash} ({@code SyntheticId}) for stored fields ({@code SyntheticIdStoredFieldsFormat}) and
 *       as seekable terms by {@link dev.permafrost.elasticsearch.codecs.TSDBSyntheticIdPostingsFormat}
 *       ({@code SyntheticIdTermsEnum} over {@code SeriesCursor} over {@code SyntheticIdSource}, the doc values opened
 *       on first use); {@link dev.permafrost.elasticsearch.codecs.ES94BloomFilterDocValuesFormat}, the bloom filter
 *       beside it, opened and checked, its bits not read.
 * </ul>
 *
 * <p>No code here is taken from Elasticsearch's sources (layouts are read from descriptions, Lucene's code and the
 * bytes real nodes write); Elasticsearch's vector formats are not read and are refused by name when such an index
 * is mounted.
 */
package dev.permafrost.elasticsearch.codecs;
