/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Totals and hits of multi-index searches against brute force: random queries (terms, booleans, point ranges as
 * FILTER, MUST, SHOULD and MUST_NOT), sorted by score and by {@code @timestamp} both ways, sizes from 1 to 300, over
 * globs and lists of indices with overlapping and disjoint time ranges. Every total reported exact equals the sum of
 * {@code IndexSearcher.count} over the selected indices, every lower bound is at most that sum, and the hits are those
 * of Lucene's {@code TopDocs.merge} over all of them.
 */
class TotalHitsTest {
  private static final int INDICES = 10;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void totalsAreExactOnlyWhenEveryIndexThatMayMatchWasCountedAndHitsMatchBruteForce() throws IOException {
    Random random = new Random(seed);
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    Map<String, DirectoryReader> locals = new LinkedHashMap<>();
    List<Directory> dirs = new ArrayList<>();
    for (int i = 0; i < INDICES; i++) {
      String name = "idx-" + i;
      Directory local = FSDirectory.open(tmp.resolve(name));
      // days one after another, some overlapping the day before
      int firstId = i * 1500 - (random.nextBoolean() ? random.nextInt(800) : 0);
      try (IndexWriter writer = new IndexWriter(local, new IndexWriterConfig())) {
        RandomIndexes.append(writer, random, Math.max(0, firstId), 600 + random.nextInt(900), 1 + random.nextInt(2));
      }
      repo.createSnapshot(name, local, SnapshotOptions.DEFAULTS.withPointFields("@timestamp", "status"));
      dirs.add(local);
      locals.put(name, DirectoryReader.open(local));
    }
    int exactSeen = 0;
    int boundsSeen = 0;
    int exactAskedSkipping = 0;
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(32 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      for (String name : locals.keySet()) {
        catalog.mount(name, repo, name);
      }
      for (int round = 0; round < 300; round++) {
        Query query = randomQuery(random);
        Sort sort = switch (random.nextInt(3)) {
          case 0 -> null;
          case 1 -> new Sort(new SortField("@timestamp", SortField.Type.LONG, true));
          default -> new Sort(new SortField("@timestamp", SortField.Type.LONG, false));
        };
        int size = 1 + (random.nextInt(4) == 0 ? random.nextInt(300) : random.nextInt(20));
        List<String> selected = new ArrayList<>(locals.keySet());
        String[] indices;
        if (random.nextBoolean()) {
          indices = new String[] {"idx-*"};
        } else {
          Collections.shuffle(selected, random);
          selected = new ArrayList<>(selected.subList(0, 1 + random.nextInt(INDICES)));
          selected.sort(null);
          indices = selected.toArray(String[]::new);
        }
        boolean exactAsked = random.nextInt(3) == 0;
        String what = "seed " + seed + " round " + round + ": " + query + (sort == null ? "" : " by " + sort)
            + " top " + size + " in " + List.of(indices) + (exactAsked ? ", exact total asked for" : "");
        SearchResponse r = catalog.search(SearchRequest.builder(query).indices(indices).size(size).sort(sort)
            .exactTotalHits(exactAsked).build());

        long count = 0;
        List<TopDocs> each = new ArrayList<>();
        for (String name : selected) {
          IndexSearcher searcher = new IndexSearcher(locals.get(name));
          count += searcher.count(query);
          TopDocs top = sort == null ? searcher.search(query, size) : searcher.search(query, size, sort, true);
          each.add(top);
        }
        if (exactAsked) {
          // a sorted top-N counts the indices it skips for their hits: exact, whatever it skipped
          assertEquals(TotalHits.Relation.EQUAL_TO, r.totalHits().relation(), what);
          exactAskedSkipping += r.skipReasons().containsValue(SkipReason.CANNOT_COMPETE) ? 1 : 0;
        }
        if (r.totalHits().relation() == TotalHits.Relation.EQUAL_TO) {
          assertEquals(count, r.totalHits().value(), what + ": an exact total");
          exactSeen++;
        } else {
          assertTrue(r.totalHits().value() <= count, what + ": a lower bound " + r.totalHits() + " over " + count);
          boundsSeen++;
        }
        assertSameHits(each, selected, sort, size, r, what);
      }
    } finally {
      for (DirectoryReader reader : locals.values()) {
        reader.close();
      }
      for (Directory d : dirs) {
        d.close();
      }
    }
    System.out.println("seed " + seed + ": " + exactSeen + " exact totals, " + boundsSeen + " lower bounds, "
        + exactAskedSkipping + " exact totals asked for of sorted searches that skipped indices for their hits");
    assertTrue(exactSeen > 0 && boundsSeen > 0, "both kinds of totals were exercised: " + exactSeen + " / " + boundsSeen);
    assertTrue(exactAskedSkipping > 0, "an exact total was counted over indices skipped for their hits");
  }

