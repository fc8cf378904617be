/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.codecs.DocValuesConsumer;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;

/**
 * Reads Elasticsearch's {@code ES8193TSDB} doc values, the format of the logsdb indices created by 9.4 and later
 * (and of time_series indices created by 9.4, before 9.5's {@code ES95TSDB}), read-only: the container of
 * {@link ES819TSDBDocValuesFormat}, same header codecs and versions (9.4 writes 4, 9.5.3 writes 8), whose binary
 * blocks record their values' lengths bit-packed ({@code TsdbDocOffsets#BITPACKING}) instead of as grouped VInts;
 * its logsdb binary blocks close at 512 KiB or 8,096 values instead of 128 KiB or 1,024 (a writer's choice, read
 * the same).
 */
public final class ES8193TSDBDocValuesFormat extends DocValuesFormat {
  /** The name segments record: {@code ES8193TSDB}. Called by Lucene's SPI. */
  public ES8193TSDBDocValuesFormat() {
    super(TsdbFormat.ES8193.name());
  }

  @Override
  public DocValuesConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(getName() + " is read-only here: Permafrost never writes an engine's"
        + " segments");
  }

  @Override
  public DocValuesProducer fieldsProducer(SegmentReadState state) throws IOException {
    return new TsdbDocValuesProducer(state, TsdbFormat.ES8193);
  }
}
