/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.BaseTermsEnum;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.ImpactsEnum;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SlowImpactsEnum;
import org.apache.lucene.index.TermState;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.ArrayUtil;
import org.apache.lucene.util.BytesRef;

/**
 * The {@code _id} terms of a time_series segment, synthesized from its doc values: one term per run of adjacent
 * documents with the same series, timestamp and routing hash (one document, unless a deleted copy of it sits beside
 * it), in doc order, which is term order ({@link SyntheticId}).
 *
 * <ul>
 *   <li>{@link #seekExact(BytesRef)} (what {@code TermQuery} and {@code TermInSetQuery} use): parses the id, looks
 *       its tsid up in the {@code _tsid} terms dictionary, then binary-searches the documents for that series and
 *       timestamp ({@link SeriesCursor}) and checks the routing hash: O(log n) blocks read.
 *   <li>{@link #seekCeil}: a binary search over the documents comparing their ids with the target.
 *   <li>{@link #next}: the following run; fails naming the segment if the ids it makes do not ascend (a tsid that is a
 *       proper prefix of another would do that), rather than answer a seek wrongly without a word.
 * </ul>
 * Term ordinals are not supported. Deleted documents are in the postings, as in any postings; Lucene drops them.
 */
final class SyntheticIdTermsEnum extends BaseTermsEnum {
  private final SyntheticIdSource source;
  private final SeriesCursor cursor;
  /** The current term, null when unpositioned. */
  private BytesRef term;
  private int[] docs = new int[1];
  private int docCount;
  /** Where {@link #next} looks for the following run. */
  private int nextFrom;

  SyntheticIdTermsEnum(SyntheticIdSource source) {
    this.source = source;
    this.cursor = new SeriesCursor(source);
  }

  @Override
  public BytesRef next() throws IOException {
    BytesRef previous = term;
    if (nextFrom >= source.maxDoc() || !cursor.seek(nextFrom)) {
      unposition(source.maxDoc());
      return null;
    }
    runAtCursor();
    if (previous != null && previous.compareTo(term) >= 0) {
      throw new CorruptIndexException("segment " + source.segmentName() + ": the synthetic _id of document "
          + docs[0] + " (" + term + ") does not sort after the one before (" + previous + "), though its documents"
          + " are sorted by _tsid and @timestamp: ids cannot be enumerated in order", source.segmentName());
    }
    return term;
  }

  /** Positions on the run of documents that starts at the cursor's. */
  private void runAtCursor() throws IOException {
    int ord = cursor.ord();
    long timestamp = cursor.timestamp();
    int routingHash = cursor.routingHash();
    term = cursor.id();
    docCount = 0;
    int last;
    do {
      last = cursor.doc();
      add(last);
    } while (cursor.seek(last + 1) && cursor.compareKey(ord, timestamp) == 0 && cursor.routingHash() == routingHash);
    nextFrom = last + 1;
  }

  private void add(int doc) {
    docs = ArrayUtil.grow(docs, docCount + 1);
    docs[docCount++] = doc;
  }

  private void unposition(int from) {
    term = null;
    docCount = 0;
    nextFrom = from;
  }