  /**
   * The hits equal TopDocs.merge's over every selected index: the same sort keys in the same order, and the same hits
   * wherever the key decides (at the last key, ties may be broken by another index order).
   */
  private static void assertSameHits(List<TopDocs> each, List<String> names, Sort sort, int size, SearchResponse r,
      String what) {
    for (int shard = 0; shard < each.size(); shard++) {
      for (ScoreDoc sd : each.get(shard).scoreDocs) {
        sd.shardIndex = shard;
      }
    }
    TopDocs want = sort == null ? TopDocs.merge(size, each.toArray(TopDocs[]::new))
        : TopDocs.merge(sort, size, each.stream().map(t -> (TopFieldDocs) t).toArray(TopFieldDocs[]::new));
    assertEquals(want.scoreDocs.length, r.hits().size(), what);
    List<Object> wantKeys = new ArrayList<>();
    List<Object> gotKeys = new ArrayList<>();
    for (int i = 0; i < want.scoreDocs.length; i++) {
      ScoreDoc w = want.scoreDocs[i];
      SearchResponse.Hit h = r.hits().get(i);
      wantKeys.add(sort == null ? (Object) w.score : ((FieldDoc) w).fields[0]);
      gotKeys.add(sort == null ? (Object) h.score() : h.sortValues()[0]);
    }
    assertEquals(wantKeys, gotKeys, what + ": the keys");
    if (want.scoreDocs.length == 0) {
      return;
    }
    Object last = wantKeys.getLast();
    Set<String> wantDecided = new HashSet<>();
    Set<String> gotDecided = new HashSet<>();
    for (int i = 0; i < want.scoreDocs.length; i++) {
      if (!wantKeys.get(i).equals(last)) {
        wantDecided.add(names.get(want.scoreDocs[i].shardIndex) + "#" + want.scoreDocs[i].doc);
        gotDecided.add(r.hits().get(i).index() + "#" + r.hits().get(i).doc());
      }
    }
    assertEquals(wantDecided, gotDecided, what + ": the hits before the last key");
  }

  private static Query randomQuery(Random random) {
    Query term = new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(12)]));
    long from = RandomIndexes.BASE_TIME + (long) random.nextInt(INDICES * 1500) * 1000;
    Query range = LongPoint.newRangeQuery("@timestamp", from, from + (long) random.nextInt(6000) * 1000);
    Query status = IntPoint.newRangeQuery("status", 400, 599);
    return switch (random.nextInt(6)) {
      case 0 -> term;
      case 1 -> new MatchAllDocsQuery();
      case 2 -> new BooleanQuery.Builder().add(term, BooleanClause.Occur.MUST).add(range, BooleanClause.Occur.FILTER).build();
      case 3 -> new BooleanQuery.Builder().add(term, BooleanClause.Occur.SHOULD).add(status, BooleanClause.Occur.SHOULD).build();
      case 4 -> new BooleanQuery.Builder().add(range, BooleanClause.Occur.MUST).add(status, BooleanClause.Occur.MUST_NOT).build();
      default -> new BooleanQuery.Builder().add(new MatchAllDocsQuery(), BooleanClause.Occur.MUST)
          .add(term, BooleanClause.Occur.MUST_NOT).add(range, BooleanClause.Occur.FILTER).build();
    };
  }
}
