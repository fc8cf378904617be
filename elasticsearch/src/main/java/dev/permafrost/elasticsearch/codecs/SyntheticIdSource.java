/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesSkipIndexType;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;

/**
 * The doc values a segment's synthetic {@code _id}s are computed from ({@code _tsid} SORTED, {@code @timestamp}
 * SORTED_NUMERIC, {@code _ts_routing_hash} SORTED), read through the segment's own doc-values format (its codec's
 * per-field one, which opens each field's format by the name its field records), opened on first use and closed with
 * this. A segment without {@code _tsid} (only tombstones) has no ids: {@link #has()} is false. Shared by the cursors
 * of many threads; each {@link SeriesCursor} takes its own iterators.
 */
final class SyntheticIdSource implements Closeable {
  static final String TSID = "_tsid";
  static final String TIMESTAMP = "@timestamp";
  static final String ROUTING_HASH = "_ts_routing_hash";

  private final Directory directory;
  private final SegmentInfo segment;
  private final FieldInfos fieldInfos;
  private final DocValuesFormat format;
  final FieldInfo tsid;
  final FieldInfo timestamp;
  final FieldInfo routingHash;
  private DocValuesProducer producer;
  private int docsWithId = -1;
  private boolean closed;
  /** Doc-values iterators taken: what bounds the blocks a lookup reads (a test counts them). */
  private final LongAdder iterators = new LongAdder();

  /**
   * @param format the segment's doc-values format (its codec's)
   * @throws CorruptIndexException if the segment has {@code _tsid} but not the other two, or one of another type, or
   *     is not sorted by {@code _tsid} then {@code @timestamp} descending
   */
  SyntheticIdSource(Directory directory, SegmentInfo segment, FieldInfos fieldInfos, DocValuesFormat format)
      throws CorruptIndexException {
    this.directory = directory;
    this.segment = segment;
    this.fieldInfos = fieldInfos;
    this.format = format;
    this.tsid = field(TSID, DocValuesType.SORTED, false);
    this.timestamp = tsid == null ? null : field(TIMESTAMP, DocValuesType.SORTED_NUMERIC, true);
    this.routingHash = tsid == null ? null : field(ROUTING_HASH, DocValuesType.SORTED, false);
    if (tsid != null) {
      checkSorted();
    }
  }

  /**
   * Ids are looked up by binary search over the documents, so the segment must be sorted as time_series segments
   * are: {@code _tsid} ascending, then {@code @timestamp} descending; another order would answer wrongly.
   */
  private void checkSorted() throws CorruptIndexException {
    Sort sort = segment.getIndexSort();
    SortField[] fields = sort == null ? new SortField[0] : sort.getSort();
    if (fields.length < 2 || !TSID.equals(fields[0].getField()) || fields[0].getReverse()
        || !TIMESTAMP.equals(fields[1].getField()) || !fields[1].getReverse()) {
      throw new CorruptIndexException("segment " + segment.name + " is sorted by " + sort + ", not by _tsid then"
          + " @timestamp descending as a time_series segment is: its synthetic _id cannot be looked up",
          segment.name);
    }
  }

  private FieldInfo field(String name, DocValuesType type, boolean orNumeric) throws CorruptIndexException {
    FieldInfo f = fieldInfos.fieldInfo(name);
    if (f == null) {
      if (name.equals(TSID)) {
        return null;
      }
      throw new CorruptIndexException("segment " + segment.name + " has a _tsid but no " + name + ": its synthetic"
          + " _id cannot be computed", segment.name);
    }
    DocValuesType t = f.getDocValuesType();
    if (t != type && !(orNumeric && t == DocValuesType.NUMERIC)) {
      throw new CorruptIndexException("segment " + segment.name + " has " + name + " doc values of type " + t
          + ", a synthetic _id needs " + type, segment.name);
    }
    return f;
  }

  /** Whether the segment's documents have ids: false for a segment of tombstones only. */
  boolean has() {
    return tsid != null;
  }

  /** What the messages name: the segment. */
  String segmentName() {
    return segment.name;
  }

  int maxDoc() {
    return segment.maxDoc();
  }

  private synchronized DocValuesProducer producer() throws IOException {
    if (closed) {
      throw new IllegalStateException("the synthetic _id doc values of segment " + segment.name + " are closed");
    }
    if (producer == null) {
      producer = format.fieldsProducer(new SegmentReadState(directory, segment, fieldInfos, IOContext.DEFAULT));
    }
    return producer;
  }

  SortedDocValues tsid() throws IOException {
    iterators.increment();
    return producer().getSorted(tsid);
  }

  SortedNumericDocValues timestamp() throws IOException {
    iterators.increment();
    return timestamp.getDocValuesType() == DocValuesType.NUMERIC
        ? DocValues.singleton(producer().getNumeric(timestamp)) : producer().getSortedNumeric(timestamp);
  }

  SortedDocValues routingHash() throws IOException {
    iterators.increment();
    return producer().getSorted(routingHash);
  }

  /** How many doc-values iterators the cursors over these doc values have taken. */
  long iteratorsTaken() {
    return iterators.sum();
  }

  /**
   * How many documents have an id (a {@code _tsid}): the {@code _tsid} skipper's count where the field has one
   * (Elasticsearch's do), else counted once over the field's documents.
   */
  synchronized int docsWithId() throws IOException {
    if (docsWithId < 0) {
      if (tsid.docValuesSkipIndexType() != DocValuesSkipIndexType.NONE) {
        DocValuesSkipper skipper = producer().getSkipper(tsid);
        docsWithId = skipper == null ? 0 : skipper.docCount();
      } else {
        int n = 0;
        for (SortedDocValues dv = tsid(); dv.nextDoc() != DocIdSetIterator.NO_MORE_DOCS; ) {
          n++;
        }
        docsWithId = n;
      }
    }
    return docsWithId;
  }

  @Override
  public synchronized void close() throws IOException {
    closed = true;
    if (producer != null) {
      producer.close();
      producer = null;
    }
  }
}
