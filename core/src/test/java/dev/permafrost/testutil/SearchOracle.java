/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.testutil;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;

/**
 * A fixed set of searches over a {@link RandomIndexes} index that touch every kind of data (postings and their
 * frequencies through scores, points, numeric and sorted-set doc values, stored fields), and a textual answer for
 * each, so that a mounted index can be compared with the local one search by search.
 */
public final class SearchOracle {
  private final List<Query> queries = new ArrayList<>();
  private final List<Sort> sorts = new ArrayList<>();

  /** {@code count} searches drawn from {@code random}. */
  public SearchOracle(Random random, int count) {
    for (int i = 0; i < count; i++) {
      Query q = switch (i % 4) {
        case 0 -> new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(RandomIndexes.WORDS.length)]));
        case 1 -> {
          long from = RandomIndexes.BASE_TIME + random.nextInt(4000) * 1000L;
          yield LongPoint.newRangeQuery("@timestamp", from, from + 1000L * random.nextInt(2000));
        }
        case 2 -> new BooleanQuery.Builder()
            .add(new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(8)])), BooleanClause.Occur.MUST)
            .add(new TermQuery(new Term("status_s", "404")), BooleanClause.Occur.SHOULD)
            .build();
        default -> new MatchAllDocsQuery();
      };
      queries.add(q);
      sorts.add(i % 4 == 1 || i % 4 == 3 ? new Sort(new SortField("@timestamp", SortField.Type.LONG, random.nextBoolean())) : null);
    }
  }

  public int size() {
    return queries.size();
  }

  public String describe(int i) {
    return queries.get(i) + (sorts.get(i) == null ? "" : " sorted by " + sorts.get(i));
  }

  /** The answer of search {@code i}: hits, scores, sort values, stored fields and a doc-values aggregation. */
  public String answer(IndexSearcher searcher, int i) throws IOException {
    Query q = queries.get(i);
    Sort sort = sorts.get(i);
    TopDocs top = sort == null ? searcher.search(q, 15) : searcher.search(q, 15, sort);
    StringBuilder sb = new StringBuilder();
    sb.append(top.totalHits).append('\n');
    StoredFields stored = searcher.storedFields();
    for (ScoreDoc hit : top.scoreDocs) {
      Document d = stored.document(hit.doc);
      sb.append(hit.doc).append(' ').append(Float.floatToIntBits(hit.score)).append(' ');
      if (hit instanceof FieldDoc fd) {
        sb.append(Arrays.toString(fd.fields)).append(' ');
      }
      sb.append(d.get("id")).append(' ').append(d.get("body")).append(' ').append(d.getField("bytes").numericValue()).append('\n');
    }
    Aggregation agg = new Aggregation();
    searcher.search(q, agg);
    sb.append(agg.count).append(' ').append(agg.timestampSum).append(' ').append(agg.countries);
    return sb.toString();
  }

  /**
   * The IOException in {@code t}'s cause chain (itself included), or null: how a failed read surfaces, since Lucene
   * rethrows some read failures wrapped in a RuntimeException.
   */
  public static IOException ioFailure(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IOException io) {
        return io;
      }
    }
    return null;
  }

  /** Every answer, in order. */
  public List<String> answers(IndexSearcher searcher) throws IOException {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < queries.size(); i++) {
      all.add(answer(searcher, i));
    }
    return all;
  }

  /** Counts hits, sums their timestamps and counts their countries, from doc values. */
  private static final class Aggregation extends SimpleCollector {
    long count;
    long timestampSum;
    final TreeMap<String, Integer> countries = new TreeMap<>();
    private NumericDocValues timestamps;
    private SortedSetDocValues country;

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      timestamps = DocValues.getNumeric(context.reader(), "@timestamp");
      country = DocValues.getSortedSet(context.reader(), "country");
    }

    @Override
    public void collect(int doc) throws IOException {
      count++;
      if (timestamps.advanceExact(doc)) {
        timestampSum += timestamps.longValue();
      }
      if (country.advanceExact(doc)) {
        for (int k = 0; k < country.docValueCount(); k++) {
          countries.merge(country.lookupOrd(country.nextOrd()).utf8ToString(), 1, Integer::sum);
        }
      }
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
