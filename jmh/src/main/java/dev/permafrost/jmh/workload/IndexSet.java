/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import dev.permafrost.store.PrefetchBatch;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.IOUtils;

/**
 * Open readers over a list of directories (one per daily index), with a searcher each, searched concurrently on
 * a pool of {@code threads} as a {@code Catalog} searches mounted indices (one thread gives a deterministic order of
 * reads, for tracing). Searchers have no query cache, so that every run does the same work. Closing closes the
 * readers and the directories.
 */
public final class IndexSet implements Indices {
  /** The threads of a catalog's multi-index search by default on this machine. */
  public static final int DEFAULT_THREADS = Math.max(8, 2 * Runtime.getRuntime().availableProcessors());

  private final List<Directory> directories;
  private final List<DirectoryReader> readers;
  private final List<IndexSearcher> searchers;
  private final ExecutorService executor;

  private IndexSet(List<Directory> directories, List<DirectoryReader> readers, int threads) {
    this(directories, readers, readers.stream().map(IndexSet::searcher).toList(), threads);
  }

  private IndexSet(List<Directory> directories, List<DirectoryReader> readers, List<IndexSearcher> searchers,
      int threads) {
    this.directories = directories;
    this.readers = readers;
    this.searchers = searchers;
    this.executor = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "index-set-search");
      t.setDaemon(true);
      return t;
    });
  }

  private static IndexSearcher searcher(DirectoryReader reader) {
    // The benchmarks measure reads, not Lucene's query cache: off here and for the catalog's searchers.
    IndexSearcher.setDefaultQueryCache(null);
    return new IndexSearcher(reader);
  }

  /** Opens a reader on each directory, searched on {@link #DEFAULT_THREADS} threads. */
  public static IndexSet open(List<? extends Directory> directories) throws IOException {
    return open(directories, DEFAULT_THREADS);
  }

  /** Opens a reader on each directory; takes ownership of the directories, closing them if anything fails. */
  public static IndexSet open(List<? extends Directory> directories, int threads) throws IOException {
    List<DirectoryReader> readers = new ArrayList<>(directories.size());
    boolean success = false;
    try {
      for (Directory dir : directories) {
        readers.add(DirectoryReader.open(dir));
      }
      success = true;
      return new IndexSet(List.copyOf(directories), readers, threads);
    } finally {
      if (!success) {
        IOUtils.closeWhileHandlingException(readers);
        IOUtils.closeWhileHandlingException(directories);
      }
    }
  }

  /**
   * One index, searched through {@code searcher} on one thread; closing the set leaves the searcher's reader open
   * (a snapshot's warm search runs a workload this way).
   */
  public static IndexSet of(IndexSearcher searcher) {
    return new IndexSet(List.of(), List.of(), List.of(searcher), 1);
  }

  public List<IndexSearcher> searchers() {
    return searchers;
  }

  public List<DirectoryReader> readers() {
    return readers;
  }

  @Override
  public <C extends Collector, T> T collect(Query query, CollectorManager<C, T> manager) throws IOException {
    CollectorManager<C, Collection<C>> keep = new CollectorManager<>() {
      @Override
      public C newCollector() throws IOException {
        synchronized (manager) {
          return manager.newCollector();
        }
      }

      @Override
      public Collection<C> reduce(Collection<C> collectors) {
        return List.copyOf(collectors);
      }
    };
    List<C> all = new ArrayList<>();
    for (Collection<C> some : onEach(searcher -> searcher.search(query, keep))) {
      all.addAll(some);
    }
    return manager.reduce(all);
  }

  @Override
  public Hits top(Query query, Sort sort, int size, String field) throws IOException {
    // A hit-count threshold of 0 lets the collector skip non-competitive documents; the count comes apart.
    List<TopFieldDocs> perIndex = onEach(searcher -> searcher.search(query, new TopFieldCollectorManager(sort, size, null, 0)));
    List<Integer> counts = onEach(searcher -> searcher.count(query));
    long total = counts.stream().mapToLong(Integer::longValue).sum();
    for (int i = 0; i < perIndex.size(); i++) {
      for (ScoreDoc doc : perIndex.get(i).scoreDocs) {
        doc.shardIndex = i;
      }
    }
    TopDocs merged = TopDocs.merge(sort, size, perIndex.toArray(TopFieldDocs[]::new));
    String[] values = new String[merged.scoreDocs.length];
    List<Callable<Void>> fetches = new ArrayList<>();
    for (int s = 0; s < searchers.size(); s++) {
      int shard = s;
      fetches.add(() -> {
        StoredFields stored = searchers.get(shard).storedFields();
        try (PrefetchBatch batch = PrefetchBatch.open()) { // hits' blocks close together in one request
          for (ScoreDoc doc : merged.scoreDocs) {
            if (doc.shardIndex == shard) {
              stored.prefetch(doc.doc);
            }
          }
        }
        for (int i = 0; i < merged.scoreDocs.length; i++) {
          if (merged.scoreDocs[i].shardIndex == shard) {
            values[i] = stored.document(merged.scoreDocs[i].doc).get(field);
          }
        }
        return null;
      });
    }
    all(fetches);
    return new Hits(total, List.of(values));
  }

  private interface PerSearcher<R> {
    R apply(IndexSearcher searcher) throws IOException;
  }

  private <R> List<R> onEach(PerSearcher<R> task) throws IOException {
    List<Callable<R>> tasks = new ArrayList<>();
    for (IndexSearcher searcher : searchers) {
      tasks.add(() -> task.apply(searcher));
    }
    return all(tasks);
  }

  private <R> List<R> all(List<Callable<R>> tasks) throws IOException {
    List<Future<R>> futures = new ArrayList<>();
    for (Callable<R> t : tasks) {
      futures.add(executor.submit(t));
    }
    List<R> results = new ArrayList<>();
    try {
      for (Future<R> f : futures) {
        results.add(f.get());
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException();
    }
    return results;
  }

  @Override
  public void close() throws IOException {
    executor.shutdownNow();
    List<Closeable> all = new ArrayList<>(readers);
    all.addAll(directories);
    IOUtils.close(all);
  }
}
