/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Searching many daily indices in one call: can-match skipping, newest-first early stop, merging, partial results. */
class MultiIndexSearchTest {
  /** Daily indices day-0 to day-29 record their @timestamp range; day-30, the oldest, records none. */
  private static final int DAYS = 30;
  private static final int DOCS_PER_DAY = 600;
  /** Ids of day d start at d * ID_STRIDE; RandomIndexes puts document id at BASE_TIME + id seconds. */
  private static final int ID_STRIDE = 100_000;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private final List<Directory> locals = new ArrayList<>();
  private SnapshotRepository repo;
  private FileSystemBlobStore fs;
  private SharedRegionCache cache;
  private Catalog catalog;

  @BeforeEach
  void setUp() throws IOException {
    fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    repo = SnapshotRepository.open(fs);
    for (int d = 0; d <= DAYS; d++) {
      Directory local = FSDirectory.open(tmp.resolve("day-" + d));
      try (IndexWriter w = new IndexWriter(local, new IndexWriterConfig())) {
        // the last one, the oldest, records no range: it must always be searched
        RandomIndexes.append(w, random, d < DAYS ? d * ID_STRIDE : -ID_STRIDE, DOCS_PER_DAY, 1);
      }
      SnapshotOptions options = d < DAYS ? SnapshotOptions.DEFAULTS.withPointFields("@timestamp") : SnapshotOptions.DEFAULTS;
      repo.createSnapshot("day-" + d, local, options);
      locals.add(local);
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    for (int d = 0; d <= DAYS; d++) {
      catalog.mount("day-" + d, repo, "day-" + d);
    }
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
    cache.close();
    for (Directory d : locals) {
      d.close();
    }
  }

  /** The names of these days, sorted as names sort. */
  private static List<String> days(int... days) {
    return sorted(Arrays.stream(days).mapToObj(d -> "day-" + d).toList());
  }

  /** Every day's name but these, sorted. */
  private static List<String> allDaysBut(int... days) {
    Set<Integer> but = Arrays.stream(days).boxed().collect(Collectors.toSet());
    return days(IntStream.rangeClosed(0, DAYS).filter(d -> !but.contains(d)).toArray());
  }

  private static List<String> sorted(List<String> names) {
    return names.stream().sorted().toList();
  }

  private static long time(int day, int offsetDocs) {
    return RandomIndexes.BASE_TIME + (long) (day * ID_STRIDE + offsetDocs) * 1000;
  }

  /** The same search on the local indices, merged the same way: what the catalog must return. */
  private TopDocs local(Query query, int size, Sort sort, List<String> indices) throws IOException {
    List<TopDocs> all = new ArrayList<>();
    for (String name : indices) {
      try (DirectoryReader reader = DirectoryReader.open(locals.get(Integer.parseInt(name.substring(4))))) {
        IndexSearcher s = new IndexSearcher(reader);
        TopDocs t = sort == null ? s.search(query, size) : s.search(query, size, sort, false);
        for (ScoreDoc sd : t.scoreDocs) {
          sd.shardIndex = all.size();
        }
        all.add(t);
      }
    }
    return sort == null ? TopDocs.merge(size, all.toArray(TopDocs[]::new))
        : TopDocs.merge(sort, size, all.stream().map(t -> (TopFieldDocs) t).toArray(TopFieldDocs[]::new));
  }

  private static void assertSameHits(TopDocs expected, List<String> expectedIndices, SearchResponse actual) {
    assertEquals(expected.totalHits.value(), actual.totalHits().value());
    assertEquals(expected.scoreDocs.length, actual.hits().size());
    for (int i = 0; i < expected.scoreDocs.length; i++) {
      ScoreDoc e = expected.scoreDocs[i];
      SearchResponse.Hit a = actual.hits().get(i);
      assertEquals(expectedIndices.get(e.shardIndex), a.index(), "hit " + i);
      assertEquals(e.doc, a.doc(), "hit " + i);
      if (e instanceof FieldDoc fd) {
        assertEquals(List.of(fd.fields), List.of(a.sortValues()), "hit " + i);
      } else {
        assertEquals(e.score, a.score(), "hit " + i);
      }
    }
  }

  @Test
  void aTimeRangeSearchesOnlyTheIndicesItOverlapsAndThoseWithoutARecordedRange() throws IOException {
    Query query = new BooleanQuery.Builder()
        .add(new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(6)])), BooleanClause.Occur.MUST)
        .add(LongPoint.newRangeQuery("@timestamp", time(2, 100), time(4, 300)), BooleanClause.Occur.FILTER)
        .build();
    SearchResponse r = catalog.search(SearchRequest.builder(query).size(25).build());
    assertEquals(days(2, 3, 4, DAYS), sorted(r.searched()), "seed " + seed);
    assertEquals(allDaysBut(2, 3, 4, DAYS), sorted(r.skipped()));
    assertSameHits(local(query, 25, null, r.searched()), r.searched(), r);
    assertEquals(4, catalog.stats().readerOpens(), "the skipped indices were never opened");
    assertEquals(DAYS - 3, catalog.stats().indicesSkipped());

    // asked to search every index (a collector that shows what nothing matched): none skipped, the same hits
    SearchResponse every = catalog.search(SearchRequest.builder(query).size(25).searchEveryIndex(true).build());
    assertEquals(days(IntStream.rangeClosed(0, DAYS).toArray()), sorted(every.searched()));
    assertTrue(every.skipped().isEmpty(), every.skipReasons().toString());
    assertSameHits(local(query, 25, null, every.searched()), every.searched(), every);
  }

  /**
   * Each index searched with a query of its own: each finds what its own query finds there, and can-match skips an
   * index by what its own query requires. A similarity of the request's scores every hit.
   */
  @Test
  void eachIndexMaySearchAQueryOfItsOwnScoredByTheRequestsSimilarity() throws IOException {
    String word = RandomIndexes.WORDS[random.nextInt(4)];
    Query plain = new TermQuery(new Term("body", word));
    Query day3Only = new BooleanQuery.Builder().add(plain, BooleanClause.Occur.MUST)
        .add(LongPoint.newRangeQuery("@timestamp", time(3, 0), time(3, 500)), BooleanClause.Occur.FILTER).build();
    SearchResponse r = catalog.search(SearchRequest.builder(plain).indices("day-2", "day-3", "day-4").size(5000)
        .queryPerIndex(index -> index.equals("day-4") ? day3Only : plain).build());
    assertEquals(days(2, 3), sorted(r.searched()), "day-4's own query cannot match there: skipped");
    assertEquals(days(4), sorted(r.skipped()));
    assertSameHits(local(plain, 5000, null, days(2, 3)), days(2, 3), r);

    float scale = 2.2f;
    BM25Similarity bm25 = new BM25Similarity();
    Similarity scaled = new Similarity() {
      @Override
      public SimScorer scorer(float boost, CollectionStatistics c, TermStatistics... t) {
        return bm25.scorer(boost * scale, c, t);
      }
    };
    SearchResponse base = catalog.search(SearchRequest.builder(plain).indices("day-2").size(10).build());
    SearchResponse rescored = catalog.search(SearchRequest.builder(plain).indices("day-2").size(10).similarity(scaled)
        .build());
    assertEquals(base.hits().size(), rescored.hits().size());
    for (int i = 0; i < base.hits().size(); i++) {
      assertEquals(base.hits().get(i).doc(), rescored.hits().get(i).doc(), "hit " + i);
      assertEquals(base.hits().get(i).score() * scale, rescored.hits().get(i).score(), 1e-4f, "hit " + i);
    }
  }

  /** Sorted by a long field, or as the engines sort (a sorted-numeric sort, the query front's): alike. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theNewestHitsFirstOpenOnlyTheIndicesThatCanHoldThem(boolean sortedNumeric) throws IOException {
    Sort newestFirst = new Sort(sortedNumeric
        ? new SortedNumericSortField("@timestamp", SortField.Type.LONG, true, SortedNumericSelector.Type.MAX)
        : new SortField("@timestamp", SortField.Type.LONG, true));
    SearchResponse r = catalog.search(SearchRequest.builder(new MatchAllDocsQuery()).indices("day-*").size(500)
        .sort(newestFirst).fields("id").build());
    List<String> all = new ArrayList<>();
    for (int d = 0; d <= DAYS; d++) {
      all.add("day-" + d);
    }
    TopDocs expected = local(new MatchAllDocsQuery(), 500, newestFirst, all);
    assertEquals(500, r.hits().size());
    for (int i = 0; i < 500; i++) {
      FieldDoc e = (FieldDoc) expected.scoreDocs[i];
      assertEquals(e.fields[0], r.hits().get(i).sortValues()[0], "seed " + seed + " hit " + i);
    }
    String newest = "day-" + (DAYS - 1);
    assertTrue(r.hits().stream().allMatch(h -> h.index().equals(newest)), "the newest day holds the 500 newest");
    assertTrue(r.hits().getFirst().document().get("id") != null, "stored fields fetched");
    assertTrue(r.searched().size() <= 3 && r.searched().contains(newest) && r.searched().contains("day-" + DAYS),
        "only the newest day and the one with no recorded range need opening: " + r.searched());
    assertTrue(r.skipped().containsAll(days(IntStream.range(0, DAYS - 2).toArray())), r.skipped().toString());
    assertTrue(catalog.stats().readerOpens() <= 3);
  }

  /**
   * A query of the application's own that wraps the time range (as one that picks points or doc values per segment
   * does) skips the same indices as the range itself, by what it visits as required; one that visits the range as
   * optional skips none.
   */
  @Test
  void aWrappedRangeSkipsIndicesByWhatTheWrapperVisits() throws IOException {
    Query range = LongPoint.newRangeQuery("@timestamp", time(2, 100), time(4, 300));
    SearchResponse plain = catalog.search(SearchRequest.builder(range).size(5).build());
    SearchResponse wrapped = catalog.search(SearchRequest.builder(new Wrapper(range, BooleanClause.Occur.MUST)).size(5)
        .build());
    assertEquals(days(2, 3, 4, DAYS), sorted(wrapped.searched()));
    assertEquals(sorted(plain.searched()), sorted(wrapped.searched()));
    assertEquals(plain.totalHits(), wrapped.totalHits());
    SearchResponse optional = catalog.search(SearchRequest.builder(new Wrapper(range, BooleanClause.Occur.SHOULD))
        .size(5).build());
    assertEquals(DAYS + 1, optional.searched().size(), "a range visited as optional narrows nothing");
  }

  /** Runs its inner query, and visits it with the given occur. */
  private static final class Wrapper extends Query {
    private final Query inner;
    private final BooleanClause.Occur occur;

    Wrapper(Query inner, BooleanClause.Occur occur) {
      this.inner = inner;
      this.occur = occur;
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws IOException {
      return inner.createWeight(searcher, scoreMode, boost);
    }

    @Override
    public Query rewrite(IndexSearcher searcher) throws IOException {
      Query r = inner.rewrite(searcher);
      return r == inner ? this : new Wrapper(r, occur);
    }

    @Override
    public void visit(QueryVisitor visitor) {
      inner.visit(visitor.getSubVisitor(occur, this));
    }

    @Override
    public String toString(String field) {
      return "wrapped(" + inner.toString(field) + ")";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Wrapper w && w.inner.equals(inner) && w.occur == occur;
    }

    @Override
    public int hashCode() {
      return inner.hashCode() * 31 + occur.hashCode();
    }
  }

  /**
   * Pages of a sort with ties (a country, then the newest time) over every day, each after the last hit of the one
   * before, are the one search's hits in order: across indices, documents with the page's last values are left out
   * of the next page, and nothing is lost or repeated.
   */
  @Test
  void pagesAfterTheLastHitsSortValuesAreTheWholeSearchInOrder() throws IOException {
    Sort sort = new Sort(new SortField("status_s", SortField.Type.STRING, random.nextBoolean()),
        new SortField("@timestamp", SortField.Type.LONG, true));
    int page = 1 + random.nextInt(90);
    List<String> all = new ArrayList<>();
    for (int d = 0; d <= DAYS; d++) {
      all.add("day-" + d);
    }
    TopDocs expected = local(new MatchAllDocsQuery(), 700, sort, all);
    List<Object> seen = new ArrayList<>();
    Object[] after = null;
    while (seen.size() < 700) {
      SearchRequest.Builder b = SearchRequest.builder(new MatchAllDocsQuery()).size(page).sort(sort).fields("id");
      SearchResponse r = catalog.search((after == null ? b : b.searchAfter(after)).build());
      assertEquals(page, r.hits().size(), "seed " + seed);
      for (SearchResponse.Hit h : r.hits()) {
        seen.add(List.of(h.sortValues()));
      }
      after = r.hits().getLast().sortValues();
    }
    for (int i = 0; i < 700; i++) {
      assertEquals(List.of(((FieldDoc) expected.scoreDocs[i]).fields), seen.get(i), "seed " + seed + " hit " + i);
    }
    assertThrows(IllegalArgumentException.class, () -> SearchRequest.builder(new MatchAllDocsQuery()).sort(sort)
        .searchAfter("only one value").build());
  }

  @Test
  void exactTotalHitsCountEveryIndexThatCanMatchAndKeepTheSameHits() throws IOException {
    Sort newestFirst = new Sort(new SortField("@timestamp", SortField.Type.LONG, true));
    List<String> all = new ArrayList<>();
    for (int d = 0; d <= DAYS; d++) {
      all.add("day-" + d);
    }
    TopDocs expected = local(new MatchAllDocsQuery(), 500, newestFirst, all);
    long total = 0;
    for (int d = 0; d <= DAYS; d++) {
      try (DirectoryReader reader = DirectoryReader.open(locals.get(d))) {
        total += new IndexSearcher(reader).count(new MatchAllDocsQuery());
      }
    }
    SearchRequest request = SearchRequest.builder(new MatchAllDocsQuery()).indices("day-*").size(500)
        .sort(newestFirst).fields("id").exactTotalHits(true).profile(true).build();
    SearchResponse r = catalog.search(request);
    assertEquals(new TotalHits(total, TotalHits.Relation.EQUAL_TO),
        r.totalHits(), "seed " + seed);
    assertTrue(total > 1000 * 2, "more hits than Lucene counts exactly by default: " + total);
    assertEquals(500, r.hits().size());
    for (int i = 0; i < 500; i++) {
      FieldDoc e = (FieldDoc) expected.scoreDocs[i];
      assertEquals(e.fields[0], r.hits().get(i).sortValues()[0], "seed " + seed + " hit " + i);
      assertTrue(r.hits().get(i).document().get("id") != null, "stored fields of hit " + i);
    }
    // the days that cannot beat the 500th hit are counted, not searched for hits
    String newest = "day-" + (DAYS - 1);
    assertTrue(r.searched().contains(newest) && r.searched().size() <= 3, r.searched().toString());
    List<String> counted = allDaysBut(IntStream.range(0, DAYS + 1).filter(d -> r.searched().contains("day-" + d))
        .toArray());
    assertEquals(counted, sorted(r.skipped()), "every other day is skipped for its hits");
    assertTrue(counted.stream().allMatch(d -> r.skipReasons().get(d) == SkipReason.CANNOT_COMPETE), r.toString());

    // cold again, its readers open: a match-all is counted from each reader's statistics, reading nothing of a
    // counted day, while the searched ones read their sort values and hits
    cache.clear();
    SearchResponse cold = catalog.search(request);
    assertEquals(r.totalHits(), cold.totalHits());
    assertEquals(r.searched(), cold.searched());
    for (String day : counted) {
      assertEquals(0, cold.cost().perIndex().get(day).storeRequests(), day + ": " + cold.cost().perIndex());
    }
    assertTrue(cold.cost().perIndex().get(newest).storeRequests() > 0, cold.cost().perIndex().toString());
  }

  /**
   * With an exact total, the indices after the first wave are counted beside it, not once it has ended: here the
   * first wave's reads from the store wait until a third day's reader is open (for its count), which they would wait
   * for in vain if counting began after the wave (the wait's bound, a minute, would then fail the search).
   */
  @Test
  void anExactTotalCountsTheIndicesAfterTheFirstWaveBesideIt() throws Exception {
    SnapshotRepository unkept = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("unkept"), false));
    List<String> names = new ArrayList<>();
    for (int d = DAYS - 4; d < DAYS; d++) {
      unkept.createSnapshot("day-" + d, locals.get(d),
          SnapshotOptions.DEFAULTS.withPointFields("@timestamp").withKeepWholeLimits(0, 0));
      names.add("day-" + d);
    }
    // the first wave: the two newest days; the others are counted
    Set<String> firstWave = new HashSet<>();
    for (String name : List.of("day-" + (DAYS - 1), "day-" + (DAYS - 2))) {
      for (FileEntry f : unkept.readManifest(name).files()) {
        if (f.blobName() != null) {
          firstWave.add(f.blobName());
        }
      }
    }
    AtomicReference<Catalog> searching = new AtomicReference<>();
    AtomicInteger waited = new AtomicInteger();
    FilterBlobStore gated = new FilterBlobStore(FileSystemBlobStore.open(tmp.resolve("unkept"), false)) {
      @Override
      public InputStream read(String blobName, long offset, long length) throws IOException {
        Catalog c = searching.get();
        if (c != null && firstWave.contains(blobName)) {
          try {
            Waits.await("a third reader, opened to count", () -> c.stats().readerOpens() >= 3);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("waiting for a later day's count");
          }
          waited.incrementAndGet();
        }
        return super.read(blobName, offset, length);
      }
    };
    // a request time-out far past the wait's own bound (a minute), so that no wait, however slow the machine, is retried
    SnapshotRepository gatedRepo = SnapshotRepository.open(gated,
        StorePolicy.builder().requestTimeout(Duration.ofMinutes(10)).build());
    try (SharedRegionCache own = SharedRegionCache.builder().path(tmp.resolve("gated-cache")).size(64 << 20)
        .regionSize(1 << 20).build();
        Catalog gatedCatalog = Catalog.builder(own).searchThreads(8).build()) {
      for (String name : names) {
        gatedCatalog.mount(name, gatedRepo, name);
      }
      assertEquals(0, gatedCatalog.stats().readerOpens(), "mounting opens no reader");
      searching.set(gatedCatalog);
      Query word = new TermQuery(new Term("body", RandomIndexes.WORDS[0]));
      Sort newestFirst = new Sort(new SortField("@timestamp", SortField.Type.LONG, true));
      SearchResponse r = gatedCatalog.search(SearchRequest.builder(word).indices("day-*").size(5).sort(newestFirst)
          .exactTotalHits(true).build());
      assertTrue(waited.get() > 0, "the first wave read from the store");
      long total = 0;
      for (int d = DAYS - 4; d < DAYS; d++) {
        try (DirectoryReader reader = DirectoryReader.open(locals.get(d))) {
          total += new IndexSearcher(reader).count(word);
        }
      }
      assertEquals(new TotalHits(total, TotalHits.Relation.EQUAL_TO), r.totalHits(), "seed " + seed);
      assertTrue(r.skipReasons().values().stream().allMatch(s -> s == SkipReason.CANNOT_COMPETE), r.toString());
    }
  }

  /**
   * A query that matches every document of the best index, which holds N documents or more, promises N hits no worse
   * than that index's worst value before any is searched: the first wave is that index alone, and the next, whose
   * range cannot beat it, is counted rather than searched. One document more than the index holds promises nothing,
   * and the first wave is two indices again: only live documents count.
   */
  @Test
  void anIndexTheQueryMatchesWholeWithNDocumentsIsTheFirstWaveAlone() throws IOException {
    Sort newestFirst = new Sort(new SortField("@timestamp", SortField.Type.LONG, true));
    List<String> tens = new ArrayList<>(); // day-20 to day-29: every one records its range
    for (int d = 20; d < DAYS; d++) {
      tens.add("day-" + d);
    }
    String newest = "day-" + (DAYS - 1);
    String next = "day-" + (DAYS - 2);
    Query[] wholeDays = {new MatchAllDocsQuery(), LongPoint.newRangeQuery("@timestamp", time(20, 0), time(DAYS, 0)),
        new BooleanQuery.Builder().add(LongPoint.newRangeQuery("@timestamp", time(15, 0), Long.MAX_VALUE),
            BooleanClause.Occur.FILTER).build()};
    int live; // the newest day's documents but the few deleted
    try (DirectoryReader reader = DirectoryReader.open(locals.get(DAYS - 1))) {
      live = reader.numDocs();
    }
    for (Query query : wholeDays) {
      for (int size : new int[] {live, live + 1}) {
        TopDocs expected = local(query, size, newestFirst, tens);
        SearchResponse r = catalog.search(SearchRequest.builder(query).indices("day-2?").size(size).sort(newestFirst)
            .exactTotalHits(true).build());
        String what = query + ", size " + size + ", seed " + seed + ": " + r;
        assertEquals(expected.totalHits.value(), r.totalHits().value(), what);
        assertEquals(expected.scoreDocs.length, r.hits().size(), what);
        for (int i = 0; i < expected.scoreDocs.length; i++) {
          assertEquals(((FieldDoc) expected.scoreDocs[i]).fields[0], r.hits().get(i).sortValues()[0], what + " hit " + i);
        }
        if (size == live) {
          assertEquals(List.of(newest), r.searched(), what);
          assertEquals(SkipReason.CANNOT_COMPETE, r.skipReasons().get(next), what);
        } else {
          assertTrue(r.searched().contains(newest) && r.searched().contains(next), what);
        }
      }
    }
    // a query that does not match all of the newest day promises nothing
    Query most = LongPoint.newRangeQuery("@timestamp", time(20, 0), time(DAYS - 1, DOCS_PER_DAY - 2));
    SearchResponse r = catalog.search(SearchRequest.builder(most).indices("day-2?").size(10).sort(newestFirst)
        .exactTotalHits(true).build());
    assertTrue(r.searched().contains(newest) && r.searched().contains(next), r.toString());
  }

  /** A range sorted by its own field is answered from the points first: the same hits and the range's exact total. */
  @Test
  void aRangeSortedByItsOwnFieldKeepsItsHitsAndExactTotal() throws IOException {
    List<String> all = new ArrayList<>();
    for (int d = 0; d <= DAYS; d++) {
      all.add("day-" + d);
    }
    for (boolean newest : new boolean[] {true, false}) {
      Sort sort = new Sort(new SortField("@timestamp", SortField.Type.LONG, newest));
      Query range = LongPoint.newRangeQuery("@timestamp", time(1, 50), time(4, 700));
      TopDocs expected = local(range, 300, sort, all);
      long total = 0;
      for (int d = 0; d <= DAYS; d++) {
        try (DirectoryReader reader = DirectoryReader.open(locals.get(d))) {
          total += new IndexSearcher(reader).count(range);
        }
      }
      SearchResponse r = catalog.search(SearchRequest.builder(range).indices("day-*").size(300).sort(sort)
          .fields("id").exactTotalHits(true).build());
      assertEquals(new TotalHits(total, TotalHits.Relation.EQUAL_TO),
          r.totalHits(), "seed " + seed + (newest ? ", newest first" : ", oldest first"));
      assertTrue(total > 300, "more in range than asked for: " + total);
      assertEquals(expected.scoreDocs.length, r.hits().size());
      for (int i = 0; i < expected.scoreDocs.length; i++) {
        FieldDoc e = (FieldDoc) expected.scoreDocs[i];
        assertEquals(e.fields[0], r.hits().get(i).sortValues()[0], "seed " + seed + " hit " + i);
      }
    }
  }

  @Test
  void aFailingIndexFailsTheSearchOrIsReportedWithPartialResults() throws IOException {
    FileEntry victim = repo.readManifest("day-3").files().stream().filter(f -> f.blobName() != null)
        .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    Files.delete(fs.root().resolve(victim.blobName()));
    Query all = new MatchAllDocsQuery();
    Sort byId = new Sort(new SortField("@timestamp", SortField.Type.LONG, false));
    IOException e = assertThrows(IOException.class,
        () -> catalog.search(SearchRequest.builder(all).size(5000).sort(byId).fields("body").build()));
    assertTrue(e.getMessage().contains("day-3"), e.getMessage());
    SearchResponse r = catalog.search(SearchRequest.builder(all).size(5000).sort(byId).fields("body")
        .allowPartialResults(true).build());
    assertEquals(List.of("day-3"), List.copyOf(r.failed().keySet()));
    assertTrue(!r.searched().contains("day-3") && r.searched().size() == DAYS, r.searched().toString());
    long live = 0;
    for (String name : r.searched()) {
      try (DirectoryReader reader = DirectoryReader.open(locals.get(Integer.parseInt(name.substring(4))))) {
        live += reader.numDocs();
      }
    }
    assertEquals(live, r.totalHits().value());
  }

  /** Counts the documents it collects; reduced by summing. Thread-unsafe on purpose: one per index slice. */
  private static final class Counting extends SimpleCollector {
    int count;

    @Override
    public void collect(int doc) {
      count++;
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }

  private static class CountingManager implements CollectorManager<Counting, Long> {
    int collectorsMade;

    @Override
    public Counting newCollector() {
      collectorsMade++; // not atomic: the catalog serializes these calls
      return new Counting();
    }

    @Override
    public Long reduce(Collection<Counting> collectors) {
      return collectors.stream().mapToLong(c -> c.count).sum();
    }
  }

  /**
   * Without a timeout the calling thread searches one index itself rather than wait idle for a thread of its own; with
   * one it searches none, so that it can return at the deadline whatever an index's search is doing.
   */
  @Test
  void theCallerSearchesOneIndexItselfUnlessTheSearchHasATimeout() throws IOException {
    Query query = new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(6)]));
    for (Duration timeout : new Duration[] {null, Duration.ofMinutes(5)}) {
      List<Thread> threads = java.util.Collections.synchronizedList(new ArrayList<>());
      CountingManager manager = new CountingManager() {
        @Override
        public Counting newCollector() {
          threads.add(Thread.currentThread());
          return super.newCollector();
        }
      };
      SearchRequest.Builder request = SearchRequest.builder(query);
      if (timeout != null) {
        request.timeout(timeout);
      }
      CollectedResponse<Long> r = catalog.search(request.build(), manager);
      assertEquals(DAYS + 1, r.searched().size(), "seed " + seed);
      assertEquals(r.searched().size(), threads.size(), "one collector per index");
      long onCaller = threads.stream().filter(t -> t == Thread.currentThread()).count();
      assertEquals(timeout == null ? 1 : 0, onCaller, "indices searched on the calling thread, timeout " + timeout);
      assertTrue(threads.stream().filter(t -> t != Thread.currentThread()).allMatch(Thread::isVirtual), threads.toString());
    }
  }

  /** An interrupted caller's search ends as interrupted, its status kept, not as the failure of the index it kept. */
  @Test
  void anInterruptedCallersSearchEndsInterruptedNotAsAnIndexFailure() {
    Query query = new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(6)]));
    Thread.currentThread().interrupt();
    try {
      assertThrows(InterruptedIOException.class, () -> catalog.search(SearchRequest.builder(query).build(),
          new CountingManager()));
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt status is kept");
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aCollectorManagerSeesEveryIndexThatCanMatchAndIsReducedOnce() throws IOException {
    Query query = new BooleanQuery.Builder()
        .add(new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(6)])), BooleanClause.Occur.SHOULD)
        .add(new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(6)])), BooleanClause.Occur.SHOULD)
        .add(LongPoint.newRangeQuery("@timestamp", time(1, 0), time(5, 10)), BooleanClause.Occur.FILTER)
        .build();
    CountingManager manager = new CountingManager();
    CollectedResponse<Long> r = catalog.search(SearchRequest.builder(query).build(), manager);
    assertEquals(days(1, 2, 3, 4, 5, DAYS), sorted(r.searched()), "seed " + seed);
    assertEquals(allDaysBut(1, 2, 3, 4, 5, DAYS), sorted(r.skipped()));
    long expected = 0;
    for (String name : r.searched()) {
      try (DirectoryReader reader = DirectoryReader.open(locals.get(Integer.parseInt(name.substring(4))))) {
        expected += new IndexSearcher(reader).count(query);
      }
    }
    assertTrue(expected > 0, "seed " + seed + ": the query matches something");
    assertEquals(expected, r.result(), "seed " + seed);
    assertTrue(manager.collectorsMade >= r.searched().size(), "at least one collector per index searched");
    assertEquals(6, catalog.stats().readerOpens(), "the skipped indices were never opened");

    // a catalog that has not opened day-2 yet, when its snapshot is deleted from under it
    CollectedResponse<Long> partial;
    try (Catalog other = Catalog.builder(cache).build()) {
      for (int d = 0; d <= DAYS; d++) {
        other.mount("day-" + d, repo, "day-" + d);
      }
      Files.delete(fs.root().resolve(repo.readManifest("day-2").ref().blobName()));
      cache.clear();
      IOException e = assertThrows(IOException.class, () -> other.search(SearchRequest.builder(query).build(),
          new CountingManager()));
      assertTrue(e.getMessage().contains("day-2"), e.getMessage());
      partial = other.search(SearchRequest.builder(query).allowPartialResults(true).build(), new CountingManager());
    }
    assertEquals(List.of("day-2"), List.copyOf(partial.failed().keySet()), "seed " + seed);
    long withoutDay2;
    try (DirectoryReader reader = DirectoryReader.open(locals.get(2))) {
      withoutDay2 = expected - new IndexSearcher(reader).count(query);
    }
    assertEquals(withoutDay2, partial.result(), "the failed index's collectors are left out");
  }
}
