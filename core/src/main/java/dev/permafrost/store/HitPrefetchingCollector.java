/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;

/**
 * A collector that makes the per-document reads of a segment's hits cost one round trip together instead of one
 * each: it holds back up to {@code batchSize} hits of a segment, reads the named doc-values fields of all of them at
 * once (level by level: the bytes each value's read misses are asked for together, a request per blob where their
 * gaps allow, then probed again for the next level; what is still missing after a few levels is read with each
 * (hit, field) on a virtual thread of its own; the bytes land in the cache; a sorted field's terms are looked up too)
 * and asks the segment's stored fields to prefetch their blocks, then hands the hits, in order and with their scores,
 * to the wrapped collector, whose reads find their bytes cached. Values already cached are read at
 * once on the collecting thread (a probe that never waits for the store), so a warm search starts no thread.
 *
 * <p>For queries with few hits per segment (a needle: a client address, a trace id) whose collector reads values of
 * each hit; for a collector that reads most of a segment, {@link ColumnPrefetch} fetches whole columns instead. The
 * wrapped collector sees every hit exactly as without this one, but later, so it offers no competitive iterator
 * (no skipping of non-competitive documents); minimum competitive scores are passed on to the query as they come.
 * Reads that fail while prefetching are ignored: the wrapped collector's own read fetches again and reports. The
 * thread's {@link ReadDeadline} and {@link ReadCost} carry over to the prefetching threads.
 *
 * @param <C> the wrapped collector
 */
public final class HitPrefetchingCollector<C extends Collector> implements Collector {
  /** Hits held back per segment before their values are fetched (the default of {@link #wrap}). */
  public static final int DEFAULT_BATCH_SIZE = 64;

  private final C in;
  private final List<String> docValueFields;
  private final boolean storedFields;
  private final int batchSize;

