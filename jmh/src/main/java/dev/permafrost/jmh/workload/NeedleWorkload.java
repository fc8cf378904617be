/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.store.HitPrefetchingCollector;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.TermQuery;

/**
 * The needle in the haystack: every event of one client address across all indices (a handful of hits), with
 * their timestamps read from doc values. Cold, it costs a terms-dictionary lookup per index and little else.
 */
public final class NeedleWorkload implements Workload {
  private final String ip;

  public NeedleWorkload(String ip) {
    this.ip = ip;
  }

  @Override
  public String name() {
    return "needle";
  }

  /** The matching events' timestamps, sorted. */
  public record Result(List<Long> timestamps) implements Workload.Result {
    @Override
    public long hits() {
      return timestamps.size();
    }
  }

  @Override
  public Result run(Indices indices) throws IOException {
    TermQuery query = new TermQuery(new Term(AccessLogDocuments.SOURCE_IP, ip));
    // a handful of hits per index, each needing its timestamp: read them together, not one round trip each
    return indices.collect(query, HitPrefetchingCollector.manager(new CollectorManager<TimestampCollector, Result>() {
      @Override
      public TimestampCollector newCollector() {
        return new TimestampCollector();
      }

      @Override
      public Result reduce(Collection<TimestampCollector> collectors) {
        List<Long> timestamps = new ArrayList<>();
        for (TimestampCollector c : collectors) {
          timestamps.addAll(c.out);
        }
        Collections.sort(timestamps);
        return new Result(List.copyOf(timestamps));
      }
    }, List.of(AccessLogDocuments.TIMESTAMP), false));
  }

  /** Adds each hit's {@code @timestamp} to a list. */
  private static final class TimestampCollector extends SimpleCollector {
    private final List<Long> out = new ArrayList<>();
    private NumericDocValues timestamps;

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      timestamps = context.reader().getNumericDocValues(AccessLogDocuments.TIMESTAMP);
    }

    @Override
    public void collect(int doc) throws IOException {
      if (timestamps != null && timestamps.advanceExact(doc)) {
        out.add(timestamps.longValue());
      }
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
