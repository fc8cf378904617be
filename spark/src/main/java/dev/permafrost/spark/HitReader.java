/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.util.LongAccumulator;

/**
 * The rows of one snapshot's hits. Without a top-N the hits stream segment by segment in document order, scored
 * only if {@code _score} is read, and stop at the pushed-down limit; with one, Lucene finds the top N sorted on the
 * field and the rows are read in document order (Spark sorts them again).
 */
final class HitReader extends SnapshotReader {
  private final boolean scores;
  private final int limit;
  private final Hits hits;
  private RowAssembler assembler;
  private LeafReaderContext assemblerLeaf;
  private InternalRow row;
  private int returned;

  HitReader(ScanPlan plan, String index, LongAccumulator bytesFetched) throws IOException {
    super(plan, index, bytesFetched);
    this.scores = plan.readSchema().getFieldIndex(IndexFields.SCORE).isDefined();
    int n = plan.topN() != null ? plan.topN().limit() : plan.limit();
    this.limit = n < 0 ? Integer.MAX_VALUE : n;
    this.hits = plan.topN() != null ? new TopHits(searcher(), plan.topN()) : new StreamedHits(searcher());
  }

  @Override
  public boolean next() throws IOException {
    if (returned >= limit || !hits.next()) {
      return false;
    }
    if (hits.leaf() != assemblerLeaf) {
      assemblerLeaf = hits.leaf();
      assembler = new RowAssembler(assemblerLeaf.reader(), plan.readSchema(), index, sourceMapping());
    }
    row = assembler.row(hits.doc(), hits.score());
    returned++;
    return true;
  }

  @Override
  public InternalRow get() {
    return row;
  }

  /** Hits in segment order, then document order. */
  private interface Hits {
    boolean next() throws IOException;

    LeafReaderContext leaf();

    /** The document within {@link #leaf()}. */
    int doc();

    float score() throws IOException;
  }

  /** Every hit, segment by segment, as the scorers find them. */
  private final class StreamedHits implements Hits {
    private final List<LeafReaderContext> leaves;
    private final Weight weight;
    private int leafOrd = -1;
    private LeafReaderContext leaf;
    private Scorer scorer;
    private DocIdSetIterator docs;
    private Bits live;

    StreamedHits(IndexSearcher searcher) throws IOException {
      this.leaves = searcher.getIndexReader().leaves();
      this.weight = searcher.createWeight(searcher.rewrite(query),
          scores ? ScoreMode.COMPLETE : ScoreMode.COMPLETE_NO_SCORES, 1f);
    }

    @Override
    public boolean next() throws IOException {
      while (true) {
        if (docs != null) {
          for (int d = docs.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = docs.nextDoc()) {
            if (live == null || live.get(d)) {
              return true;
            }
          }
          docs = null;
        }
        if (++leafOrd >= leaves.size()) {
          return false;
        }
        leaf = leaves.get(leafOrd);
        ScorerSupplier supplier = weight.scorerSupplier(leaf);
        if (supplier != null) {
          scorer = supplier.get(Long.MAX_VALUE);
          docs = scorer.iterator();
          live = leaf.reader().getLiveDocs();
        }
      }
    }

    @Override
    public LeafReaderContext leaf() {
      return leaf;
    }

    @Override
    public int doc() {
      return docs.docID();
    }

    @Override
    public float score() throws IOException {
      return scores ? scorer.score() : Float.NaN;
    }
  }

  /** The top N hits by one field, in document order. */
  private final class TopHits implements Hits {
    private final List<LeafReaderContext> leaves;
    private final ScoreDoc[] top;
    private int i = -1;
    private LeafReaderContext leaf;

    TopHits(IndexSearcher searcher, ScanPlan.TopN topN) throws IOException {
      this.leaves = searcher.getIndexReader().leaves();
      SortField field = topN.sortedNumeric()
          ? new SortedNumericSortField(topN.field(), SortField.Type.LONG, topN.descending())
          : new SortField(topN.field(), SortField.Type.LONG, topN.descending());
      field.setMissingValue(topN.nullsFirst() != topN.descending() ? Long.MIN_VALUE : Long.MAX_VALUE);
      TopFieldDocs found = searcher.search(query, topN.limit(), new Sort(field), scores);
      this.top = found.scoreDocs.clone();
      Arrays.sort(top, Comparator.comparingInt(d -> d.doc));
    }

    @Override
    public boolean next() {
      if (++i >= top.length) {
        return false;
      }
      leaf = leaves.get(ReaderUtil.subIndex(top[i].doc, leaves));
      return true;
    }

    @Override
    public LeafReaderContext leaf() {
      return leaf;
    }

    @Override
    public int doc() {
      return top[i].doc - leaf.docBase;
    }

    @Override
    public float score() {
      return top[i].score;
    }
  }
}
