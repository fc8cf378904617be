/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.codecs.DocValuesConsumer;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;

/**
 * An Elasticsearch doc-values format this reader knows by name but does not read: a segment that names it fails to
 * open saying which format, which file and why, instead of Lucene's "no such SPI class" or, worse, other values.
 * One subclass per name, for Lucene's SPI ({@code ES87TSDB}, the only one left).
 */
abstract sealed class RefusedDocValuesFormat extends DocValuesFormat {
  private final String why;

  RefusedDocValuesFormat(String name, String why) {
    super(name);
    this.why = why;
  }

  @Override
  public final DocValuesConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(getName() + " is read-only here: Permafrost never writes an engine's"
        + " segments");
  }

  @Override
  public final DocValuesProducer fieldsProducer(SegmentReadState state) throws CorruptIndexException {
    String file = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "dvd");
    throw new CorruptIndexException("doc values in Elasticsearch's " + getName() + " format are not read: " + why
        + " (this reader reads ES819TSDB, ES8193TSDB and ES95TSDB, what Elasticsearch 8.19 and 9.1 to 9.5 write for"
        + " logsdb and time_series indices)", file);
  }

  /** Elasticsearch's TSDB doc values of 8.7 to 9.0 (logsdb from 8.15). */
  public static final class ES87TSDB extends RefusedDocValuesFormat {
    /** Called by Lucene's SPI. */
    public ES87TSDB() {
      super("ES87TSDB", "no Elasticsearch node here writes them (8.15 to 9.0 do) to check a reader against");
    }
  }
}
