/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;

/**
 * A position on the documents of a time_series segment that have a {@code _tsid}, with their series ordinal,
 * timestamp and routing hash: what a synthetic {@code _id} is made of. Moves forward through the doc values' own
 * iterators and takes new ones to move back, so a binary search over the documents reads O(log n) blocks. One
 * thread's: not thread-safe.
 *
 * <p>The documents of such a segment are sorted by {@code _tsid} ascending then {@code @timestamp} descending, so
 * {@link #compareKey} orders them as doc ids do; tombstones (no {@code _tsid}) are skipped.
 */
final class SeriesCursor {
  private final SyntheticIdSource source;
  private SortedDocValues tsid;
  private SortedNumericDocValues timestamps;
  private SortedDocValues routing;
  private int doc = -1;
  private int ord;
  private long timestamp;
  private int timestampDoc = -1;
  private int routingOrd = -1;
  private int routingHash;

  SeriesCursor(SyntheticIdSource source) {
    assert source.has();
    this.source = source;
  }

  /** The document positioned on, -1 before the first move, {@link DocIdSetIterator#NO_MORE_DOCS} past the last. */
  int doc() {
    return doc;
  }

  /**
   * Moves to the first document at or after {@code target} that has a {@code _tsid}.
   *
   * @return whether there is one
   */
  boolean seek(int target) throws IOException {
    if (target >= source.maxDoc()) {
      doc = DocIdSetIterator.NO_MORE_DOCS;
      return false;
    }
    if (tsid == null || tsid.docID() > target) {
      tsid = source.tsid();
    }
    int d = tsid.docID() == target ? target : tsid.advance(target);
    moved(d);
    return d != DocIdSetIterator.NO_MORE_DOCS;
  }

  /** Moves to {@code target} if it has a {@code _tsid}; false (and unpositioned) if it has none. */
  boolean seekExact(int target) throws IOException {
    if (tsid == null || tsid.docID() > target) {
      tsid = source.tsid();
    }
    boolean has = tsid.docID() == target || tsid.advanceExact(target);
    if (!has) {
      tsid = null; // positioned on a document without a value, which docID() does not tell
    }
    moved(has ? target : -1);
    return has;
  }

  private void moved(int d) throws IOException {
    doc = d;
    if (d >= 0 && d != DocIdSetIterator.NO_MORE_DOCS) {
      ord = tsid.ordValue();
    }
  }

  /** The series ordinal of the document: its {@code _tsid}'s. */
  int ord() {
    assert positioned();
    return ord;
  }

  /** The bytes of the document's {@code _tsid} (valid until the next call). */
  BytesRef tsid() throws IOException {
    assert positioned();
    return tsid.lookupOrd(ord);
  }

  /** The ordinal of {@code tsid} in the segment's {@code _tsid} terms, negative if absent. */
  int lookupTsid(BytesRef bytes) throws IOException {
    if (tsid == null) {
      tsid = source.tsid();
    }
    return tsid.lookupTerm(bytes);
  }

  /** The document's {@code @timestamp}. */
  long timestamp() throws IOException {
    assert positioned();
    if (timestampDoc != doc) {
      if (timestamps == null || timestamps.docID() >= doc) {
        timestamps = source.timestamp();
      }
      if (!timestamps.advanceExact(doc)) {
        throw missing(SyntheticIdSource.TIMESTAMP);
      }
      timestamp = timestamps.nextValue();
      timestampDoc = doc;
    }
    return timestamp;
  }

  /** The document's routing hash, decoded from its {@code _ts_routing_hash}. */
  int routingHash() throws IOException {
    assert positioned();
    if (routing == null || routing.docID() > doc) {
      routing = source.routingHash();
    }
    if (routing.docID() != doc && !routing.advanceExact(doc)) {
      routing = null;
      throw missing(SyntheticIdSource.ROUTING_HASH);
    }
    // a SORTED value can be read again on the same document, unlike a SORTED_NUMERIC one
    int o = routing.ordValue();
    if (o != routingOrd) {
      try {
        routingHash = SyntheticId.routingHash(routing.lookupOrd(o));
      } catch (IllegalArgumentException e) {
        throw new CorruptIndexException("document " + doc + " of segment " + source.segmentName() + ": "
            + e.getMessage(), source.segmentName(), e);
      }
      routingOrd = o;
    }
    return routingHash;
  }

  /** The indexed bytes of the document's synthetic {@code _id}. */
  BytesRef id() throws IOException {
    return SyntheticId.indexed(tsid(), timestamp(), routingHash());
  }

  /**
   * Compares the document's (series, timestamp) with {@code (ord, timestamp)} in doc order: series ascending, then
   * timestamps descending.
   */
  int compareKey(int otherOrd, long otherTimestamp) throws IOException {
    int c = Integer.compare(ord(), otherOrd);
    return c != 0 ? c : Long.compare(otherTimestamp, timestamp());
  }

  private boolean positioned() {
    return doc >= 0 && doc != DocIdSetIterator.NO_MORE_DOCS;
  }

  private CorruptIndexException missing(String field) {
    return new CorruptIndexException("document " + doc + " of segment " + source.segmentName() + " has a _tsid but"
        + " no " + field + ": its synthetic _id cannot be computed", source.segmentName());
  }
}
