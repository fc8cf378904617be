/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.Durations;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.store.ColumnPrefetch;
import dev.permafrost.store.PrefetchBatch;
import dev.permafrost.store.ReadCost;
import dev.permafrost.store.ReadDeadline;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.NumericUtils;

/**
 * Runs a {@link SearchRequest}: skips what cannot match, searches the rest concurrently on a bounded pool, each
 * under a lease, merges with {@code TopDocs.merge}, and fetches the winners' stored fields. A top-N sorted on a point
 * field is searched in waves, indices in the order of their recorded ranges, stopping before those that cannot beat
 * the N-th hit found so far; with an exact total those are counted instead, all at once.
 *
 * <p>A search with a timeout has one deadline for all of it: each index's task sets it as the {@link ReadDeadline} of
 * its thread (so every wait for the store ends by it) and as Lucene's {@code QueryTimeout}; the caller waits for no
 * task past it, and reports what had not finished as timed out. Each index's task runs on a virtual thread of its own;
 * without a timeout, the calling thread runs one task of each group itself once it has started the others.
 */
final class MultiIndexSearch implements AutoCloseable {
  /** The mounted indices that names and globs select (the catalog's). */
  interface Targets {
    /** The mounted indices {@code patterns} select; fails naming a plain name that is not mounted. */
    List<MountedIndex> resolve(String... patterns);
  }

  private final Targets targets;
  final LongAdder searches = new LongAdder();
  final LongAdder indicesSearched = new LongAdder();
  final LongAdder indicesSkipped = new LongAdder();
  final LongAdder indicesFailed = new LongAdder();
  /** A virtual thread per index task: a cold search waits on the store, and a waiting virtual thread costs no carrier. */
  private final ExecutorService executor;
  /** How many index tasks run at once: the catalog's searchThreads, sized for the store, not for the cores. */
  private final Semaphore running;
  private final int threads;

  /**
   * How many indices a top-N sorted on a point field opens at a time, best range first: few, as the first ones
   * usually hold the N best hits and every later one is then skipped unopened.
   */
  static final int ORDERED_WAVE = 2;

  /** How long each index's acquire may wait for room: the catalog's acquire time-out. */
  private final long leaseTimeoutNanos;
  /** The timeout of a request that sets none, or null. */
  private final Duration defaultTimeout;

