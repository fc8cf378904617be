/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.ArrayUtil;

/**
 * Fetches the doc-values columns a search is about to scan, whole and all at once, so that a collector that reads
 * them for most of a segment's documents (an aggregation, a histogram) finds them cached instead of paying one
 * round trip per cache region of each column, one column after another.
 *
 * <p>Call it when a collector starts on a segment, before reading: Lucene asks for a leaf collector before it reads
 * the query's terms and postings, so the columns travel in the same round trip as those.
 *
 * <pre>{@code
 * protected void doSetNextReader(LeafReaderContext context) throws IOException {
 *   ColumnPrefetch.prefetch(context.reader(), List.of("@timestamp", "url.path"));
 *   timestamps = context.reader().getNumericDocValues("@timestamp");
 *   ...
 * }
 * }</pre>
 *
 * <p>What is fetched is every slice the field's doc-values reader opens as a column's: every random-access slice
 * (Lucene's own format reads values, ordinals, addresses and jump tables by position), and every sequential slice a
 * format opens through {@link #columnSlice} (Elasticsearch's TSDB formats read their blocks of values and ordinals in
 * order, and a keyword's terms dictionary no larger than its ordinals), up to {@value #MAX_COLUMN_BYTES} bytes per
 * slice; and the plain sequential slices a field's reader opens (Lucene's own terms dictionary of a sorted field and
 * its index) when they are no larger than its columns, as a collector that names a keyword turns its ordinals into
 * terms: fetched with the ordinals, in their request if they lie between them, they cost no wave of their own. A
 * larger dictionary is read as the collector looks terms up. The columns of one call take at most half of the cache:
 * what the cache does not admit, and what the call names past that share and the cache does not hold already, is read
 * directly from the store for this thread, one request per run. Fetches run on the cache's prefetch threads, a
 * reader that comes to need the bytes waits for them, and a failure is left for that read to report. On a directory
 * other than a {@link BlobDirectory} (a local copy, a full copy) nothing is fetched. A field that is missing or has
 * no doc values is skipped. For a handful of hits per segment, prefer fetching their rows
 * ({@link HitPrefetchingCollector}): a whole column costs more bytes than a few of its values.
 *
 * <p>Two more things a search reads after a round trip it need not wait for: the index of a points tree a range walks
 * ({@link #prefetchPointsIndex}, which the catalog calls for the ranges a query requires), and whatever a codec knows
 * it reads next ({@link #willRead}: a term's postings, as soon as the term is found).
 */
public final class ColumnPrefetch {
  /** The most bytes of one slice of a column that are fetched ahead. */
  public static final long MAX_COLUMN_BYTES = ReadIntent.MAX_COLUMN_BYTES;

  private ColumnPrefetch() {}

  /**
   * Opens a sequential slice of {@code in} that a doc-values reader reads a column through (its blocks of values or
   * ordinals, decoded in order): for a codec whose columns are not random-access slices, where it would call
   * {@code in.slice(description, offset, length)}. On a {@link BlobDirectory}'s input such a slice is a column's
   * exactly as a random-access slice is: fetched whole while {@link #prefetch} opens the field, and, opened by the
   * collector after, read from what that call read directly from the store for this thread. A slice the reader
   * reads here and there (a terms dictionary) is opened with {@code in.slice}: it is not fetched whole. On any other
   * input this is {@code in.slice(description, offset, length)}.
   */
  public static IndexInput columnSlice(IndexInput in, String description, long offset, long length)
      throws IOException {
    return in instanceof BlobIndexInput blob ? blob.columnSlice(description, offset, length)
        : in.slice(description, offset, length);
  }

  /**
   * Starts fetching [{@code offset}, {@code offset+length}) of {@code in}, which this thread is about to read; returns
   * at once. For a codec that knows where a search reads next before it reads there (a term's postings, as soon as
   * the term is found): the bytes travel with what the search reads meanwhile instead of a round trip after it. On a
   * {@link BlobDirectory}'s input, what the cache admits is fetched as a prefetch is; what it does not is read
   * directly from the store in one request, for a catalog search (the bytes are held for every input of the file until
   * the index's part of the search is done, within the cache's {@code directReadHeapBytes}); outside one, it is left
   * to the read. On any other input this is {@code in.prefetch(offset, length)}.
   */
  public static void willRead(IndexInput in, long offset, long length) throws IOException {
    if (in instanceof BlobIndexInput blob) {
      blob.willRead(offset, length);
    } else {
      in.prefetch(offset, length);
    }
  }