  private HitPrefetchingCollector(C in, List<String> docValueFields, boolean storedFields, int batchSize) {
    this.in = Objects.requireNonNull(in, "in");
    this.docValueFields = List.copyOf(docValueFields);
    this.storedFields = storedFields;
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
    }
    this.batchSize = batchSize;
  }

  /**
   * Wraps {@code in}: the doc values of {@code docValueFields} of its hits (fields without doc values are skipped),
   * and their stored fields if {@code storedFields}, are fetched in batches of {@code batchSize} hits.
   */
  public static <C extends Collector> HitPrefetchingCollector<C> wrap(C in, Collection<String> docValueFields,
      boolean storedFields, int batchSize) {
    return new HitPrefetchingCollector<>(in, List.copyOf(docValueFields), storedFields, batchSize);
  }

  /** {@link #wrap(Collector, Collection, boolean, int)} with {@value #DEFAULT_BATCH_SIZE} hits per batch. */
  public static <C extends Collector> HitPrefetchingCollector<C> wrap(C in, Collection<String> docValueFields,
      boolean storedFields) {
    return wrap(in, docValueFields, storedFields, DEFAULT_BATCH_SIZE);
  }

  /** A manager whose collectors wrap {@code manager}'s; its reduce reduces the wrapped ones. */
  public static <C extends Collector, T> CollectorManager<HitPrefetchingCollector<C>, T> manager(
      CollectorManager<C, T> manager, Collection<String> docValueFields, boolean storedFields) {
    List<String> fields = List.copyOf(docValueFields);
    return new CollectorManager<>() {
      @Override
      public HitPrefetchingCollector<C> newCollector() throws IOException {
        return wrap(manager.newCollector(), fields, storedFields);
      }

      @Override
      public T reduce(Collection<HitPrefetchingCollector<C>> collectors) throws IOException {
        List<C> wrapped = new ArrayList<>(collectors.size());
        for (HitPrefetchingCollector<C> c : collectors) {
          wrapped.add(c.in);
        }
        return manager.reduce(wrapped);
      }
    };
  }

  /** The wrapped collector. */
  public C delegate() {
    return in;
  }

  @Override
  public ScoreMode scoreMode() {
    return in.scoreMode();
  }

  @Override
  public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
    return new Batching(context.reader(), in.getLeafCollector(context), in.scoreMode().needsScores());
  }

  /** Holds a segment's hits back, fetches their values together, then replays them. */
  private final class Batching implements LeafCollector {
    private final LeafReader reader;
    private final LeafCollector in;
    private final int[] docs = new int[batchSize];
    private final float[] scores;
    private final Replay replay = new Replay();
    private Scorable scorer;
    private int count;

    Batching(LeafReader reader, LeafCollector in, boolean needsScores) {
      this.reader = reader;
      this.in = in;
      this.scores = needsScores ? new float[batchSize] : null;
    }

    @Override
    public void setScorer(Scorable scorer) throws IOException {
      this.scorer = scorer;
      in.setScorer(replay);
    }

    @Override
    public void collect(int doc) throws IOException {
      docs[count] = doc;
      if (scores != null) {
        scores[count] = scorer.score();
      }
      if (++count == docs.length) {
        flush();
      }
    }

    @Override
    public void finish() throws IOException {
      flush();
      in.finish();
    }

    private void flush() throws IOException {
      if (count == 0) {
        return;
      }
      prefetch(reader, docs, count);
      for (int i = 0; i < count; i++) {
        replay.score = scores == null ? 0 : scores[i];
        in.collect(docs[i]);
      }
      count = 0;
    }

    /** The scorer the wrapped collector sees: the replayed hit's score; thresholds go on to the query's scorer. */
    private final class Replay extends Scorable {
      float score;

      @Override
      public float score() {
        return score;
      }

      @Override
      public void setMinCompetitiveScore(float minScore) throws IOException {
        if (scorer != null) {
          scorer.setMinCompetitiveScore(minScore);
        }
      }
    }
  }

  /** Fetches the values of {@code docs[0..count)}: stored fields through Lucene's prefetch, doc values by reading them. */
  private void prefetch(LeafReader reader, int[] docs, int count) throws IOException {
    if (storedFields) {
      StoredFields stored = reader.storedFields();
      try (PrefetchBatch batch = PrefetchBatch.open()) { // hits' blocks close together in one request
        for (int i = 0; i < count; i++) {
          stored.prefetch(docs[i]);
        }
      }
    }
    List<FieldInfo> fields = new ArrayList<>(docValueFields.size());
    for (String name : docValueFields) {
      FieldInfo info = reader.getFieldInfos().fieldInfo(name);
      if (info != null && info.getDocValuesType() != DocValuesType.NONE) {
        fields.add(info);
      }
    }
    if (fields.isEmpty()) {
      return;
    }
    // Warm, the values are read here at once and no thread is started; what is not cached is left to the threads.
    List<int[]> missing = new ArrayList<>();
    List<ReadIntent.ProbeMiss> missedAt = new ArrayList<>(); // beside missing: where each probe missed, or null
    ReadIntent.mode(ReadIntent.Mode.PROBE);
    ReadIntent.takeProbeMiss(); // none left from before
    try {
      for (int f = 0; f < fields.size(); f++) {
        FieldInfo field = fields.get(f);
        DocIdSetIterator values = null; // one for the batch's hits (in doc order), opened again after a failed read
        int last = -1;
        for (int i = 0; i < count; i++) {
          int doc = docs[i];
          try {
            if (values == null || doc <= last) {
              values = open(reader, field);
            }
            last = doc;
            readValue(values, field, doc);
          } catch (IOException | RuntimeException e) {
            values = null; // a probe that threw may have left it anywhere
            missing.add(new int[] {f, doc});
            missedAt.add(ReadIntent.takeProbeMiss());
          }
        }
      }
    } finally {
      ReadIntent.mode(null);
    }
    if (missing.isEmpty()) {
      return;
    }
    fetchWholeWhereNoDearer(reader, fields, missing);
    // Level by level, what the probes missed is asked for together (the misses of one blob in as few requests as their
    // gaps allow: a few values of one column are close together more often than not), waited for, and probed again,
    // which finds the next level's misses (a value's block, once its offset is in): where each read, on a thread of
    // its own, made a request of its own at every level. A column fetched whole above is in flight already: asking
    // for its misses adds no request.
    for (int level = 0; level < PROBE_LEVELS && !missing.isEmpty(); level++) {
      List<ReadIntent.ProbeMiss> asked = new ArrayList<>(missedAt.size());
      try (PrefetchBatch batch = PrefetchBatch.open()) {
        for (ReadIntent.ProbeMiss miss : missedAt) {
          if (miss != null && miss.prefetchQuietly()) {
            asked.add(miss);
          }
        }
      }
      if (asked.isEmpty()) {
        break; // nothing known to ask for: the reads below find out
      }
      ReadIntent.mode(ReadIntent.Mode.PREFETCH);
      try {
        byte[] scratch = new byte[8192];
        for (ReadIntent.ProbeMiss miss : asked) {
          miss.awaitQuietly(scratch);
        }
      } finally {
        ReadIntent.mode(null);
      }
      // probed again, reading what this work fetched (it is in, or on its way: no probe's finding depends on timing)
      List<int[]> still = new ArrayList<>(missing.size());
      List<ReadIntent.ProbeMiss> stillAt = new ArrayList<>(missing.size());
      ReadIntent.mode(ReadIntent.Mode.PROBE_PAST_FETCHED);
      try {
        for (int[] m : missing) {
          FieldInfo field = fields.get(m[0]);
          try {
            readValue(open(reader, field), field, m[1]);
          } catch (IOException | RuntimeException e) {
            still.add(m);
            stillAt.add(ReadIntent.takeProbeMiss());
          }
        }
      } finally {
        ReadIntent.mode(null);
      }
      missing = still;
      missedAt = stillAt;
    }
    if (missing.isEmpty()) {
      return;
    }
    ReadCost.Reading reading = ReadCost.reading(); // each read carries on from what this thread has read
    ReadCost cost = reading == null ? null : reading.cost;
    int readDepth = reading == null ? 0 : reading.depth;
    ReadDeadline deadline = ReadDeadline.current();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int[] m : missing) {
        FieldInfo field = fields.get(m[0]);
        int doc = m[1];
        threads.execute(() -> readQuietly(reader, field, doc, cost, readDepth, deadline));
      }
    } // waits for every read
  }

  /**
   * Fetches a field's columns whole, in one go per cache region, where at least {@value #WHOLE_COLUMN_HITS} of its
   * values are missing and their reads would fetch about half of the columns anyway: each read of a value is a fill
   * of its own, about twice the input's fill once rounded out to whole checksum chunks (147 KB a read with 64 KiB
   * fills, measured at scale {@code medium}). Twenty hits in a segment of a million documents then cost a request
   * per region instead of twenty, and a search over many segments is not one wave per {@code fetchThreads} hits. The
   * reads that follow wait for those fills.
   */
  private static void fetchWholeWhereNoDearer(LeafReader reader, List<FieldInfo> fields, List<int[]> missing)
      throws IOException {
    int[] misses = new int[fields.size()];
    for (int[] m : missing) {
      misses[m[0]]++;
    }
    List<String> whole = new ArrayList<>();
    for (int f = 0; f < fields.size(); f++) {
      if (misses[f] < WHOLE_COLUMN_HITS) {
        continue; // a few reads run side by side on the fetch lane: one wave, fewer bytes than the column
      }
      ReadIntent.Measure size = ColumnPrefetch.measure(reader, fields.get(f));
      if (size.wholeBytes > 0 && 4L * misses[f] * size.largestFill >= size.wholeBytes) {
        whole.add(fields.get(f).name);
      }
    }
    if (!whole.isEmpty()) {
      ColumnPrefetch.fetchWhole(reader, whole);
    }
  }

  /**
   * The most levels of dependent reads (an offset, then the block it points at) that the missing values of a batch are
   * asked for together, a request per blob and level; what is still missing after them is read on threads.
   */
  static final int PROBE_LEVELS = 4;

  /** The fewest missing values of a field in a segment for which its columns may be fetched whole. */
  static final int WHOLE_COLUMN_HITS = 8;

  private static void readQuietly(LeafReader reader, FieldInfo field, int doc, ReadCost cost, int readDepth,
      ReadDeadline deadline) {
    try (ReadCost.Scope c = cost == null ? null : ReadCost.attach(cost, readDepth);
        ReadDeadline.Scope d = deadline == null ? null : ReadDeadline.at(deadline.deadlineNanos, deadline.what)) {
      ReadIntent.mode(ReadIntent.Mode.PREFETCH);
      read(reader, field, doc);
    } catch (IOException | RuntimeException e) {
      // the wrapped collector's own read of this value fetches again and reports what is wrong
    } finally {
      ReadIntent.mode(null);
    }
  }

  /** Reads {@code field}'s value(s) of {@code doc}, which brings their bytes into the cache. */
  static void read(LeafReader reader, FieldInfo field, int doc) throws IOException {
    readValue(open(reader, field), field, doc);
  }

  /** A new iterator over {@code field}'s doc values in {@code reader}, or null if it has none there. */
  private static DocIdSetIterator open(LeafReader reader, FieldInfo field) throws IOException {
    String name = field.name;
    return switch (field.getDocValuesType()) {
      case NUMERIC -> reader.getNumericDocValues(name);
      case SORTED_NUMERIC -> reader.getSortedNumericDocValues(name);
      case SORTED -> reader.getSortedDocValues(name);
      case SORTED_SET -> reader.getSortedSetDocValues(name);
      case BINARY -> reader.getBinaryDocValues(name);
      case NONE -> null;
    };
  }

  /** Reads the value(s) of {@code doc} from {@code values} ({@link #open}'s, not past {@code doc}; null: none). */
  private static void readValue(DocIdSetIterator values, FieldInfo field, int doc) throws IOException {
    if (values == null) {
      return;
    }
    switch (field.getDocValuesType()) {
      case NUMERIC -> {
        NumericDocValues v = (NumericDocValues) values;
        if (v.advanceExact(doc)) {
          v.longValue();
        }
      }
      case SORTED_NUMERIC -> {
        SortedNumericDocValues v = (SortedNumericDocValues) values;
        if (v.advanceExact(doc)) {
          for (int i = 0; i < v.docValueCount(); i++) {
            v.nextValue();
          }
        }
      }
      case SORTED -> {
        SortedDocValues v = (SortedDocValues) values;
        if (v.advanceExact(doc)) {
          v.lookupOrd(v.ordValue());
        }
      }
      case SORTED_SET -> {
        SortedSetDocValues v = (SortedSetDocValues) values;
        if (v.advanceExact(doc)) {
          for (int i = 0; i < v.docValueCount(); i++) {
            v.lookupOrd(v.nextOrd());
          }
        }
      }
      case BINARY -> {
        BinaryDocValues v = (BinaryDocValues) values;
        if (v.advanceExact(doc)) {
          v.binaryValue();
        }
      }
      case NONE -> {}
    }
  }
}
