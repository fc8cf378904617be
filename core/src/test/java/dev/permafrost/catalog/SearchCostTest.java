/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search's cost is its own: its store requests and bytes equal what the store saw for its indices' blobs, even
 * while another search over other indices runs at the same time; a warm repeat costs no request; the per-index costs
 * add up to the total; skipped, opened and searched indices are counted.
 */
class SearchCostTest {
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  /** Requests and bytes the store served, by blob (chunk tables counted with their data's blob). */
  private final Map<String, AtomicLong> requestsByBlob = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> bytesByBlob = new ConcurrentHashMap<>();
  private final Map<String, List<String>> blobsOf = new HashMap<>();
  private SnapshotRepository repo;

  @BeforeEach
  void setUp() throws IOException {
    Random random = new Random(seed);
    BlobStore fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    BlobStore counting = new FilterBlobStore(fs) {
      @Override
      public InputStream read(String name, long offset, long length) throws IOException {
        count(name, length);
        return super.read(name, offset, length);
      }

      @Override
      public InputStream read(String name) throws IOException {
        count(name, fs.length(name));
        return super.read(name);
      }

      private void count(String name, long bytes) {
        String blob = name.replaceAll("\\.crc32c-.*$", "");
        requestsByBlob.computeIfAbsent(blob, k -> new AtomicLong()).incrementAndGet();
        bytesByBlob.computeIfAbsent(blob, k -> new AtomicLong()).addAndGet(bytes);
      }
    };
    repo = SnapshotRepository.open(counting);
    for (int i = 0; i < 4; i++) {
      try (Directory local = FSDirectory.open(tmp.resolve("local-" + i))) {
        try (IndexWriter w = new IndexWriter(local,
            new IndexWriterConfig())) {
          RandomIndexes.append(w, random, i * 3000, 2000, 1); // disjoint days
        }
        // nothing kept in the manifest: searching reads the store
        SnapshotRepository.open(fs).createSnapshot("idx-" + i, local,
            SnapshotOptions.DEFAULTS.withKeepWholeLimits(0, 0).withWarmBytesPerFile(0).withPointFields("@timestamp"));
      }
      blobsOf.put("idx-" + i, repo.readManifest("idx-" + i).files().stream().map(FileEntry::blobName).toList());
    }
  }

  private long requestsFor(String... indices) {
    long n = 0;
    for (String index : indices) {
      for (String blob : blobsOf.get(index)) {
        AtomicLong c = requestsByBlob.get(blob);
        n += c == null ? 0 : c.get();
      }
    }
    return n;
  }

  private long bytesFor(String... indices) {
    long n = 0;
    for (String index : indices) {
      for (String blob : blobsOf.get(index)) {
        AtomicLong c = bytesByBlob.get(blob);
        n += c == null ? 0 : c.get();
      }
    }
    return n;
  }

  @Test
  void aSearchCountsItsOwnRequestsEvenWhileAnotherSearchRuns() throws Exception {
    Query query = new TermQuery(new Term("body", RandomIndexes.WORDS[1]));
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20)
            .regionSize(64 << 10).build(); // small regions: fills carry on into the next, on the prefetch lane
        Catalog catalog = Catalog.builder(cache).slowSearchThreshold(Duration.ZERO).build()) {
      for (String index : blobsOf.keySet()) {
        catalog.mount(index, repo, index);
      }
      requestsByBlob.clear();
      bytesByBlob.clear();
      ExecutorService two = Executors.newFixedThreadPool(2);
      try {
        Future<SearchResponse> a = two.submit(() -> catalog.search(SearchRequest.builder(query).indices("idx-0", "idx-1")
            .fields("id").profile(true).build()));
        Future<SearchResponse> b = two.submit(() -> catalog.search(SearchRequest.builder(query).indices("idx-2", "idx-3")
            .fields("id").profile(true).build()));
        SearchCost ca = a.get().cost();
        SearchCost cb = b.get().cost();
        // a request counts for a search when the search asks for it; the store sees it when it is sent, which for a
        // prefetch may be after the search returned: compare once every fetch is done
        awaitNoFetch(cache);
        assertEquals(requestsFor("idx-0", "idx-1"), ca.storeRequests(), "seed " + seed + ": " + ca);
        assertEquals(requestsFor("idx-2", "idx-3"), cb.storeRequests(), "seed " + seed + ": " + cb);
        assertEquals(bytesFor("idx-0", "idx-1"), ca.bytesFetched(), "seed " + seed + ": " + ca);
        assertEquals(bytesFor("idx-2", "idx-3"), cb.bytesFetched(), "seed " + seed + ": " + cb);
        for (SearchCost c : List.of(ca, cb)) {
          assertTrue(c.storeRequests() > 0 && c.waves() >= 2 && c.waves() <= c.storeRequests(), c.toString());
          assertEquals(2, c.readersOpened());
          assertEquals(2, c.indicesSearched());
          assertEquals(2, c.perIndex().size());
          assertEquals(c.storeRequests(), c.perIndex().values().stream().mapToLong(SearchCost.IndexCost::storeRequests).sum());
          assertEquals(c.bytesFetched(), c.perIndex().values().stream().mapToLong(SearchCost.IndexCost::bytesFetched).sum());
          assertTrue(c.perIndex().values().stream().allMatch(SearchCost.IndexCost::readerOpened));
        }
      } finally {
        two.shutdownNow();
      }

      // the same search warm: no request, bytes from the cache, no reader to open
      SearchCost warm = catalog.search(SearchRequest.builder(query).indices("idx-0", "idx-1").fields("id").build()).cost();
      assertEquals(0, warm.storeRequests(), warm.toString());
      assertEquals(0, warm.bytesFetched());
      assertEquals(0, warm.waves());
      assertEquals(0, warm.readersOpened());
      assertTrue(warm.bytesFromCache() > 0, warm.toString());
      assertTrue(warm.perIndex().isEmpty(), "no profile asked for");
      // per index, what each index's inputs served (reported or still in their windows) adds up to the total
      SearchCost profiled = catalog.search(SearchRequest.builder(query).indices("idx-0", "idx-1").fields("id")
          .profile(true).build()).cost();
      assertEquals(warm.bytesFromCache(), profiled.bytesFromCache(), "the same search reads the same bytes");
      assertEquals(profiled.bytesFromCache(),
          profiled.perIndex().values().stream().mapToLong(SearchCost.IndexCost::bytesFromCache).sum(), profiled.toString());

      // indices skipped by their ranges and by a sorted top-N's early stop are counted as such
      long day1 = RandomIndexes.BASE_TIME + 3000L * 1000;
      Query inRange = new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST)
          .add(LongPoint.newRangeQuery("@timestamp", day1, Long.MAX_VALUE), BooleanClause.Occur.FILTER).build();
      SearchCost sorted = catalog.search(SearchRequest.builder(inRange).indices("idx-*").size(5)
          .sort(new Sort(new SortField("@timestamp", SortField.Type.LONG, true))).build()).cost();
      assertEquals(1, sorted.skippedCanMatch(), sorted.summary());
      assertTrue(sorted.skippedEarlyStop() >= 1, sorted.summary());
      assertEquals(4, sorted.indicesSearched() + sorted.skippedCanMatch() + sorted.skippedEarlyStop(), sorted.summary());
    }
  }
}