  MultiIndexSearch(Targets targets, int threads, long leaseTimeoutNanos, Duration defaultTimeout) {
    this.targets = targets;
    this.leaseTimeoutNanos = leaseTimeoutNanos;
    this.defaultTimeout = defaultTimeout;
    this.threads = threads;
    // Lucene's CPU work runs on the virtual threads' carriers, one per core; waits for the store hold none
    this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("permafrost-search-", 1).factory());
    this.running = new Semaphore(threads);
  }

  /**
   * Runs the request's query on every index that can match it, each with collectors from {@code manager}, and
   * reduces all their collectors at once. Its size, sort and fields do not apply.
   */
  <C extends Collector, T> CollectedResponse<T> collect(SearchRequest request, CollectorManager<C, T> manager)
      throws IOException {
    Run run = new Run(request);
    // each index's search gives back its collectors, to be reduced with all the others'
    CollectorManager<C, List<C>> perIndex = new CollectorManager<>() {
      @Override
      public C newCollector() throws IOException {
        synchronized (manager) { // indices are searched concurrently; a manager need not expect that
          return manager.newCollector();
        }
      }

      @Override
      public List<C> reduce(Collection<C> collectors) {
        return List.copyOf(collectors);
      }
    };
    List<List<C>> each = run.searchAll(index -> {
      try (Lease lease = acquire(index, run.deadline)) {
        run.profile.leased(lease);
        IndexSearcher searcher = run.deadline.limit(searcher(lease, request));
        Query query = request.query(lease.name());
        prefetchPointsIndexes(query, lease.reader());
        List<C> collected = searcher.search(query, perIndex);
        return new IndexResult<>(collected, searcher.timedOut());
      }
    }, null, null, null);
    List<C> collectors = new ArrayList<>();
    each.forEach(collectors::addAll);
    T result = manager.reduce(collectors);
    List<String> searched = run.searchedNames();
    return new CollectedResponse<>(result, searched, List.copyOf(run.skipped.keySet()), ordered(run.skipped),
        Map.copyOf(run.failed), List.copyOf(run.timedOut), run.tookMillis(), run.cost(searched));
  }

  /** One index's part of a search, run on a task of its own under a lease. */
  private interface IndexTask<T> {
    IndexResult<T> search(MountedIndex index) throws IOException;
  }

  /** The exact count of a search's query in an index it does not search for hits, run as an {@link IndexTask}. */
  private interface IndexCounter {
    IndexResult<Long> count(MountedIndex index) throws IOException;
  }

  /**
   * One search's course, whatever it collects: its deadline and profile, and what became of each index the request
   * selected (searched, skipped and why, failed, timed out).
   */
  private final class Run {
    final SearchRequest request;
    final long start = System.nanoTime();
    final Deadline deadline;
    /** The indices the request names outright (not through a glob): those may fail the search if unmounted. */
    final Set<String> named = new HashSet<>();
    /** The request's indices that can match its query, in the order they are searched. */
    final List<MountedIndex> candidates = new ArrayList<>();
    final Map<String, SkipReason> skipped = new LinkedHashMap<>();
    final SearchProfile profile;
    /** The indices searched, in the order of the results {@link #searchAll} gives. */
    final List<MountedIndex> searched = new ArrayList<>();
    final Map<String, String> failed = new LinkedHashMap<>();
    final List<String> timedOut = new ArrayList<>();
    /** The exact count of the query in each index a sorted top-N with an exact total skipped, by name. */
    final Map<String, Long> counted = new HashMap<>();

    Run(SearchRequest request) {
      this.request = request;
      this.deadline = Deadline.of(request.timeout != null ? request.timeout : defaultTimeout, start);
      searches.increment();
      Map<String, PointRangeQuery> required = CanMatch.requiredRanges(request.query);
      for (MountedIndex index : targets.resolve(request.indices.toArray(String[]::new))) {
        Map<String, PointRangeQuery> ranges = request.queryPerIndex == null ? required
            : CanMatch.requiredRanges(request.query(index.name));
        if (request.searchEveryIndex || CanMatch.canMatch(index.pointRanges, ranges)) {
          candidates.add(index);
        } else {
          skipped.put(index.name, SkipReason.CANNOT_MATCH);
        }
      }
      for (String p : request.indices) {
        if (p.indexOf('*') < 0 && p.indexOf('?') < 0) {
          named.add(p);
        }
      }
      this.profile = new SearchProfile(request.profile);
    }

    /**
     * Runs {@code task} on every candidate and gives what those searched gave, in the order of {@link #searched}.
     * Without an {@code ordering} all start at once; with one they start in waves, best range first, and before each
     * wave those that cannot beat {@code bottom} of the results so far (the N-th hit's first sort value, or null
     * while fewer than N) are skipped. With a {@code counter} (an exact total), every index after the first wave is
     * counted from the start, beside that wave (each must be counted or searched, so the count of those the early stop
     * skips adds no wave of its own): the skipped give their counts to {@link #counted}, and one searched after all has
     * its count called off. Once a wave ends with fewer than N hits, the rest start at once, as each must be read for
     * the count anyway. Fails if an index failed or timed out and the request allows no partial results.
     */
    <T> List<T> searchAll(IndexTask<T> task, Ordering ordering, Function<List<T>, Object> bottom,
        IndexCounter counter) throws IOException {
      assert counter == null || ordering != null : "only a sorted top-N skips indices to count";
      if (ordering != null) {
        candidates.sort(ordering.bestFirst);
      }
      List<T> results = new ArrayList<>();
      List<Future<?>> started = new ArrayList<>();
      int wave = ordering == null ? candidates.size() : Math.min(threads, ORDERED_WAVE);
      // the best index, if the query matches all of it and it holds N documents, gives N hits no worse than its worst
      // value: an index that cannot beat that is left out of the first wave (counted beside it, skipped after it)
      // (not past a page's last hit: the query then matches only what sorts after it)
      Object promised = ordering == null || candidates.isEmpty() || request.searchAfter != null ? null
          : ordering.promisedBottom(candidates.getFirst(), request.query(candidates.getFirst().name), request.size);
      Map<MountedIndex, Future<IndexResult<Long>>> counting = new HashMap<>();
      for (int next = 0; next < candidates.size(); ) {
        if (deadline.passed()) {
          while (next < candidates.size()) {
            timedOut.add(candidates.get(next++).name); // never started
          }
          break;
        }
        Object worst = ordering == null || results.isEmpty() ? null : bottom.apply(results);
        if (worst != null) {
          int from = next;
          while (next < candidates.size() && !ordering.canCompete(candidates.get(next), worst)) {
            // in order: none after it can compete either
            skipped.put(candidates.get(next++).name, SkipReason.CANNOT_COMPETE);
          }
          if (counter != null && next > from) {
            awaitCounts(candidates.subList(from, next), counting);
          }
          if (next == candidates.size()) {
            break;
          }
        } else if (counter != null && next > 0) {
          wave = candidates.size() - next; // fewer than N hits so far: the rest would be read to count them anyway
        }
        int end = Math.min(candidates.size(), next + wave);
        if (next == 0 && promised != null) {
          int competing = 1;
          while (competing < end && ordering.canCompete(candidates.get(competing), promised)) {
            competing++;
          }
          end = competing;
        }
        List<MountedIndex> batch = candidates.subList(next, end);
        next += batch.size();
        List<Future<IndexResult<T>>> futures = new ArrayList<>();
        for (MountedIndex index : batch) {
          Future<IndexResult<Long>> count = counting.remove(index);
          if (count != null) {
            count.cancel(true); // its search counts it
          }
          futures.add(submitOrKeep(deadline, profile, index.name, () -> task.search(index), futures.isEmpty()));
        }
        started.addAll(futures);
        if (counter != null && next == batch.size()) { // the first wave, submitted first: it takes the places first
          for (MountedIndex index : candidates.subList(next, candidates.size())) {
            Future<IndexResult<Long>> count = submit(deadline, profile, index.name, () -> counter.count(index));
            counting.put(index, count);
            started.add(count);
          }
        }
        runKept(futures);
        for (int i = 0; i < batch.size(); i++) {
          MountedIndex index = batch.get(i);
          IndexResult<T> r = awaitIndex(index, futures.get(i), futures, "searching");
          if (r != null) {
            if (r.partial()) {
              timedOut.add(index.name); // Lucene's loop stopped it at the deadline: its hits so far count
            }
            searched.add(index);
            results.add(r.value());
          }
        }
      }
      for (Future<IndexResult<Long>> count : counting.values()) {
        count.cancel(true); // of an index never reached (the deadline passed)
      }
      checkTimedOut(request, deadline, timedOut, started);
      indicesSearched.add(searched.size());
      indicesSkipped.add(skipped.size());
      return results;
    }

    /**
     * Waits for the counts of {@code indices} (skipped by a sorted top-N with an exact total, counted since the search
     * began) and puts them in {@link #counted}; an index unmounted meanwhile is dropped, one that fails or times out is
     * reported so.
     */
    private void awaitCounts(List<MountedIndex> indices, Map<MountedIndex, Future<IndexResult<Long>>> counting)
        throws IOException {
      List<Future<IndexResult<Long>>> futures = new ArrayList<>();
      for (MountedIndex index : indices) {
        Future<IndexResult<Long>> count = counting.remove(index);
        assert count != null : "only an index after the first wave is skipped, counted since that wave: " + index.name;
        futures.add(count);
      }
      for (int i = 0; i < indices.size(); i++) {
        MountedIndex index = indices.get(i);
        IndexResult<Long> r = awaitIndex(index, futures.get(i), futures, "counting");
        if (r != null && r.partial()) {
          timedOut.add(index.name); // a count cut short is no count
        } else if (r != null) {
          counted.put(index.name, r.value());
        }
      }
    }

    /**
     * Waits for {@code index}'s part of the search, {@code future} (one of {@code group}); null if it gave nothing,
     * recorded as the reason says: the deadline passed first (one still running gives nothing: what it holds is still
     * being written), it was unmounted (a glob selected it), or it failed and partial results are allowed. A failure
     * otherwise calls off {@code group} and fails the search.
     */
    private <R> IndexResult<R> awaitIndex(MountedIndex index, Future<IndexResult<R>> future,
        List<? extends Future<?>> group, String doing) throws IOException {
      try {
        IndexResult<R> r = deadline.await(future);
        if (r == null) {
          timedOut.add(index.name);
        }
        return r;
      } catch (ExecutionException e) {
        if (vanished(e.getCause(), index, named)) {
          skipped.put(index.name, SkipReason.UNMOUNTED);
        } else if (deadline.explains(e.getCause())) {
          timedOut.add(index.name);
        } else {
          failed(request, index, e.getCause(), group, failed);
        }
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while " + doing + " " + request);
      }
    }

    List<String> searchedNames() {
      return searched.stream().map(i -> i.name).toList();
    }

    long tookMillis() {
      return (System.nanoTime() - start) / 1_000_000;
    }

    SearchCost cost(List<String> searchedNames) {
      return profile.cost(searchedNames, skipped, failed, timedOut);
    }
  }

  /** Whether {@code failure} says that {@code index}, which a glob selected, was unmounted: it is dropped, not failed. */
  private static boolean vanished(Throwable failure, MountedIndex index, Set<String> named) {
    if (named.contains(index.name)) {
      return false;
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof IndexUnmountedException) {
        return true;
      }
    }
    return false;
  }

  private static <V> Map<String, V> ordered(Map<String, V> map) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }

  /**
   * Starts {@code task} on a virtual thread of its own once one of the {@code searchThreads} places is free, with the
   * search's deadline on its reads, which count for {@code index} in {@code profile}; waiting for a place counts
   * against the deadline. Its requests are a wave deeper than what the search has read when it is submitted: tasks
   * submitted together start from the same depth whatever runs first, and a task submitted once others are done (a
   * sorted search's next indices, the winners' fields) follows what they read.
   */
  private <T> Future<T> submit(Deadline deadline, SearchProfile profile, String index, Callable<T> task) {
    return executor.submit(placed(deadline, profile, index, task));
  }

  /**
   * {@code task} as {@link #submit} would run it, but left for the calling thread to run ({@link #runKept})
   * once it has submitted the others: a search's caller would otherwise wait idle while one more virtual thread is
   * started and scheduled. Only for a search without a deadline: with one, the caller must be free to return at it
   * whatever a task is doing, so every task runs on a thread of its own ({@link #submit}).
   */
  private <T> Future<T> submitOrKeep(Deadline deadline, SearchProfile profile, String index, Callable<T> task,
      boolean keep) {
    return keep && deadline.none() ? new CallerTask<>(placed(deadline, profile, index, task))
        : submit(deadline, profile, index, task);
  }

  /** A task the calling thread runs itself, after it has submitted the others of its group (see {@link #submitOrKeep}). */
  private static final class CallerTask<T> extends FutureTask<T> {
    CallerTask(Callable<T> task) {
      super(task);
    }
  }

  /**
   * Runs the tasks of {@code group} kept for the calling thread. An interrupted caller hands them to threads of their
   * own instead, as any other task: its wait for them then ends the search as interrupted, where running one here
   * would fail it as the index's failure.
   */
  private void runKept(List<? extends Future<?>> group) {
    for (Future<?> f : group) {
      if (f instanceof CallerTask<?> kept) {
        if (Thread.currentThread().isInterrupted()) {
          executor.execute(kept);
        } else {
          kept.run();
        }
      }
    }
  }

  private <T> Callable<T> placed(Deadline deadline, SearchProfile profile, String index, Callable<T> task) {
    ReadCost cost = profile.of(index);
    int readDepth = profile.readDepth();
    Callable<T> limited = deadline.around(task);
    return () -> {
      if (deadline.none()) {
        running.acquire();
      } else if (!running.tryAcquire(Math.max(0, deadline.nanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        throw new DeadlinePassed("waiting for one of the " + threads + " search places passed " + deadline.what, null);
      }
      try (ReadCost.Scope counted = ReadCost.attach(cost, readDepth)) {
        return limited.call();
      } finally {
        cost.settle(); // this index's part is done: its inputs' last windows are counted while still warm here
        running.release();
      }
    };
  }

  /** An index's result, and whether Lucene's own loop stopped it at the deadline (what it holds is partial). */
  private record IndexResult<T>(T value, boolean partial) {}

  /** Fails the search if indices timed out and partial results are not allowed. */
  private static void checkTimedOut(SearchRequest request, Deadline deadline, List<String> timedOut,
      List<? extends Future<?>> futures) throws SearchTimeoutException {
    if (timedOut.isEmpty() || request.allowPartialResults) {
      return;
    }
    for (Future<?> f : futures) {
      f.cancel(false);
    }
    throw new SearchTimeoutException("the search passed " + deadline.what + " with " + timedOut.size() + " "
        + (timedOut.size() == 1 ? "index" : "indices") + " still running: " + timedOut + " (" + request + "; allow"
        + " partial results to get the hits found by then)", timedOut);
  }

  /** A lease on {@code index}, waiting for room at most the catalog's acquire time-out, and never past the deadline. */
  private Lease acquire(MountedIndex index, Deadline deadline) throws IOException {
    long acquireBy = System.nanoTime() + leaseTimeoutNanos;
    try {
      return index.acquire(deadline.none() || acquireBy - deadline.nanos < 0 ? acquireBy : deadline.nanos);
    } catch (TimeoutException e) {
      if (deadline.passed()) {
        throw new DeadlinePassed("waiting to open index '" + index.name + "' passed " + deadline.what, e);
      }
      throw new IOException(e.getMessage(), e);
    }
  }

  /** An index's task stopped at the search's deadline. */
  private static final class DeadlinePassed extends IOException {
    private static final long serialVersionUID = 1L;

    DeadlinePassed(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * When a search must end (System.nanoTime()), and how to name it in messages: {@link #NONE} for a search without
   * a timeout.
   */
  private record Deadline(long nanos, String what) {
    static final Deadline NONE = new Deadline(Long.MAX_VALUE, "no timeout");

    static Deadline of(Duration timeout, long start) {
      if (timeout == null) {
        return NONE;
      }
      long t = timeout.toNanos();
      return new Deadline(t >= Long.MAX_VALUE - start ? Long.MAX_VALUE : start + t, "its timeout of " + Durations.formatSetting(timeout));
    }

    boolean none() {
      return nanos == Long.MAX_VALUE;
    }

    boolean passed() {
      return !none() && System.nanoTime() - nanos >= 0;
    }

    /** {@code task}, run with this deadline on its thread's reads from the store. */
    <T> Callable<T> around(Callable<T> task) {
      if (none()) {
        return task;
      }
      return () -> {
        try (ReadDeadline.Scope s = ReadDeadline.at(nanos, "the search's timeout (" + what + ")")) {
          return task.call();
        }
      };
    }

    /** Sets this deadline as {@code searcher}'s Lucene timeout (a lease's searcher is its own). */
    IndexSearcher limit(IndexSearcher searcher) {
      if (!none()) {
        searcher.setTimeout(() -> System.nanoTime() - nanos >= 0);
      }
      return searcher;
    }

    /** The task's value, or null if the deadline came first (the task goes on, and its value is never used). */
    <T> T await(Future<T> future) throws ExecutionException, InterruptedException {
      if (none()) {
        return future.get();
      }
      try {
        return future.get(Math.max(0, nanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return null;
      }
    }

    /** Whether {@code failure} is a wait that gave up at this deadline (rather than the index failing). */
    boolean explains(Throwable failure) {
      if (!passed()) {
        return false;
      }
      for (Throwable t = failure; t != null; t = t.getCause()) {
        if (t instanceof BlobStoreTimeoutException || t instanceof DeadlinePassed || t instanceof TimeoutException) {
          return true;
        }
      }
      return false;
    }
  }

  /** Counts a failed index; rethrows unless partial results are allowed, else records it in {@code failed}. */
  private void failed(SearchRequest request, MountedIndex index, Throwable cause, List<? extends Future<?>> futures,
      Map<String, String> failed) throws IOException {
    indicesFailed.increment();
    if (!request.allowPartialResults) {
      for (Future<?> f : futures) {
        f.cancel(true);
      }
      throw new IOException("searching index '" + index.name + "' failed: " + cause.getMessage(), cause);
    }
    failed.put(index.name, String.valueOf(cause.getMessage()));
  }

  /**
   * Runs the request: the top hits of its query over every index that can match it, merged, with their stored
   * fields if asked for. A top-N sorted on a point field goes in waves, best range first (see the class comment).
   */
  SearchResponse search(SearchRequest request) throws IOException {
    Run run = new Run(request);
    // an exact total counts the indices whose hits cannot compete rather than searching them: a count reads less (often
    // nothing: Lucene counts a term or a range that holds a whole index from its statistics)
    Ordering ordering = Ordering.of(request.sort, run.candidates);
    List<TopDocs> results = run.searchAll(index -> searchOne(index, run), ordering, sofar -> {
      TopDocs merged = merge(request, sofar);
      return merged.scoreDocs.length < request.size ? null
          : ((FieldDoc) merged.scoreDocs[merged.scoreDocs.length - 1]).fields[0];
    }, request.exactTotalHits && ordering != null ? index -> countOne(index, run) : null);
    TopDocs merged;
    List<SearchResponse.Hit> hits;
    for (;;) {
      merged = results.isEmpty() ? new TopDocs(new TotalHits(0, TotalHits.Relation.EQUAL_TO), new ScoreDoc[0])
          : merge(request, results);
      Set<String> gone = new HashSet<>();
      hits = fetch(run, merged, gone);
      if (gone.isEmpty()) {
        break;
      }
      // indices a glob selected were unmounted before their hits' fields were read: drop them, and merge the rest again
      // (each index gave its own top N, so the others' hits are enough)
      for (int i = run.searched.size() - 1; i >= 0; i--) {
        if (gone.contains(run.searched.get(i).name)) {
          run.skipped.put(run.searched.get(i).name, SkipReason.UNMOUNTED);
          run.searched.remove(i);
          results.remove(i);
        }
      }
    }
    TotalHits total = total(run, merged.totalHits);
    List<String> searched = run.searchedNames();
    return new SearchResponse(total, hits, searched, List.copyOf(run.skipped.keySet()), ordered(run.skipped),
        Map.copyOf(run.failed), List.copyOf(run.timedOut), run.tookMillis(), run.cost(searched));
  }

  /**
   * The search's total: exact only if every index that may hold matches was counted exactly. The merged count is
   * exact when each index's was; an index that failed or timed out makes it a lower bound, and so does one the
   * sorted early stop skipped, unless it was counted (a request for an exact total counts each, see
   * {@link #countOne}) or its reader is open and Lucene counts the query from its index statistics (Weight#count: a
   * term, a match-all, no deletions), which costs no request. Indices skipped because their ranges cannot match hold
   * no match and keep it exact.
   */
  private static TotalHits total(Run run, TotalHits merged) throws IOException {
    boolean exact = merged.relation() == TotalHits.Relation.EQUAL_TO && run.failed.isEmpty() && run.timedOut.isEmpty();
    long value = merged.value();
    for (MountedIndex index : run.candidates) {
      if (!exact) {
        break;
      }
      if (run.skipped.get(index.name) != SkipReason.CANNOT_COMPETE) {
        continue;
      }
      Long counted = run.counted.get(index.name);
      long count = counted != null ? counted : cheapCount(index, run.request);
      if (count < 0) {
        exact = false;
      } else {
        value += count;
      }
    }
    return new TotalHits(value, exact ? TotalHits.Relation.EQUAL_TO : TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO);
  }

  /** The query's count in {@code index} if its reader is open and every segment counts it cheaply, else -1. */
  private static long cheapCount(MountedIndex index, SearchRequest request) throws IOException {
    try (Lease lease = index.acquireIfOpen()) {
      if (lease == null) {
        return -1; // opening it would cost the round trips the early stop saved
      }
      IndexSearcher searcher = lease.searcher();
      Weight weight = searcher.createWeight(searcher.rewrite(request.query(index.name)),
          ScoreMode.COMPLETE_NO_SCORES, 1);
      long total = 0;
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        int n = weight.count(leaf);
        if (n < 0) {
          return -1;
        }
        total += n;
      }
      return total;
    }
  }

  /**
   * The query's exact count in {@code index}, which a sorted top-N with an exact total skipped: Lucene's count, which
   * takes it from the index statistics where it can (a term, a range holding all of a segment, a match-all, without
   * deletions) and otherwise counts the matches without reading any sort value.
   */
  private IndexResult<Long> countOne(MountedIndex index, Run run) throws IOException {
    try (Lease lease = acquire(index, run.deadline)) {
      run.profile.leased(lease);
      IndexSearcher searcher = run.deadline.limit(searcher(lease, run.request));
      Query query = run.request.query(index.name);
      prefetchPointsIndexes(query, lease.reader());
      long count = searcher.count(query);
      return new IndexResult<>(count, searcher.timedOut());
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The lease's own searcher, scoring with the request's similarity if it names one. */
  private static IndexSearcher searcher(Lease lease, SearchRequest request) {
    IndexSearcher searcher = lease.searcher();
    if (request.similarity != null) {
      searcher.setSimilarity(request.similarity);
    }
    return searcher;
  }

  private IndexResult<TopDocs> searchOne(MountedIndex index, Run run) throws IOException {
    SearchRequest request = run.request;
    try (Lease lease = acquire(index, run.deadline)) {
      run.profile.leased(lease);
      IndexSearcher searcher = run.deadline.limit(searcher(lease, request));
      // an exact total is counted from the query as asked, so its top hits may come from a narrower one
      Query asked = request.query(index.name);
      Query query = request.exactTotalHits && request.searchAfter == null
          ? RangeSortedByItself.narrow(lease.reader(), asked, request.sort, request.size) : asked;
      if (query == asked) { // a narrowed query reads its sort column for a few documents only
        prefetchSortColumns(request.sort, lease.reader());
      }
      prefetchPointsIndexes(asked, lease.reader());
      TopDocs top;
      if (request.sort == null) {
        top = searcher.search(query, request.size);
      } else if (request.searchAfter != null && lease.reader().maxDoc() > 0) {
        // after every document of this index with those values: Lucene breaks ties by document number, so the last one
        top = searcher.searchAfter(new FieldDoc(lease.reader().maxDoc() - 1, Float.NaN, request.searchAfter), query,
            request.size, request.sort, false);
      } else {
        top = searcher.search(query, request.size, request.sort, false);
      }
      if (request.exactTotalHits && (query != asked || top.totalHits.relation() != TotalHits.Relation.EQUAL_TO)
          && !searcher.timedOut()) {
        TotalHits exact = new TotalHits(searcher.count(asked), TotalHits.Relation.EQUAL_TO);
        top = top instanceof TopFieldDocs fields ? new TopFieldDocs(exact, fields.scoreDocs, fields.fields)
            : new TopDocs(exact, top.scoreDocs);
      }
      return new IndexResult<>(top, searcher.timedOut());
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /**
   * A sorted search reads its sort fields' doc values for every hit until its queue is full and much of them after:
   * their columns are fetched whole, at once, in the same round trip as the query's first reads, instead of one
   * round trip per cache region as the collector moves through them.
   */
  private static void prefetchSortColumns(Sort sort, IndexReader reader) throws IOException {
    if (sort == null) {
      return;
    }
    List<String> fields = new ArrayList<>();
    for (SortField field : sort.getSort()) {
      if (field.getField() != null && field.getType() != SortField.Type.SCORE && field.getType() != SortField.Type.DOC) {
        fields.add(field.getField());
      }
    }
    if (fields.isEmpty()) {
      return;
    }
    ColumnPrefetch.prefetch(reader, fields); // every segment in one call: each keeps its direct reads
  }

  /**
   * A range the query requires walks its field's points index when the query plans its scorer, a round trip after
   * its terms were looked up: fetched as the index's search starts, in the segments whose points it walks, it comes in
   * the first wave instead ({@link ColumnPrefetch#prefetchPointsIndex}).
   */
  private static void prefetchPointsIndexes(Query query, IndexReader reader) throws IOException {
    for (PointRangeQuery range : CanMatch.requiredRanges(query).values()) {
      ColumnPrefetch.prefetchPointsIndex(reader, range);
    }
  }

  /** The top hits over {@code results}; numbers each hit's shardIndex with its index's place in them first. */
  private static TopDocs merge(SearchRequest request, List<TopDocs> results) {
    for (int shard = 0; shard < results.size(); shard++) {
      for (ScoreDoc sd : results.get(shard).scoreDocs) {
        sd.shardIndex = shard;
      }
    }
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
  private List<SearchResponse.Hit> fetch(Run run, TopDocs merged, Set<String> gone) throws IOException {
    SearchRequest request = run.request;
    List<MountedIndex> searched = run.searched;
    Deadline deadline = run.deadline;
    SearchProfile profile = run.profile;
    Document[] documents = new Document[merged.scoreDocs.length];
    if (!request.fields.isEmpty()) {
      Set<String> fields = new HashSet<>(request.fields);
      Map<Integer, List<Integer>> byShard = new LinkedHashMap<>();
      for (int i = 0; i < merged.scoreDocs.length; i++) {
        byShard.computeIfAbsent(merged.scoreDocs[i].shardIndex, k -> new ArrayList<>()).add(i);
      }
      List<Future<Document[]>> futures = new ArrayList<>();
      List<MountedIndex> fetched = new ArrayList<>();
      List<List<Integer>> slots = new ArrayList<>();
      for (Map.Entry<Integer, List<Integer>> e : byShard.entrySet()) {
        MountedIndex index = searched.get(e.getKey());
        fetched.add(index);
        slots.add(e.getValue());
        futures.add(submitOrKeep(deadline, profile, index.name, () -> {
          // each task fills an array of its own, copied over once it is done: one that passes the deadline writes nothing seen
          Document[] mine = new Document[e.getValue().size()];
          try (Lease lease = acquire(index, deadline)) {
            profile.leased(lease);
            StoredFields stored = lease.reader().storedFields();
            try (PrefetchBatch batch = PrefetchBatch.open()) { // hits' blocks close together in one request
              for (int i : e.getValue()) {
                stored.prefetch(merged.scoreDocs[i].doc);
              }
            }
            for (int k = 0; k < mine.length; k++) {
              mine[k] = stored.document(merged.scoreDocs[e.getValue().get(k)].doc, fields);
            }
          } catch (IOException ex) {
            throw ex instanceof DeadlinePassed || ex instanceof BlobStoreTimeoutException ? ex
                : new IOException("fetching the hits of index '" + index.name + "': " + ex.getMessage(), ex);
          }
          return mine;
        }, futures.isEmpty()));
      }
      runKept(futures);
      List<String> late = new ArrayList<>();
      for (int i = 0; i < futures.size(); i++) {
        try {
          Document[] mine = deadline.await(futures.get(i));
          if (mine == null) {
            late.add(fetched.get(i).name);
            continue;
          }
          for (int k = 0; k < mine.length; k++) {
            documents[slots.get(i).get(k)] = mine[k];
          }
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (vanished(cause, fetched.get(i), run.named)) {
            gone.add(fetched.get(i).name);
            continue;
          }
          if (deadline.explains(cause)) {
            late.add(fetched.get(i).name);
            continue;
          }
          for (Future<?> f : futures) {
            f.cancel(true);
          }
          throw cause instanceof IOException io ? io
              : new IOException("fetching the hits of index '" + fetched.get(i).name + "' failed: " + cause, cause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while fetching the hits of " + request);
        }
      }
      for (String name : late) { // their hits keep no stored fields
        if (!run.timedOut.contains(name)) {
          run.timedOut.add(name);
        }
      }
      checkTimedOut(request, deadline, late, futures);
      if (!gone.isEmpty()) {
        return List.of(); // merged again without them
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
      // a sorted-numeric sort (the engines' way, any selector) sorts by one of a document's values: within its range
      SortField.Type type = first instanceof SortedNumericSortField s ? s.getNumericType() : first.getType();
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

    /**
     * The N-th value a search of {@code index} is sure to find before it is searched, or null: when every one of its
     * documents has a value of the sort field (its recorded range counts them all) and matches {@code query} (as its
     * recorded ranges show: {@link CanMatch#matchesEveryDocument}), N or more live documents give N hits no worse than
     * its worst value.
     */
    Long promisedBottom(MountedIndex index, Query query, int n) {
      int bytes = type == SortField.Type.LONG ? Long.BYTES : Integer.BYTES;
      PointRange r = range(index, field, bytes);
      if (n <= 0 || r == null || r.docCount() != index.maxDoc || index.numDocs < n
          || !CanMatch.matchesEveryDocument(query, index.pointRanges, index.maxDoc)) {
        return null;
      }
      byte[] worst = descending ? r.minPackedValue() : r.maxPackedValue();
      return type == SortField.Type.LONG ? NumericUtils.sortableBytesToLong(worst, 0)
          : (long) NumericUtils.sortableBytesToInt(worst, 0);
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
