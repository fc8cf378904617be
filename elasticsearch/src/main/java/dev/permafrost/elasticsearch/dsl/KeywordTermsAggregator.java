/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.StringTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.TermCounts;
import java.io.IOException;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.BytesRefHash;

/**
 * Terms of a keyword field. Without sub-aggregations at the top level, counts by segment ordinal and turns the
 * counted ordinals into terms when the segment ends; otherwise each segment ordinal is given a slice-wide term id
 * the first time it is seen, and buckets are keyed by it.
 */
final class KeywordTermsAggregator extends BucketAggregator<StringTerms> {
  private final FieldValues values;
  private final boolean counting;
  private final BytesRef missingTerm;
  private final BytesRefHash terms = new BytesRefHash();
  private final BytesRef scratch = new BytesRef();
  private int[] segmentCounts;
  private long segmentMissing;
  private int[] segmentTerms;
  /** The counting path's runs, one per segment, and its documents without a value. */
  private final TermCounts counted = new TermCounts();
  private long missingCount;
  /** {@code min_doc_count: 0}: every term of every segment's terms dictionary has a bucket, 0 if nothing matched. */
  private final boolean everyTerm;

  KeywordTermsAggregator(FieldValues values, BytesRef missingTerm, boolean topLevel, boolean everyTerm, Aggregator[] subs) {
    super(subs);
    this.values = values;
    this.missingTerm = missingTerm;
    this.counting = topLevel && subs.length == 0;
    this.everyTerm = everyTerm;
  }

  @Override
  void setLeaf(LeafReaderContext context) throws IOException {
    values.setLeaf(context.reader());
    int valueCount = values.ordinals == null ? 0 : Math.toIntExact(values.ordinals.getValueCount());
    if (counting) {
      segmentCounts = new int[valueCount];
      segmentMissing = 0;
    } else {
      segmentTerms = new int[valueCount];
      if (everyTerm) {
        for (int ord = 0; ord < valueCount; ord++) {
          termId(ord); // known: a bucket under every parent when built
        }
      }
    }
  }

  @Override
  void collect(int doc, int parent) throws IOException {
    int n = values.load(doc);
    long[] v = values.values;
    if (counting) {
      for (int i = 0; i < n; i++) {
        if (v[i] < 0) {
          segmentMissing++;
        } else {
          segmentCounts[(int) v[i]]++;
        }
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      collectBucket(doc, keyedOrd(parent, termId(v[i])));
    }
  }

  private int termId(long ord) throws IOException {
    if (ord < 0) {
      return id(terms.add(missingTerm));
    }
    int id = segmentTerms[(int) ord] - 1;
    if (id < 0) {
      id = id(terms.add(values.ordinals.lookupOrd(ord)));
      segmentTerms[(int) ord] = id + 1;
    }
    return id;
  }

  private static int id(int added) {
    return added < 0 ? -added - 1 : added;
  }

  @Override
  void finishLeaf() throws IOException {
    if (!counting || segmentCounts == null) {
      return;
    }
    int n = 0;
    for (int c : segmentCounts) {
      n += c > 0 || everyTerm ? 1 : 0;
    }
    BytesRef[] runTerms = new BytesRef[n];
    long[] runCounts = new long[n];
    int i = 0;
    for (int ord = 0; ord < segmentCounts.length; ord++) { // ascending: the terms dictionary is read forward once
      if (segmentCounts[ord] > 0 || everyTerm) {
        runTerms[i] = BytesRef.deepCopyOf(values.ordinals.lookupOrd(ord));
        runCounts[i++] = segmentCounts[ord];
      }
    }
    counted.addRun(runTerms, runCounts);
    missingCount += segmentMissing;
    segmentCounts = null;
  }

  @Override
  StringTerms newBuckets() {
    return new StringTerms();
  }

  @Override
  void put(StringTerms buckets, long termId, Bucket bucket) {
    buckets.map.put(terms.get((int) termId, scratch).utf8ToString(), bucket);
  }

  @Override
  AggPartial<?>[] build(int ords) {
    if (!counting) {
      if (everyTerm) {
        if (missingTerm != null) {
          terms.add(missingTerm); // the missing value is a term of the field as the node reads it: a bucket, 0 if none
        }
        int known = terms.size();
        for (int parent = 0; parent < ords; parent++) {
          for (int id = 0; id < known; id++) {
            keyedOrd(parent, id);
          }
        }
      }
      return super.build(ords);
    }
    if (missingCount > 0 || everyTerm && missingTerm != null) { // as a term of the field with min_doc_count 0
      counted.addRun(new BytesRef[] {missingTerm}, new long[] {missingCount});
      missingCount = 0;
    }
    AggPartial<?>[] out = new AggPartial<?>[ords];
    out[0] = counted;
    return out;
  }
}
