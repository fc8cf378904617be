/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.snapshot.PointRange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.util.NumericUtils;

/**
 * Runs a {@link SearchRequest}: skips what cannot match, searches the rest concurrently on a bounded pool, each
 * under a lease, merges with {@code TopDocs.merge}, and fetches the winners' stored fields. A top-N sorted on a point
 * field is searched in waves, indices in the order of their recorded ranges, stopping before those that cannot beat
 * the N-th hit found so far.
 */
final class MultiIndexSearch implements AutoCloseable {
  private final Catalog catalog;
  private final ExecutorService executor;
  private final int threads;

  /**
   * How many indices a top-N sorted on a point field opens at a time, best range first: few, as the first ones
   * usually hold the N best hits and every later one is then skipped unopened.
   */
  static final int ORDERED_WAVE = 2;

  /** How long each index's acquire may wait for room: the catalog's acquire time-out. */
  private final long leaseTimeoutNanos;

  MultiIndexSearch(Catalog catalog, int threads, long leaseTimeoutNanos) {
    this.catalog = catalog;
    this.leaseTimeoutNanos = leaseTimeoutNanos;
    this.threads = threads;
    AtomicInteger count = new AtomicInteger();
    this.executor = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "permafrost-search-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** The request's indices that can match its query; those that cannot go to {@code skipped}. */
  private List<MountedIndex> candidates(SearchRequest request, List<String> skipped) {
    List<MountedIndex> targets = catalog.resolve(request.indices.toArray(String[]::new));
    Map<String, PointRangeQuery> required = CanMatch.requiredRanges(request.query);
    List<MountedIndex> candidates = new ArrayList<>();
    for (MountedIndex index : targets) {
      if (CanMatch.canMatch(index.pointRanges, required)) {
        candidates.add(index);
      } else {
        skipped.add(index.name);
      }
    }
    return candidates;
  }

  /**
   * Runs the request's query on every index that can match it, each with collectors from {@code manager}, and
   * reduces all their collectors at once. Its size, sort and fields do not apply.
   */
  <C extends Collector, T> CollectedResponse<T> collect(SearchRequest request, CollectorManager<C, T> manager)
      throws IOException {
    long start = System.nanoTime();
    catalog.searches.increment();
    List<String> skipped = new ArrayList<>();
    List<MountedIndex> candidates = candidates(request, skipped);
    // each index's search gives back its collectors, to be reduced with all the others'
    CollectorManager<C, List<C>> perIndex = new CollectorManager<>() {
      @Override
      public C newCollector() throws IOException {
        synchronized (manager) { // indices are searched concurrently; a manager need not expect that
          return manager.newCollector();
        }
      }

      @Override
      public List<C> reduce(java.util.Collection<C> collectors) {
        return List.copyOf(collectors);
      }
    };
    List<Future<List<C>>> futures = new ArrayList<>();
    for (MountedIndex index : candidates) {
      futures.add(executor.submit(() -> {
        try (Lease lease = index.acquire(System.nanoTime() + leaseTimeoutNanos)) {
          return lease.searcher().search(request.query, perIndex);
        }
      }));
    }
    List<C> collectors = new ArrayList<>();
    List<String> searched = new ArrayList<>();
    Map<String, String> failed = new LinkedHashMap<>();
    for (int i = 0; i < candidates.size(); i++) {
      try {
        collectors.addAll(futures.get(i).get());
        searched.add(candidates.get(i).name);
      } catch (ExecutionException e) {
        failed(request, candidates.get(i), e.getCause(), futures, failed);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while searching " + request);
      }
    }
    catalog.indicesSearched.add(searched.size());
    catalog.indicesSkipped.add(skipped.size());
    T result = manager.reduce(collectors);
    return new CollectedResponse<>(result, List.copyOf(searched), List.copyOf(skipped), Map.copyOf(failed),
        (System.nanoTime() - start) / 1_000_000);
  }

  /** Counts a failed index; rethrows unless partial results are allowed, else records it in {@code failed}. */
  private void failed(SearchRequest request, MountedIndex index, Throwable cause, List<? extends Future<?>> futures,
      Map<String, String> failed) throws IOException {
    catalog.indicesFailed.increment();
    if (!request.allowPartialResults) {
      for (Future<?> f : futures) {
        f.cancel(true);
      }
      throw new IOException("searching index '" + index.name + "' failed: " + cause.getMessage(), cause);
    }
    failed.put(index.name, String.valueOf(cause.getMessage()));
  }


  SearchResponse search(SearchRequest request) throws IOException {
    long start = System.nanoTime();
    catalog.searches.increment();
    List<String> skipped = new ArrayList<>();
    List<MountedIndex> candidates = candidates(request, skipped);
    // exact totals count every candidate, so there is nothing to gain by stopping early
    Ordering ordering = request.exactTotalHits ? null : Ordering.of(request.sort, candidates);
    if (ordering != null) {
      candidates.sort(ordering.bestFirst);
    }

    List<MountedIndex> searched = new ArrayList<>();
    List<TopDocs> results = new ArrayList<>();
    Map<String, String> failed = new LinkedHashMap<>();
    int wave = ordering == null ? candidates.size() : Math.min(threads, ORDERED_WAVE);
    for (int next = 0; next < candidates.size(); ) {
      if (ordering != null && !results.isEmpty()) {
        TopDocs sofar = merge(request, results);
        if (sofar.scoreDocs.length >= request.size) {
          Object bottom = ((FieldDoc) sofar.scoreDocs[sofar.scoreDocs.length - 1]).fields[0];
          while (next < candidates.size() && !ordering.canCompete(candidates.get(next), bottom)) {
            skipped.add(candidates.get(next++).name); // in order: none after it can compete either
          }
          if (next == candidates.size()) {
            break;
          }
        }
      }
      List<MountedIndex> batch = candidates.subList(next, Math.min(candidates.size(), next + wave));
      next += batch.size();
      List<Future<TopDocs>> futures = new ArrayList<>();
      for (MountedIndex index : batch) {
        futures.add(executor.submit(() -> searchOne(index, request)));
      }
      for (int i = 0; i < batch.size(); i++) {
        MountedIndex index = batch.get(i);
        try {
          TopDocs docs = futures.get(i).get();
          int shard = searched.size();
          for (ScoreDoc sd : docs.scoreDocs) {
            sd.shardIndex = shard;
          }
          searched.add(index);
          results.add(docs);
        } catch (ExecutionException e) {
          failed(request, index, e.getCause(), futures, failed);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while searching " + request);
        }
      }
    }
    catalog.indicesSearched.add(searched.size());
    catalog.indicesSkipped.add(skipped.size());

    TopDocs merged = results.isEmpty() ? new TopDocs(new TotalHits(0, TotalHits.Relation.EQUAL_TO), new ScoreDoc[0])
        : merge(request, results);
    List<SearchResponse.Hit> hits = fetch(request, merged, searched);
    List<String> searchedNames = searched.stream().map(i -> i.name).toList();
    return new SearchResponse(merged.totalHits, hits, searchedNames, List.copyOf(skipped), Map.copyOf(failed),
        (System.nanoTime() - start) / 1_000_000);
  }

  private TopDocs searchOne(MountedIndex index, SearchRequest request) throws IOException {
    try (Lease lease = index.acquire(System.nanoTime() + leaseTimeoutNanos)) {
      IndexSearcher searcher = lease.searcher();
      TopDocs top = request.sort == null ? searcher.search(request.query, request.size)
          : searcher.search(request.query, request.size, request.sort, false);
      if (request.exactTotalHits && top.totalHits.relation() != TotalHits.Relation.EQUAL_TO) {
        TotalHits exact = new TotalHits(searcher.count(request.query), TotalHits.Relation.EQUAL_TO);
        top = top instanceof TopFieldDocs fields ? new TopFieldDocs(exact, fields.scoreDocs, fields.fields)
            : new TopDocs(exact, top.scoreDocs);
      }
      return top;
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException(e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static TopDocs merge(SearchRequest request, List<TopDocs> results) {
    if (request.sort == null) {
      return TopDocs.merge(request.size, results.toArray(TopDocs[]::new));
    }
    return TopDocs.merge(request.sort, request.size, results.stream().map(t -> (TopFieldDocs) t).toArray(TopFieldDocs[]::new));
  }

  /**
   * The hits with their index names, and their stored fields if asked for: one lease per index with winners, those
   * indices read concurrently, and within each every winner's block prefetched before any is read, so that the
   * fetch costs one round trip rather than one per hit.
   */
  private List<SearchResponse.Hit> fetch(SearchRequest request, TopDocs merged, List<MountedIndex> searched)
      throws IOException {
    org.apache.lucene.document.Document[] documents = new org.apache.lucene.document.Document[merged.scoreDocs.length];
    if (!request.fields.isEmpty()) {
      Set<String> fields = new HashSet<>(request.fields);
      Map<Integer, List<Integer>> byShard = new LinkedHashMap<>();
      for (int i = 0; i < merged.scoreDocs.length; i++) {
        byShard.computeIfAbsent(merged.scoreDocs[i].shardIndex, k -> new ArrayList<>()).add(i);
      }
      List<Future<?>> futures = new ArrayList<>();
      List<MountedIndex> fetched = new ArrayList<>();
      for (Map.Entry<Integer, List<Integer>> e : byShard.entrySet()) {
        MountedIndex index = searched.get(e.getKey());
        fetched.add(index);
        futures.add(executor.submit(() -> {
          try (Lease lease = index.acquire(System.nanoTime() + leaseTimeoutNanos)) {
            StoredFields stored = lease.reader().storedFields();
            for (int i : e.getValue()) {
              stored.prefetch(merged.scoreDocs[i].doc);
            }
            for (int i : e.getValue()) { // each task writes its own slots of the array
              documents[i] = stored.document(merged.scoreDocs[i].doc, fields);
            }
          } catch (java.util.concurrent.TimeoutException ex) {
            throw new IOException("fetching the hits of index '" + index.name + "': " + ex.getMessage(), ex);
          }
          return null;
        }));
      }
      for (int i = 0; i < futures.size(); i++) {
        try {
          futures.get(i).get();
        } catch (ExecutionException e) {
          for (Future<?> f : futures) {
            f.cancel(true);
          }
          Throwable cause = e.getCause();
          throw cause instanceof IOException io ? io
              : new IOException("fetching the hits of index '" + fetched.get(i).name + "' failed: " + cause, cause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while fetching the hits of " + request);
        }
      }
    }
    List<SearchResponse.Hit> hits = new ArrayList<>(merged.scoreDocs.length);
    for (int i = 0; i < merged.scoreDocs.length; i++) {
      ScoreDoc sd = merged.scoreDocs[i];
      Object[] sortValues = sd instanceof FieldDoc fd ? fd.fields : null;
      hits.add(new SearchResponse.Hit(searched.get(sd.shardIndex).name, sd.doc, sd.score, sortValues, documents[i]));
    }
    return hits;
  }

  /**
   * How to visit indices for a sort whose first field is a long or int point field they recorded the range of:
   * best range first, and which cannot beat a given N-th value. Null when the sort is not of that kind.
   */
  private record Ordering(Comparator<MountedIndex> bestFirst, String field, boolean descending, SortField.Type type,
      long missing) {

    static Ordering of(Sort sort, List<MountedIndex> indices) {
      if (sort == null || sort.getSort().length == 0) {
        return null;
      }
      SortField first = sort.getSort()[0];
      SortField.Type type = first.getType();
      if ((type != SortField.Type.LONG && type != SortField.Type.INT) || first.getField() == null) {
        return null;
      }
      int bytes = type == SortField.Type.LONG ? Long.BYTES : Integer.BYTES;
      String field = first.getField();
      if (indices.stream().noneMatch(i -> range(i, field, bytes) != null)) {
        return null;
      }
      boolean descending = first.getReverse();
      long missing = first.getMissingValue() instanceof Number n ? n.longValue() : 0;
      Comparator<MountedIndex> byEdge = Comparator.comparingLong(i -> edge(i, field, bytes, descending, type));
      return new Ordering(descending ? byEdge.reversed() : byEdge, field, descending, type, missing);
    }

    private static PointRange range(MountedIndex index, String field, int bytes) {
      PointRange r = index.pointRanges.get(field);
      return r != null && r.numDimensions() == 1 && r.bytesPerDimension() == bytes ? r : null;
    }

    /** The best value an index can give: its max for a descending sort, its min for an ascending one; unknown is the best. */
    private static long edge(MountedIndex index, String field, int bytes, boolean descending, SortField.Type type) {
      PointRange r = range(index, field, bytes);
      if (r == null) {
        return descending ? Long.MAX_VALUE : Long.MIN_VALUE;
      }
      byte[] packed = descending ? r.maxPackedValue() : r.minPackedValue();
      return type == SortField.Type.LONG ? NumericUtils.sortableBytesToLong(packed, 0) : NumericUtils.sortableBytesToInt(packed, 0);
    }

    /** Whether {@code index} may hold a hit better than {@code bottom}, the N-th value found so far. */
    boolean canCompete(MountedIndex index, Object bottom) {
      if (!(bottom instanceof Number n)) {
        return true;
      }
      int bytes = type == SortField.Type.LONG ? Long.BYTES : Integer.BYTES;
      if (range(index, field, bytes) == null) {
        return true;
      }
      long best = edge(index, field, bytes, descending, type);
      // documents without the field sort as the missing value: they may compete too
      best = descending ? Math.max(best, missing) : Math.min(best, missing);
      return descending ? best >= n.longValue() : best <= n.longValue();
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
