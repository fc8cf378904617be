/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scroll and point in time over three indices of five shards (12,500 documents in several segments each), checked
 * against an oracle that knows every document's values, shard and number: every document exactly once, in the order
 * asked (the sort, then {@code _shard_doc}), page after page; an index unmounted or mounted again from another snapshot
 * under an open cursor ends it with a 404 naming the index; keep-alives lapse and are extended on a clock the test
 * moves; closing answers as the node does; and 10,000 scrolls left open hold no lease on any index.
 */
class ScrollAndPointInTimeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] KEYWORDS = {"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"};
  /** index -> its shards' sizes. */
  private static final Map<String, int[]> LAYOUT = new LinkedHashMap<>();

  static {
    LAYOUT.put("idx-a", new int[] {3000, 2500});
    LAYOUT.put("idx-b", new int[] {2000, 2000});
    LAYOUT.put("idx-c", new int[] {3000});
  }

  @TempDir Path tmp;
  private SharedRegionCache cache;
  private Catalog catalog;
  private SearchApi api;
  private SnapshotRepository repo;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Map<String, SearchApi.Index> indices = new LinkedHashMap<>();
  /** Every document, in the order of its shard's ordinal then number. */
  private final List<Doc> docs = new ArrayList<>();

  record Doc(String id, String index, int shard, int doc, long n, String k) {}

  @BeforeEach
  void setUp() throws Exception {
    repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo")));
    Random random = new Random(20261129);
    IndexMapping mapping = IndexMapping.of(JSON.readTree("{\"properties\": {\"n\": {\"type\": \"long\"},"
        + " \"k\": {\"type\": \"keyword\"}}}"));
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(32 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    int ordinal = 0;
    for (Map.Entry<String, int[]> index : LAYOUT.entrySet()) {
      List<String> shards = new ArrayList<>();
      for (int s = 0; s < index.getValue().length; s++, ordinal++) {
        String shard = index.getKey() + "-s" + s;
        write(shard, index.getKey(), ordinal, index.getValue()[s], random, "snap-" + shard);
        catalog.mount(shard, repo, "snap-" + shard);
        shards.add(shard);
      }
      indices.put(index.getKey(), new SearchApi.Index(index.getKey(), shards, mapping));
    }
    api = new SearchApi(catalog, () -> Map.copyOf(indices), clock::get);
  }

  /** One shard's documents, in several segments kept in the order they were added. */
  private void write(String shard, String index, int ordinal, int count, Random random, String snapshot)
      throws Exception {
    try (ByteBuffersDirectory d = new ByteBuffersDirectory()) {
      IndexWriterConfig config = new IndexWriterConfig().setMaxBufferedDocs(700).setMergePolicy(new LogDocMergePolicy());
      try (IndexWriter w = new IndexWriter(d, config)) {
        for (int i = 0; i < count; i++) {
          long n = random.nextInt(40);
          String k = random.nextInt(10) == 0 ? null : KEYWORDS[random.nextInt(KEYWORDS.length)];
          Document doc = new Document();
          String id = shard + "-" + i;
          doc.add(new StoredField("_id", id));
          doc.add(new LongPoint("n", n));
          doc.add(new SortedNumericDocValuesField("n", n));
          if (k != null) {
            doc.add(new StringField("k", k, Field.Store.NO));
            doc.add(new SortedSetDocValuesField("k", new BytesRef(k)));
          }
          w.addDocument(doc);
          if (docs != null && snapshot.startsWith("snap-")) {
            docs.add(new Doc(id, index, ordinal, i, n, k));
          }
        }
      }
      repo.createSnapshot(snapshot, d);
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    cache.close();
  }

  private ObjectNode search(String expression, String body, Map<String, String> parameters) throws Exception {
    return api.search(expression, JSON.readTree(body), parameters);
  }

  private static List<String> ids(JsonNode answer) {
    List<String> out = new ArrayList<>();
    answer.at("/hits/hits").forEach(h -> out.add(h.get("_id").asText()));
    return out;
  }

  /** Scrolls {@code body} over every index to its end: every hit's id, in order. */
  private List<String> scrollAll(String body, int expectPages) throws Exception {
    ObjectNode first = search("idx-*", body, Map.of("scroll", "1m"));
    assertEquals(12_500, first.at("/hits/total/value").asLong(), first.at("/hits/total").toString());
    assertEquals("eq", first.at("/hits/total/relation").asText());
    String id = first.get("_scroll_id").asText();
    assertEquals("_scroll_id", first.fieldNames().next(), "the id first, as the node answers");
    List<String> all = new ArrayList<>(ids(first));
    int pages = 1;
    while (true) {
      ObjectNode next = api.scroll(id, "1m");
      assertEquals(id, next.get("_scroll_id").asText());
      assertEquals(12_500, next.at("/hits/total/value").asLong());
      List<String> page = ids(next);
      if (page.isEmpty()) {
        break;
      }
      all.addAll(page);
      pages++;
    }
    assertEquals(expectPages, pages);
    assertEquals(12_500, api.clearScroll(List.of(id)).body().get("num_freed").asInt() * 2500, "num_freed: 5 shards");
    return all;
  }

  @Test
  void aScrollInDocumentOrderReturnsEveryDocumentOnce() throws Exception {
    List<String> all = scrollAll("{\"size\": 1000, \"sort\": [\"_doc\"], \"_source\": false}", 13);
    assertEquals(docs.size(), all.size());
    assertEquals(docs.stream().map(Doc::id).toList(), all, "shard after shard, each in its documents' order");
  }

  @Test
  void aScrollByScoreReturnsEveryDocumentOnce() throws Exception {
    List<String> all = scrollAll("{\"size\": 999, \"_source\": false}", 13);
    assertEquals(docs.size(), new HashSet<>(all).size());
    assertEquals(docs.stream().map(Doc::id).toList(), all, "equal scores: by _shard_doc");
  }

  @Test
  void aSortedScrollFollowsTheSortThenShardAndDocument() throws Exception {
    List<String> all = scrollAll("{\"size\": 700, \"sort\": [{\"n\": \"asc\"}, {\"k\": \"desc\"}], \"_source\": false}",
        18);
    Comparator<String> kDescMissingLast = Comparator.nullsLast(Comparator.<String>reverseOrder());
    List<String> expected = docs.stream().sorted(Comparator.comparingLong(Doc::n)
        .thenComparing(Doc::k, kDescMissingLast).thenComparingInt(Doc::shard).thenComparingInt(Doc::doc))
        .map(Doc::id).toList();
    assertEquals(expected, all);
  }

  @Test
  void aPointInTimeWithSearchAfterReadsEveryDocumentInOrder() throws Exception {
    ObjectNode pit = api.openPointInTime("idx-*", Map.of("keep_alive", "1m"));
    assertEquals(5, pit.at("/_shards/total").asInt());
    String id = pit.get("id").asText();
    for (boolean descending : new boolean[] {false, true}) {
      String sort = descending ? "[{\"n\": \"desc\"}, {\"_shard_doc\": \"desc\"}]" : "[{\"n\": \"asc\"}]";
      List<String> all = new ArrayList<>();
      JsonNode after = null;
      int pages = 0;
      while (true) {
        ObjectNode answer = search(null, "{\"size\": 1000, \"_source\": false, \"pit\": {\"id\": \"" + id + "\","
            + " \"keep_alive\": \"1m\"}, \"sort\": " + sort + (after == null ? "" : ", \"search_after\": " + after)
            + "}", Map.of());
        assertEquals(id, answer.get("pit_id").asText());
        JsonNode hits = answer.at("/hits/hits");
        if (hits.isEmpty()) {
          break;
        }
        pages++;
        for (JsonNode h : hits) {
          all.add(h.get("_id").asText());
          Doc d = docs.stream().filter(x -> x.id().equals(h.get("_id").asText())).findFirst().orElseThrow();
          assertEquals(d.n(), h.at("/sort/0").asLong());
          assertEquals(((long) d.shard() << 32) | d.doc(), h.at("/sort/1").asLong(), "_shard_doc of " + d);
        }
        after = hits.get(hits.size() - 1).get("sort");
      }
      assertEquals(13, pages);
      Comparator<Doc> order = Comparator.comparingLong(Doc::n).thenComparingInt(Doc::shard).thenComparingInt(Doc::doc);
      List<String> expected = docs.stream().sorted(descending ? order.reversed() : order).map(Doc::id).toList();
      assertEquals(expected, all, descending ? "descending" : "ascending");
    }
    SearchApi.Closed closed = api.closePointInTime(JSON.readTree("{\"id\": \"" + id + "\"}"));
    assertEquals(200, closed.status());
    assertEquals("{\"succeeded\":true,\"num_freed\":5}", closed.body().toString());
    SearchApi.Closed again = api.closePointInTime(JSON.readTree("{\"id\": \"" + id + "\"}"));
    assertEquals(404, again.status());
    assertEquals("{\"succeeded\":false,\"num_freed\":0}", again.body().toString());
    DslException gone = assertThrows(DslException.class, () -> search(null, "{\"pit\": {\"id\": \"" + id + "\"}}",
        Map.of()));
    assertEquals(404, gone.status());
    assertEquals("search_context_missing_exception", gone.rootCauseType());
  }

  @Test
  void aPointInTimeSortedOnShardDocAloneReadsShardAfterShard() throws Exception {
    String id = api.openPointInTime("idx-*", Map.of("keep_alive", "1m")).get("id").asText();
    for (String order : List.of("asc", "desc")) {
      List<String> all = new ArrayList<>();
      JsonNode after = null;
      while (true) {
        ObjectNode answer = search(null, "{\"size\": 900, \"_source\": false, \"pit\": {\"id\": \"" + id + "\"},"
            + " \"sort\": [{\"_shard_doc\": \"" + order + "\"}]" + (after == null ? "" : ", \"search_after\": " + after)
            + "}", Map.of());
        JsonNode hits = answer.at("/hits/hits");
        if (hits.isEmpty()) {
          break;
        }
        for (JsonNode h : hits) {
          assertEquals(1, h.get("sort").size(), h.toString());
          all.add(h.get("_id").asText());
        }
        after = hits.get(hits.size() - 1).get("sort");
      }
      List<String> expected = new ArrayList<>(docs.stream().map(Doc::id).toList());
      if (order.equals("desc")) {
        java.util.Collections.reverse(expected);
      }
      assertEquals(expected, all, order);
    }
  }

  @Test
  void aScrollsAggregationsAreOnItsFirstPageOnly() throws Exception {
    ObjectNode first = search("idx-*", "{\"size\": 2, \"query\": {\"term\": {\"k\": \"beta\"}},"
        + " \"aggs\": {\"n\": {\"max\": {\"field\": \"n\"}}}}", Map.of("scroll", "1m"));
    long betas = docs.stream().filter(d -> "beta".equals(d.k())).count();
    assertEquals(betas, first.at("/hits/total/value").asLong());
    double max = docs.stream().filter(d -> "beta".equals(d.k())).mapToLong(Doc::n).max().orElseThrow();
    assertEquals(max, first.at("/aggregations/n/value").asDouble(), first.toString());
    ObjectNode second = api.scroll(first.get("_scroll_id").asText(), "1m");
    assertTrue(second.at("/aggregations").isMissingNode(), second.toString());
    assertEquals(betas, second.at("/hits/total/value").asLong());
    assertEquals(2, second.at("/hits/hits").size());
  }

  @Test
  void searchAfterWithoutTheTieBreakerSkipsEveryHitWithThoseValues() throws Exception {
    String id = api.openPointInTime("idx-*", Map.of("keep_alive", "1m")).get("id").asText();
    ObjectNode answer = search(null, "{\"size\": 10000, \"_source\": false, \"pit\": {\"id\": \"" + id + "\"},"
        + " \"sort\": [{\"n\": \"asc\"}], \"search_after\": [5]}", Map.of());
    long expected = docs.stream().filter(d -> d.n() > 5).count();
    assertEquals(Math.min(10_000, expected), answer.at("/hits/hits").size());
    assertEquals(6, answer.at("/hits/hits/0/sort/0").asLong());
    assertEquals(1, answer.at("/hits/hits/0/sort").size(), "no tie-breaker asked, none shown (as the node)");
  }

  @Test
  void anIndexUnmountedUnderAScrollEndsItNamingTheIndex() throws Exception {
    String id = search("idx-*", "{\"size\": 100, \"sort\": [\"_doc\"]}", Map.of("scroll", "1m"))
        .get("_scroll_id").asText();
    api.scroll(id, null);
    catalog.unmount("idx-b-s1");
    DslException e = assertThrows(DslException.class, () -> api.scroll(id, "1m"));
    assertEquals(404, e.status());
    assertEquals("search_context_missing_exception", e.rootCauseType());
    assertTrue(e.getMessage().contains("[idx-b]"), e.getMessage());
    DslException ended = assertThrows(DslException.class, () -> api.scroll(id, "1m"));
    assertTrue(ended.getMessage().startsWith("No search context found"), ended.getMessage());
  }

  @Test
  void anIndexMountedAgainFromAnotherSnapshotEndsAPointInTime() throws Exception {
    String id = api.openPointInTime("idx-c", Map.of("keep_alive", "1m")).get("id").asText();
    String body = "{\"size\": 5, \"pit\": {\"id\": \"" + id + "\"}, \"sort\": [{\"n\": \"asc\"}]}";
    assertEquals(5, search(null, body, Map.of()).at("/hits/hits").size());
    catalog.unmount("idx-c-s0");
    write("idx-c-s0", "idx-c", 4, 10, new Random(1), "other-idx-c");
    catalog.mount("idx-c-s0", repo, "other-idx-c");
    DslException e = assertThrows(DslException.class, () -> search(null, body, Map.of()));
    assertEquals(404, e.status());
    assertTrue(e.getMessage().contains("index [idx-c]") && e.getMessage().contains("other-idx-c"), e.getMessage());
  }

  @Test
  void keepAlivesLapseAndAreExtendedOnTheClock() throws Exception {
    String id = search("idx-c", "{\"size\": 1}", Map.of("scroll", "1m")).get("_scroll_id").asText();
    clock.addAndGet(59_000);
    ObjectNode kept = api.scroll(id, "2m"); // open two minutes more from now
    assertEquals(1, kept.at("/hits/hits").size());
    clock.addAndGet(119_000);
    assertFalse(api.scroll(id, null).has("_scroll_id"), "no keep-alive asked: no id, as the node answers");
    clock.addAndGet(120_001); // the last keep-alive, two minutes, from the last read
    DslException lapsed = assertThrows(DslException.class, () -> api.scroll(id, "1m"));
    assertEquals(404, lapsed.status());
    String pit = api.openPointInTime("idx-c", Map.of("keep_alive", "10s")).get("id").asText();
    clock.addAndGet(10_001);
    assertEquals(404, assertThrows(DslException.class,
        () -> search(null, "{\"pit\": {\"id\": \"" + pit + "\"}}", Map.of())).status());
    assertEquals(400, assertThrows(DslException.class,
        () -> api.openPointInTime("idx-c", Map.of("keep_alive", "2d"))).status());
  }

  @Test
  void clearingScrollsAnswersAsTheNode() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(search("idx-a", "{\"size\": 1}", Map.of("scroll", "1m")).get("_scroll_id").asText());
    }
    SearchApi.Closed two = api.clearScroll(ids.subList(0, 2));
    assertEquals(200, two.status());
    assertEquals("{\"succeeded\":true,\"num_freed\":4}", two.body().toString(), "two scrolls of two shards each");
    SearchApi.Closed none = api.clearScroll(List.of(ids.get(0)));
    assertEquals(404, none.status());
    assertEquals("{\"succeeded\":true,\"num_freed\":0}", none.body().toString());
    assertEquals(200, api.clearScroll(List.of("_all")).status());
    assertEquals(0, api.openCursors());
    assertEquals(400, assertThrows(DslException.class, () -> api.clearScroll(List.of("garbage"))).status());
  }

  @Test
  void requestsTheNodeRefusesInAScrollOrPointInTimeAreRefused() throws Exception {
    for (String body : List.of("{\"from\": 3}", "{\"size\": 0}", "{\"sort\": [{\"n\": \"asc\"}], \"search_after\": [1]}",
        "{\"track_total_hits\": false}")) {
      DslException e = assertThrows(DslException.class, () -> search("idx-c", body, Map.of("scroll", "1m")), body);
      assertEquals("action_request_validation_exception", e.type(), body);
    }
    assertEquals(400, assertThrows(DslException.class, () -> search("idx-c", "{}", Map.of("scroll", "bad"))).status());
    String pit = api.openPointInTime("idx-c", Map.of("keep_alive", "1m")).get("id").asText();
    String body = "{\"pit\": {\"id\": \"" + pit + "\"}}";
    assertEquals("action_request_validation_exception", assertThrows(DslException.class,
        () -> search("idx-c", body, Map.of())).type(), "no index with a point in time");
    assertEquals("action_request_validation_exception", assertThrows(DslException.class,
        () -> search(null, body, Map.of("scroll", "1m"))).type());
    assertEquals(400, assertThrows(DslException.class, () -> search(null, "{\"pit\": {}}", Map.of())).status());
    assertEquals(400, assertThrows(DslException.class, () -> api.openPointInTime("idx-c", Map.of())).status());
    DslException filter = assertThrows(DslException.class, () -> api.openPointInTime("idx-c",
        JSON.readTree("{\"index_filter\": {\"match_all\": {}}}"), Map.of("keep_alive", "1m")));
    assertTrue(filter.getMessage().contains("[index_filter]"), filter.getMessage());
    assertEquals(404, assertThrows(DslException.class,
        () -> api.openPointInTime("nope", Map.of("keep_alive", "1m"))).status());
    DslException scrollId = assertThrows(DslException.class, () -> search(null, "{\"pit\": {\"id\": \""
        + search("idx-c", "{}", Map.of("scroll", "1m")).get("_scroll_id").asText() + "\"}}", Map.of()));
    assertEquals(400, scrollId.status(), "a scroll id is not a point in time's");
  }

  /**
   * 10,000 scrolls left open hold no lease on any shard (a cursor is a position, not a reader), and the heap they
   * hold is measured and printed (docs/elasticsearch-api.md gives the number; no verdict depends on it).
   */
  @Test
  void tenThousandOpenScrollsHoldNoReader() throws Exception {
    search("idx-*", "{\"size\": 1}", Map.of("scroll", "1m")); // readers opened once, as any search opens them
    long before = usedHeapAfterGc();
    List<String> ids = new ArrayList<>(10_000);
    for (int i = 0; i < 10_000; i++) {
      ids.add(search("idx-*", "{\"size\": 1, \"sort\": [\"_doc\"], \"_source\": false}", Map.of("scroll", "5m"))
          .get("_scroll_id").asText());
    }
    long after = usedHeapAfterGc();
    assertEquals(10_001, api.openCursors());
    for (MountInfo info : catalog.list()) {
      assertEquals(0, info.leases(), info.name() + " is leased while only cursors are open");
    }
    assertTrue(catalog.stats().open() <= 5, "readers open: at most one per shard, whatever the cursors: "
        + catalog.stats().open());
    System.out.printf("ScrollAndPointInTimeTest: 10,000 open scrolls over 5 shards hold about %d bytes of heap"
        + " (%d per scroll)%n", after - before, (after - before) / 10_000);
    assertEquals(1, ids.stream().distinct().count() == ids.size() ? 1 : 0, "every id is new");
    assertEquals(200, api.clearScroll(List.of("_all")).status());
    assertEquals(0, api.openCursors());
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  @Test
  void everyDocumentIsInTheOracle() {
    Set<String> ids = new HashSet<>();
    docs.forEach(d -> ids.add(d.id()));
    assertEquals(12_500, ids.size());
  }
}
