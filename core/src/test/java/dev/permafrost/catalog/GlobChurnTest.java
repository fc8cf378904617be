/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Glob searches while other threads mount and unmount indices the glob matches: no search fails; an index unmounted
 * after the glob selected it is dropped (skipped, with the reason), and every answer is exactly the brute-force
 * answer over the indices it says it searched. A search that names an unmounted index outright still fails.
 */
class GlobChurnTest {
  private static final int STABLE = 3;
  private static final int CHURNING = 4;
  private static final int SEARCHERS = 3;
  private static final int SEARCHES_EACH = 120;

  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void globSearchesUnderMountAndUnmountChurnNeverFailAndAnswerForWhatTheySearched() throws Exception {
    Random random = new Random(seed);
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    Map<String, DirectoryReader> locals = new HashMap<>();
    List<Directory> dirs = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < STABLE + CHURNING; i++) {
      String name = i < STABLE ? "logs-stable-" + i : "logs-churn-" + (i - STABLE);
      Directory local = FSDirectory.open(tmp.resolve(name));
      RandomIndexes.build(local, random, 400 + random.nextInt(400), 1);
      repo.createSnapshot(name, local);
      dirs.add(local);
      locals.put(name, DirectoryReader.open(local));
      names.add(name);
    }
    Query query = new TermQuery(new Term("body", RandomIndexes.WORDS[2]));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger unmountsSeen = new AtomicInteger();
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(32 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      for (String name : names) {
        catalog.mount(name, repo, name);
      }
      ExecutorService threads = Executors.newFixedThreadPool(SEARCHERS + 2);
      try {
        List<Future<?>> churners = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
          int first = c;
          churners.add(threads.submit(() -> {
            Random r = new Random(seed + first);
            Map<String, Boolean> mounted = new HashMap<>();
            while (!stop.get()) {
              String name = "logs-churn-" + (first + 2 * r.nextInt(CHURNING / 2)); // each churner owns its indices
              if (!mounted.getOrDefault(name, true)) {
                catalog.mount(name, repo, name);
                mounted.put(name, true);
              } else {
                catalog.unmount(name);
                mounted.put(name, false);
              }
              Thread.sleep(r.nextInt(3));
            }
            return null;
          }));
        }
        List<Future<?>> searchers = new ArrayList<>();
        for (int s = 0; s < SEARCHERS; s++) {
          int id = s;
          searchers.add(threads.submit(() -> {
            Random r = new Random(seed * 31 + id);
            for (int n = 0; n < SEARCHES_EACH; n++) {
              int size = 1 + r.nextInt(40);
              SearchResponse response = catalog.search(SearchRequest.builder(query).indices("logs-*").size(size)
                  .fields("id").exactTotalHits(true).build());
              check(response, locals, query, size);
              if (response.skipReasons().containsValue(SkipReason.UNMOUNTED)) {
                unmountsSeen.incrementAndGet();
              }
            }
            return null;
          }));
        }
        for (Future<?> f : searchers) {
          try {
            f.get(5, TimeUnit.MINUTES); // a failed search fails the test here
          } catch (ExecutionException e) {
            throw new AssertionError("seed " + seed + " (rerun with -Dtests.seed=" + seed + "): a search failed", e);
          }
        }
        stop.set(true);
        for (Future<?> f : churners) {
          f.get(1, TimeUnit.MINUTES);
        }
      } finally {
        stop.set(true);
        threads.shutdownNow();
      }
      System.out.println("seed " + seed + ": " + unmountsSeen.get() + " of " + SEARCHERS * SEARCHES_EACH
          + " searches dropped an index unmounted while they ran");

      // an index named outright that is not mounted fails the search, as before
      catalog.list("logs-churn-0*").forEach(i -> {
        try {
          catalog.unmount(i.name());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
          () -> catalog.search(SearchRequest.builder(query).indices("logs-churn-0").build()));
      assertTrue(e.getMessage().contains("logs-churn-0"), e.getMessage());
    } finally {
      for (DirectoryReader r : locals.values()) {
        r.close();
      }
      for (Directory d : dirs) {
        d.close();
      }
    }
  }

  /** The response is the brute-force answer over the indices it searched; stable indices are always among them. */
  private void check(SearchResponse response, Map<String, DirectoryReader> locals, Query query, int size) throws IOException {
    for (int i = 0; i < STABLE; i++) {
      assertTrue(response.searched().contains("logs-stable-" + i), "seed " + seed + ": " + response);
    }
    assertTrue(response.failed().isEmpty(), "seed " + seed + ": " + response.failed());
    for (String skipped : response.skipped()) {
      assertEquals(SkipReason.UNMOUNTED, response.skipReasons().get(skipped), "seed " + seed + ": " + response);
    }
    TopDocs[] each = new TopDocs[response.searched().size()];
    long total = 0;
    for (int shard = 0; shard < each.length; shard++) {
      IndexSearcher searcher = new IndexSearcher(locals.get(response.searched().get(shard)));
      each[shard] = searcher.search(query, size);
      for (ScoreDoc sd : each[shard].scoreDocs) {
        sd.shardIndex = shard;
      }
      total += searcher.count(query);
    }
    TopDocs want = TopDocs.merge(size, each);
    assertEquals(total, response.totalHits().value(), "seed " + seed + ": total over " + response.searched());
    assertEquals(want.scoreDocs.length, response.hits().size(), "seed " + seed);
    for (int i = 0; i < want.scoreDocs.length; i++) {
      SearchResponse.Hit hit = response.hits().get(i);
      assertEquals(response.searched().get(want.scoreDocs[i].shardIndex), hit.index(), "seed " + seed + " hit " + i);
      assertEquals(want.scoreDocs[i].doc, hit.doc(), "seed " + seed + " hit " + i);
      assertEquals(locals.get(hit.index()).storedFields().document(hit.doc()).get("id"), hit.document().get("id"));
    }
  }
}