  /** Starts fetching the doc-values columns of {@code fields} in {@code reader}'s segment; returns at once. */
  public static void prefetch(LeafReader reader, Collection<String> fields) throws IOException {
    prefetch(List.of(reader), fields);
  }

  /**
   * Starts fetching the doc-values columns of {@code fields} in every segment of {@code reader}; returns at once.
   * For a search that is about to collect every segment on this thread (a sorted search): one call for all of them,
   * because a call forgets the columns that this thread's previous call read directly from the store.
   */
  public static void prefetch(IndexReader reader, Collection<String> fields) throws IOException {
    List<LeafReader> segments = new ArrayList<>(reader.leaves().size());
    for (LeafReaderContext leaf : reader.leaves()) {
      segments.add(leaf.reader());
    }
    prefetch(segments, fields);
  }

  private static void prefetch(List<LeafReader> segments, Collection<String> fields) throws IOException {
    if (ReadIntent.opening() == null) {
      ReadIntent.forgetStarted(); // the columns of the last call: its collectors have opened them by now
    }
    openWhole(segments, fields, ReadIntent.FetchWhole.forThisThread());
  }

  /** Opens the doc values of {@code fields} in each segment, their slices to be fetched whole as {@code mode} says. */
  private static void openWhole(List<LeafReader> segments, Collection<String> fields, ReadIntent.FetchWhole mode)
      throws IOException {
    ReadIntent.Opening outer = ReadIntent.opening(mode);
    PrefetchBatch batch = PrefetchBatch.open(); // a blob's columns in as few requests as the gaps between them allow
    try {
      for (LeafReader reader : segments) {
        for (String field : fields) {
          FieldInfo info = reader.getFieldInfos().fieldInfo(field);
          if (info != null) {
            open(reader, field, info.getDocValuesType());
          }
        }
      }
    } finally {
      ReadIntent.opening(outer);
      try {
        // what the cache refused, in as few requests as the stretches allow, with the admitted regions beside them
        // that the batch holds until then
        ReadIntent.startWanted();
      } finally {
        batch.close();
      }
    }
  }

  /**
   * Starts fetching the index of {@code range}'s field's points tree (its inner nodes: {@code .kdi}), whole, in each
   * segment of {@code reader} whose tree the range walks; returns at once. A range walks that index before it reads a
   * leaf, when the query plans its scorer: a round trip after whatever the query looked up before it (its terms).
   * Asked for as the search starts, it comes in the first wave, beside the columns. A segment whose points all fall
   * outside the range, or all inside it with every document holding one, is not walked (Lucene's
   * {@code PointRangeQuery} answers it from the tree's bounds) and not fetched, nor is what is cached or kept in the
   * manifest. What the cache does not admit is read directly from the store for a catalog search, as {@link #willRead}
   * says. On a directory other than a {@link BlobDirectory} nothing is fetched.
   */
  public static void prefetchPointsIndex(IndexReader reader, PointRangeQuery range) throws IOException {
    for (LeafReaderContext leaf : reader.leaves()) {
      PointValues points = leaf.reader().getPointValues(range.getField());
      if (points != null && walks(points, leaf.reader().maxDoc(), range)) {
        fetchPointsIndex(points);
      }
    }
  }

