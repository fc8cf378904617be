/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import dev.permafrost.store.ColumnPrefetch;
import java.io.IOException;
import java.util.Iterator;
import org.apache.lucene.backward_codecs.lucene90.Lucene90PostingsFormat;
import org.apache.lucene.codecs.FieldsProducer;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.TermState;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.automaton.CompiledAutomaton;

/**
 * Lucene 9.0's postings ({@code ES812Postings}) whose terms enums start fetching a term's postings as soon as the term
 * is found: when a query takes its state ({@code TermStates}, as the query is weighted or its scorer is planned). The
 * reader itself reads them only when the scorer is built, after every other clause has planned its own (a range
 * walks its points index, then its leaves), so on a cold cache they were a round trip of their own after all of
 * those; asked for here ({@link ColumnPrefetch#willRead}: through a small cache, read directly from the store for the
 * search), they travel beside the next clause's reads. On a local directory this is Lucene's {@code prefetch} hint.
 *
 * <p>What is asked for follows the layout (Lucene's {@code Lucene90PostingsFormat}): a term in one document has
 * none (its document is in the terms dictionary); a term in at most a block of 128 has its documents and
 * frequencies as variable-length integers, at most {@value #MAX_VINT_BYTES} bytes a document; a longer one has its
 * blocks, then its skip data ({@code skipOffset} past its start), which a conjunction reads first, at most
 * {@value #SKIP_BYTES_PER_BLOCK} bytes a block with the levels above (a bound, not a length the format records: a
 * shortfall is read by the reader as ever, and bytes past the term's are the next term's). Blocks past
 * {@value #WHOLE_BYTES} bytes are asked for as their head and their skip data: a conjunction with a rarer clause
 * skips most of them.
 */
final class PostingsPrefetch extends FieldsProducer {
  /** At most this many bytes of one term's postings are asked for whole. */
  static final long WHOLE_BYTES = 512 << 10;
  /** What is asked for of a longer term's blocks: the head a first read would bring. */
  static final long HEAD_BYTES = 128 << 10;
  /** A document's id delta and frequency as variable-length integers, at most. */
  static final int MAX_VINT_BYTES = 10;
  /** A block's skip entries, its own level's and its share of the levels above, at most (with impacts). */
  static final int SKIP_BYTES_PER_BLOCK = 48;

  private final FieldsProducer in;
  /** The segment's {@code .doc}, opened for hints only: each enum asks through its own clone. */
  private final IndexInput docs;

  private PostingsPrefetch(FieldsProducer in, IndexInput docs) {
    this.in = in;
    this.docs = docs;
  }

  /** {@code in}, read from {@code state}'s segment, with its terms' postings asked for as they are found. */
  static FieldsProducer wrap(FieldsProducer in, SegmentReadState state) throws IOException {
    String name = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix,
        Lucene90PostingsFormat.DOC_EXTENSION);
    boolean success = false;
    try {
      IndexInput docs = state.directory.openInput(name, state.context);
      success = true;
      return new PostingsPrefetch(in, docs);
    } finally {
      if (!success) {
        IOUtils.closeWhileHandlingException(in);
      }
    }
  }

  /**
   * Asks {@code docs} for the postings of the term whose state is {@code state}, as the class says; nothing for a
   * state of another format.
   */
  static void prefetch(IndexInput docs, TermState state) throws IOException {
    if (!(state instanceof Lucene90PostingsFormat.IntBlockTermState term) || term.singletonDocID != -1
        || term.docFreq <= 1) {
      return;
    }
    if (term.skipOffset < 0) { // one block at most: variable-length integers
      ColumnPrefetch.willRead(docs, term.docStartFP, (long) term.docFreq * MAX_VINT_BYTES);
      return;
    }
    long skipBytes = ((long) term.docFreq / Lucene90PostingsFormat.BLOCK_SIZE + 1) * SKIP_BYTES_PER_BLOCK;
    if (term.skipOffset + skipBytes <= WHOLE_BYTES) {
      ColumnPrefetch.willRead(docs, term.docStartFP, term.skipOffset + skipBytes);
    } else {
      ColumnPrefetch.willRead(docs, term.docStartFP, HEAD_BYTES);
      ColumnPrefetch.willRead(docs, term.docStartFP + term.skipOffset, skipBytes);
    }
  }

  @Override
  public Iterator<String> iterator() {
    return in.iterator();
  }

  @Override
  public Terms terms(String field) throws IOException {
    Terms terms = in.terms(field);
    return terms == null ? null : new PrefetchingTerms(terms);
  }

  @Override
  public int size() {
    return in.size();
  }

  @Override
  public void checkIntegrity() throws IOException {
    in.checkIntegrity();
  }

  @Override
  public FieldsProducer getMergeInstance() {
    return in.getMergeInstance(); // a merge reads every term's postings in order: nothing to ask for ahead
  }

  @Override
  public void close() throws IOException {
    IOUtils.close(in, docs);
  }

  @Override
  public String toString() {
    return "PostingsPrefetch(" + in + ")";
  }

  /** A field's terms, whose enums ask for a term's postings as its state is taken. */
  private final class PrefetchingTerms extends FilterLeafReader.FilterTerms {
    PrefetchingTerms(Terms in) {
      super(in);
    }

    @Override
    public TermsEnum iterator() throws IOException {
      return new PrefetchingTermsEnum(in.iterator());
    }

    @Override
    public TermsEnum intersect(CompiledAutomaton compiled, BytesRef startTerm) throws IOException {
      return new PrefetchingTermsEnum(in.intersect(compiled, startTerm));
    }

    @Override
    public BytesRef getMin() throws IOException {
      return in.getMin();
    }

    @Override
    public BytesRef getMax() throws IOException {
      return in.getMax();
    }
  }

  /** A terms enum that asks for a term's postings when its state is taken (used by one thread, as any enum). */
  private final class PrefetchingTermsEnum extends FilterLeafReader.FilterTermsEnum {
    private IndexInput hints;

    PrefetchingTermsEnum(TermsEnum in) {
      super(in);
    }

    @Override
    public TermState termState() throws IOException {
      TermState state = in.termState();
      if (hints == null) {
        hints = docs.clone();
      }
      prefetch(hints, state);
      return state;
    }
  }
}