  @Override
  public boolean seekExact(BytesRef target) throws IOException {
    SyntheticId.Parts parts = SyntheticId.parse(target);
    int ord = parts == null ? -1 : cursor.lookupTsid(parts.tsid());
    if (ord < 0) {
      unposition(source.maxDoc());
      return false;
    }
    long timestamp = parts.timestamp();
    int lo = 0;
    int hi = source.maxDoc();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (!cursor.seek(mid) || cursor.compareKey(ord, timestamp) >= 0) {
        hi = mid;
      } else {
        lo = cursor.doc() + 1;
      }
    }
    docCount = 0;
    int last = -1;
    for (boolean more = cursor.seek(lo); more && cursor.compareKey(ord, timestamp) == 0;
        more = cursor.seek(cursor.doc() + 1)) {
      if (cursor.routingHash() == parts.routingHash()) {
        last = cursor.doc();
        add(last);
      }
    }
    if (docCount == 0) {
      unposition(source.maxDoc());
      return false;
    }
    term = BytesRef.deepCopyOf(target);
    nextFrom = last + 1;
    return true;
  }

  @Override
  public SeekStatus seekCeil(BytesRef target) throws IOException {
    int lo = 0;
    int hi = source.maxDoc();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (!cursor.seek(mid) || cursor.id().compareTo(target) >= 0) {
        hi = mid;
      } else {
        lo = cursor.doc() + 1;
      }
    }
    if (!cursor.seek(lo)) {
      unposition(source.maxDoc());
      return SeekStatus.END;
    }
    runAtCursor();
    return term.equals(target) ? SeekStatus.FOUND : SeekStatus.NOT_FOUND;
  }

  @Override
  public void seekExact(long ord) {
    throw new UnsupportedOperationException("the synthetic _id terms of segment " + source.segmentName()
        + " have no ordinals");
  }

  @Override
  public long ord() {
    throw new UnsupportedOperationException("the synthetic _id terms of segment " + source.segmentName()
        + " have no ordinals");
  }

  @Override
  public BytesRef term() {
    return term;
  }

  @Override
  public int docFreq() {
    return docCount;
  }

  @Override
  public long totalTermFreq() {
    return docCount;
  }

  @Override
  public PostingsEnum postings(PostingsEnum reuse, int flags) {
    assert term != null : "unpositioned";
    return new SyntheticIdPostings(Arrays.copyOf(docs, docCount));
  }

  @Override
  public ImpactsEnum impacts(int flags) {
    return new SlowImpactsEnum(postings(null, flags));
  }

  @Override
  public TermState termState() {
    assert term != null : "unpositioned";
    return new State(BytesRef.deepCopyOf(term), Arrays.copyOf(docs, docCount), nextFrom);
  }

  @Override
  public void seekExact(BytesRef target, TermState state) throws IOException {
    if (!(state instanceof State s) || !s.term.equals(target)) {
      if (!seekExact(target)) {
        throw new IllegalArgumentException("no synthetic _id " + target + " in segment " + source.segmentName());
      }
      return;
    }
    term = BytesRef.deepCopyOf(s.term);
    docs = Arrays.copyOf(s.docs, Math.max(1, s.docs.length));
    docCount = s.docs.length;
    nextFrom = s.nextFrom;
  }

  /** A term's place: its bytes and documents. */
  private static final class State extends TermState {
    BytesRef term;
    int[] docs;
    int nextFrom;

    State(BytesRef term, int[] docs, int nextFrom) {
      this.term = term;
      this.docs = docs;
      this.nextFrom = nextFrom;
    }

    @Override
    public void copyFrom(TermState other) {
      State s = (State) other;
      term = s.term;
      docs = s.docs;
      nextFrom = s.nextFrom;
    }

    @Override
    public String toString() {
      return "SyntheticIdTermState(" + term + ", docs " + Arrays.toString(docs) + ")";
    }
  }

  /** The postings of one term: its documents, each with a frequency of 1 and no positions. */
  static final class SyntheticIdPostings extends PostingsEnum {
    private final int[] docs;
    private int i = -1;
    private int doc = -1;

    SyntheticIdPostings(int[] docs) {
      this.docs = docs;
    }

    @Override
    public int docID() {
      return doc;
    }

    @Override
    public int nextDoc() {
      return doc = ++i < docs.length ? docs[i] : DocIdSetIterator.NO_MORE_DOCS;
    }

    @Override
    public int advance(int target) {
      while (nextDoc() < target) {
        // runs are one document, rarely two
      }
      return doc;
    }

    @Override
    public long cost() {
      return docs.length;
    }

    @Override
    public int freq() {
      return 1;
    }

    @Override
    public int nextPosition() {
      return -1;
    }

    @Override
    public int startOffset() {
      return -1;
    }

    @Override
    public int endOffset() {
      return -1;
    }

    @Override
    public BytesRef getPayload() {
      return null;
    }
  }
}