  /**
   * Whether {@code range} walks the tree of {@code points}, a segment's of {@code maxDoc} documents, as Lucene's
   * {@code PointRangeQuery} decides from the tree's bounds: unless none of its points is in the range, or all are and
   * every document has one (or the range does not fit the field, which Lucene refuses).
   */
  static boolean walks(PointValues points, int maxDoc, PointRangeQuery range) throws IOException {
    int dims = range.getNumDims();
    int bytes = range.getBytesPerDim();
    if (points.getNumIndexDimensions() != dims || points.getBytesPerDimension() != bytes) {
      return false;
    }
    ArrayUtil.ByteArrayComparator compare = ArrayUtil.getUnsignedComparator(bytes);
    byte[] min = points.getMinPackedValue();
    byte[] max = points.getMaxPackedValue();
    byte[] lower = range.getLowerPoint();
    byte[] upper = range.getUpperPoint();
    boolean inside = true;
    for (int d = 0; d < dims; d++) {
      int at = d * bytes;
      if (compare.compare(min, at, upper, at) > 0 || compare.compare(max, at, lower, at) < 0) {
        return false; // none in the range
      }
      if (compare.compare(min, at, lower, at) < 0 || compare.compare(max, at, upper, at) > 0) {
        inside = false;
      }
    }
    return !inside || points.getDocCount() != maxDoc;
  }

  /**
   * Starts fetching what is neither cached nor kept in the manifest of the index of {@code points}' tree. Opening the
   * tree slices the index (noted here) and reads its root: a probe here, which reads what is cached and stops at
   * what is not.
   */
  private static void fetchPointsIndex(PointValues points) throws IOException {
    ReadIntent.FieldSlices slices = new ReadIntent.FieldSlices();
    ReadIntent.FieldSlices outerField = ReadIntent.field(slices);
    ReadIntent.Mode outerMode = ReadIntent.mode(ReadIntent.Mode.PROBE);
    try {
      points.getPointTree();
    } catch (IOException e) {
      if (e != ReadIntent.NOT_CACHED) {
        throw e;
      }
      ReadIntent.takeProbeMiss(); // the root's page: the whole index is asked for below
    } finally {
      ReadIntent.mode(outerMode);
      ReadIntent.field(outerField);
    }
    for (ReadIntent.SequentialSlice index : slices.sequential) {
      index.willReadAll();
    }
  }

  /** Starts fetching the doc-values columns of {@code fields}; see {@link #prefetch(LeafReader, Collection)}. */
  public static void prefetch(LeafReader reader, String... fields) throws IOException {
    prefetch(reader, List.of(fields));
  }

  /**
   * Starts fetching the doc-values columns of {@code fields} in {@code reader}'s segment whole, into the cache only,
   * for reads on other threads; this thread's direct reads of an earlier call stay.
   */
  static void fetchWhole(LeafReader reader, Collection<String> fields) throws IOException {
    openWhole(List.of(reader), fields, ReadIntent.FetchWhole.intoCache());
  }

  /**
   * What fetching {@code field}'s columns whole would bring, in bytes, and the fill one read of a value starts
   * (0 and 0 on a directory other than a {@link BlobDirectory}); fetches nothing.
   */
  static ReadIntent.Measure measure(LeafReader reader, FieldInfo field) throws IOException {
    ReadIntent.Measure size = new ReadIntent.Measure();
    ReadIntent.Opening outer = ReadIntent.opening(size);
    try {
      open(reader, field.name, field.getDocValuesType());
    } finally {
      ReadIntent.opening(outer);
    }
    return size;
  }

  /**
   * Opens the field's doc values, which opens their columns' slices (fetched whole or measured as the thread's
   * opening says); then its plain sequential slices (a terms dictionary) likewise, if they are no larger than its
   * columns ({@link ReadIntent.FieldSlices}).
   */
  private static void open(LeafReader reader, String field, DocValuesType type) throws IOException {
    ReadIntent.FieldSlices slices = new ReadIntent.FieldSlices();
    ReadIntent.FieldSlices outer = ReadIntent.field(slices);
    try {
      switch (type) {
        case NUMERIC -> reader.getNumericDocValues(field);
        case BINARY -> reader.getBinaryDocValues(field);
        case SORTED -> reader.getSortedDocValues(field);
        case SORTED_NUMERIC -> reader.getSortedNumericDocValues(field);
        case SORTED_SET -> reader.getSortedSetDocValues(field);
        case NONE -> {}
      }
    } finally {
      ReadIntent.field(outer);
    }
    ReadIntent.Opening opening = ReadIntent.opening();
    if (opening != null && slices.sequentialAreColumns()) {
      for (ReadIntent.SequentialSlice slice : slices.sequential) {
        slice.openedAsColumn(opening);
      }
    }
  }
}
