/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchCost;
import dev.permafrost.catalog.SearchObserver;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.TsdbFixture;
import dev.permafrost.store.ColumnPrefetch;
import dev.permafrost.store.ReadCost;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A column of an engine's logsdb index that {@link ColumnPrefetch} names, or an aggregation of the Elasticsearch API
 * reads, is fetched whole in one wave, although the TSDB doc-values reader reads its value blocks through a sequential
 * slice: {@code logs-host} of the Elasticsearch 9.3.3 fixture ({@link TsdbFixture}: 3,000 documents in one segment,
 * {@code ES819TSDB}), whose {@code latency} (random doubles) is about 21 KB of doc values, read through caches of 4 KiB
 * regions so that the column spans several; and a term's postings are asked for as soon as its state is taken.
 * Counts are of store requests and of waves by dependency
 * ({@link ReadCost#waves()}), never of time.
 */
class EngineColumnPrefetchTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int REGION = 4 << 10;
  private static final String SHARD = EngineSnapshotRepository.shard("snap-2", "logs-host", 0);
  private static final int DOCS = 3000;
  @TempDir static Path tmp;
  static Path fixture;
  static JsonNode answers;

  @BeforeAll
  static void fixture() throws Exception {
    Assumptions.assumeTrue(readsNode(EngineFixture.ELASTICSEARCH_93), "the Lucene on the class path reads 9.3.3's");
    fixture = EngineFixture.ELASTICSEARCH_93.ensure();
    answers = JSON.readTree(fixture.resolve("answers.json").toFile()).path("tsdb").path("snap-2").path("logs-host");
    assertEquals(DOCS, answers.path("count").asInt());
    // the column spans several regions of the caches below: else there would be nothing to fetch in one wave
    long latencyBytes = answers.path("disk_usage").path("latency").path("doc_values").asLong();
    assertTrue(latencyBytes > 4 * REGION, "latency's doc values: " + latencyBytes + " bytes");
  }

  private static boolean readsNode(EngineFixture engine) {
    try {
      return Version.LATEST.onOrAfter(Version.parse(engine.luceneVersion()));
    } catch (ParseException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A cache of {@code regions} regions of 4 KiB. */
  private static SharedRegionCache cache(String name, int regions) throws IOException {
    return SharedRegionCache.builder().path(tmp.resolve(name)).size((long) regions * REGION).regionSize(REGION)
        .tailRegionSize(REGION).directReadHeapBytes(64 << 20).build();
  }

  /** The repository of the fixture through {@code store}, with {@code logs-host} mounted in {@code catalog}. */
  private static void mount(Catalog catalog, CountingBlobStore store) throws IOException {
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(store);
    catalog.mount("logs-host", repository, SHARD);
  }

  private static CountingBlobStore store() throws IOException {
    return new CountingBlobStore(FileSystemBlobStore.open(fixture.resolve("repo"), false));
  }

  @Test
  void aColumnNamedByColumnPrefetchIsFetchedInOneWaveAndReadWithNoFurtherRequest() throws Exception {
    CountingBlobStore store = store();
    try (SharedRegionCache cache = cache("cold", 16 << 10); Catalog catalog = Catalog.builder(cache).build()) {
      mount(catalog, store);
      try (Lease lease = catalog.acquire("logs-host")) {
        assertEquals(1, lease.reader().leaves().size());
        LeafReader leaf = lease.reader().leaves().get(0).reader();
        assertPrefetchedInOneWave(cache, store, leaf, "cold cache");
      }
    }
  }

  /**
   * A cache of 8 regions, all held by a prefetch no reader has come for yet (two other columns, more than 8 regions):
   * the column is not admitted, and is read directly from the store for the collector's thread, still in one wave.
   */
  @Test
  void aColumnTheCacheDoesNotAdmitIsReadDirectlyInOneWave() throws Exception {
    CountingBlobStore store = store();
    try (SharedRegionCache cache = cache("tiny", 8); Catalog catalog = Catalog.builder(cache).build()) {
      mount(catalog, store);
      try (Lease lease = catalog.acquire("logs-host")) {
        LeafReader leaf = lease.reader().leaves().get(0).reader();
        Waits.awaitNoFetch(cache);
        ColumnPrefetch.prefetch(leaf, "bits", "client_ip"); // outside any work: held until their reader comes
        Waits.awaitNoFetch(cache);
        assertEquals(cache.stats().regions(), cache.stats().regionsInUse(), "every region held: " + cache.stats());
        long directBefore = cache.stats().total().directReads();
        assertPrefetchedInOneWave(cache, store, leaf, "a cache of 8 regions");
        assertTrue(cache.stats().total().directReads() > directBefore, "read directly from the store: "
            + cache.stats());
      }
    }
  }

  /**
   * A term's postings ({@code ES812Postings}) are asked for as soon as a query takes the term's state (as
   * {@code TermStates} does when the query is weighted or its scorer planned), not when the scorer reads them: a
   * round trip earlier on a cold cache, beside whatever the query looks up meanwhile. {@code service}, one value in
   * every document: a list of blocks with skip data, read with no request after the state was taken.
   */
  @Test
  void aTermsPostingsAreAskedForAsItsStateIsTakenAndReadWithNoFurtherRequest() throws Exception {
    long[] unasked = readPostings(false);
    long[] asked = readPostings(true);
    System.out.printf("service's postings: %d requests as they are read; %d as the state is taken, then %d%n",
        unasked[1], asked[0], asked[1]);
    assertTrue(unasked[1] >= 1, "read cold, the postings cost a request of their own");
    assertEquals(unasked[1], asked[0], "asked for as the state is taken");
    assertEquals(0, asked[1], "and read with no request of their own");
  }

  /**
   * Through a cold cache: looks {@code service}'s one term up, empties the cache (this index is small: the fill that
   * brought the term's block brought its postings too), takes the term's state ({@code state}) or not, then reads its
   * postings, checking their count; the requests made as the state was taken, and as the postings were read.
   */
  private static long[] readPostings(boolean state) throws Exception {
    CountingBlobStore store = store();
    try (SharedRegionCache cache = cache("postings-" + state, 16 << 10); Catalog catalog = Catalog.builder(cache).build()) {
      mount(catalog, store);
      try (Lease lease = catalog.acquire("logs-host")) {
        LeafReader leaf = lease.reader().leaves().get(0).reader();
        TermsEnum terms = leaf.terms("service").iterator();
        assertTrue(terms.seekExact(new BytesRef(TsdbFixture.SERVICE)));
        assertEquals(DOCS, terms.docFreq());
        Waits.awaitNoFetch(cache);
        cache.clear(); // the term's block is decoded; what looking it up fetched around it (its postings too) is gone
        store.reset();
        if (state) {
          terms.termState();
        }
        Waits.awaitNoFetch(cache);
        long taken = store.readRequests.get();
        PostingsEnum docs = terms.postings(null, PostingsEnum.NONE);
        int n = 0;
        for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
          n++;
        }
        assertEquals(DOCS, n);
        return new long[] {taken, store.readRequests.get() - taken};
      }
    }
  }

  /**
   * Prefetches {@code latency}, then reads every value: no request after the prefetch's, which were one wave, and
   * every value the one the generator gave the node.
   */
  private static void assertPrefetchedInOneWave(SharedRegionCache cache, CountingBlobStore store, LeafReader leaf,
      String what) throws Exception {
    Waits.awaitNoFetch(cache);
    store.reset();
    ReadCost cost = new ReadCost();
    long[] latency;
    long prefetched;
    try (ReadCost.Scope scope = ReadCost.attach(cost)) {
      ColumnPrefetch.prefetch(leaf, "latency");
      Waits.awaitNoFetch(cache);
      prefetched = store.readRequests.get();
      latency = readAll(leaf, "latency");
    }
    long after = store.readRequests.get();
    System.out.printf("%s: latency prefetched in %d requests (%d bytes), %d waves; %d requests after%n", what,
        prefetched, store.bytesRead.get(), cost.waves(), after - prefetched);
    assertEquals(prefetched, after, what + ": every value was fetched ahead");
    assertEquals(1, cost.waves(), what + ": the column in one wave, " + prefetched + " requests");
    assertTrue(store.bytesRead.get() > 4 * REGION, what + ": the column's bytes, " + store.bytesRead.get());
    long[] seq = readAll(leaf, "seq");
    for (int doc = 0; doc < DOCS; doc++) {
      double want = JSON.readTree(TsdbFixture.logsDocument((int) seq[doc], 0)).path("latency").asDouble();
      assertEquals(want, NumericUtils.sortableLongToDouble(latency[doc]), "doc " + doc + ", seq " + seq[doc]);
    }
  }

  /** Every document's one value of {@code field}. */
  private static long[] readAll(LeafReader leaf, String field) throws IOException {
    SortedNumericDocValues values = leaf.getSortedNumericDocValues(field);
    long[] out = new long[leaf.maxDoc()];
    for (int doc = 0; doc < out.length; doc++) {
      assertTrue(values.advanceExact(doc), field + " of doc " + doc);
      assertEquals(1, values.docValueCount());
      out[doc] = values.nextValue();
    }
    return out;
  }

  /** Every document's ordinals of {@code field}, in one sum (read, not kept). */
  private static long readOrdinals(LeafReader leaf, String field) throws IOException {
    SortedSetDocValues values = leaf.getSortedSetDocValues(field);
    long sum = 0;
    for (int doc = values.nextDoc(); doc != SortedSetDocValues.NO_MORE_DOCS; doc = values.nextDoc()) {
      for (int i = 0; i < values.docValueCount(); i++) {
        sum += values.nextOrd();
      }
    }
    return sum;
  }

  /**
   * 9.5's {@code ES95TSDB} (each numeric field a pipeline of stages, read through the same value slices): a gauge of
   * random bit patterns (ALP keeps none of them) and a sparse gauge (its set of documents with a value is a column
   * too) of {@code ts95-blocks128} (one segment), named together, are read with no request after theirs, which are one
   * wave; their values are those read through a cold cache without naming them.
   */
  @Test
  void es95TsdbColumnsAreFetchedInOneWave() throws Exception {
    Assumptions.assumeTrue(readsNode(EngineFixture.ELASTICSEARCH_95), "the Lucene on the class path reads 9.5.3's");
    Path fixture95 = EngineFixture.ELASTICSEARCH_95.ensure();
    String shard = EngineSnapshotRepository.shard("snap-ts95", "ts95-blocks128", 0);
    List<String> fields = List.of("gauge_wild", "sparse_gauge");
    List<List<Long>> named = new ArrayList<>();
    List<List<Long>> unnamed = new ArrayList<>();
    for (boolean name : new boolean[] {true, false}) {
      CountingBlobStore store = new CountingBlobStore(FileSystemBlobStore.open(fixture95.resolve("repo"), false));
      try (SharedRegionCache cache = cache("es95-" + name, 16 << 10); Catalog catalog = Catalog.builder(cache).build()) {
        catalog.mount("ts95", EngineSnapshotRepository.open(store), shard);
        try (Lease lease = catalog.acquire("ts95")) {
          assertEquals(1, lease.reader().leaves().size());
          LeafReader leaf = lease.reader().leaves().get(0).reader();
          Waits.awaitNoFetch(cache);
          store.reset();
          ReadCost cost = new ReadCost();
          long prefetched;
          try (ReadCost.Scope scope = ReadCost.attach(cost)) {
            if (name) {
              ColumnPrefetch.prefetch(leaf, fields);
            }
            Waits.awaitNoFetch(cache);
            prefetched = store.readRequests.get();
            for (String field : fields) {
              (name ? named : unnamed).add(readEvery(leaf, field));
            }
          }
          System.out.printf("9.5 ES95TSDB %s, %s: %d requests before the reads, %d in all, %d waves%n", fields,
              name ? "named" : "not named", prefetched, store.readRequests.get(), cost.waves());
          if (name) {
            assertEquals(prefetched, store.readRequests.get(), "every value was fetched ahead");
            assertEquals(1, cost.waves());
          }
        }
      }
    }
    assertEquals(unnamed, named);
    assertTrue(named.get(1).size() < named.get(0).size(), "sparse_gauge is sparse: " + named.get(1).size());
  }

  /** Every value of {@code field}, document after document. */
  private static List<Long> readEvery(LeafReader leaf, String field) throws IOException {
    SortedNumericDocValues values = leaf.getSortedNumericDocValues(field);
    List<Long> out = new ArrayList<>();
    for (int doc = values.nextDoc(); doc != SortedNumericDocValues.NO_MORE_DOCS; doc = values.nextDoc()) {
      for (int i = 0; i < values.docValueCount(); i++) {
        out.add(values.nextValue());
      }
    }
    return out;
  }

  /**
   * A keyword's ordinals are fetched whole, its terms dictionary, larger than they are ({@code client_ip}: a term per
   * few documents), is not (looked up term by term as a collector asks): reading every ordinal makes no request,
   * looking up their terms does.
   */
  @Test
  void aKeywordsOrdinalsAreFetchedWholeButNotItsTermsDictionary() throws Exception {
    CountingBlobStore store = store();
    try (SharedRegionCache cache = cache("terms", 16 << 10); Catalog catalog = Catalog.builder(cache).build()) {
      mount(catalog, store);
      try (Lease lease = catalog.acquire("logs-host")) {
        LeafReader leaf = lease.reader().leaves().get(0).reader();
        Waits.awaitNoFetch(cache);
        store.reset();
        ReadCost cost = new ReadCost();
        try (ReadCost.Scope scope = ReadCost.attach(cost)) {
          ColumnPrefetch.prefetch(leaf, "client_ip");
          Waits.awaitNoFetch(cache);
        }
        long prefetched = store.readRequests.get();
        long ordinals = readOrdinals(leaf, "client_ip");
        assertEquals(prefetched, store.readRequests.get(), "every ordinal was fetched ahead");
        assertEquals(1, cost.waves(), "the ordinals in one wave");
        SortedSetDocValues values = leaf.getSortedSetDocValues("client_ip");
        assertTrue(values.getValueCount() > 1000, "many terms: " + values.getValueCount());
        List<Long> ords = new ArrayList<>();
        for (long ord = 0; ord < values.getValueCount(); ord++) {
          ords.add(ord);
        }
        Collections.shuffle(ords, new java.util.Random(ordinals));
        for (long ord : ords) {
          assertTrue(values.lookupOrd(ord).length > 0);
        }
        System.out.printf("client_ip: ordinals prefetched in %d requests; the terms looked up in %d more%n",
            prefetched, store.readRequests.get() - prefetched);
        assertTrue(store.readRequests.get() > prefetched, "the terms dictionary was not fetched with the ordinals");
      }
    }
  }

  /**
   * A keyword of few values ({@code region}, {@code tags}) has a terms dictionary no larger than its ordinals: named to
   * {@link ColumnPrefetch}, it is fetched with them, in their one wave, and looking up the term of every document's
   * ordinal (what a terms aggregation does for its buckets) makes no further request; on a mount where it is not
   * named, the same lookups make requests.
   */
  @Test
  void aSmallTermsDictionaryIsFetchedWithItsOrdinals() throws Exception {
    for (String field : List.of("region", "tags")) { // single-valued and multi-valued
      long[] named = lookUpEveryTerm("named-" + field, field, true);
      long[] unnamed = lookUpEveryTerm("unnamed-" + field, field, false);
      System.out.printf("%s: named, %d requests in %d waves, then %d looking its terms up; unnamed, %d looking them"
          + " up%n", field, named[0], named[1], named[2], unnamed[2]);
      assertEquals(0, named[2], field + ": the terms dictionary was fetched with the ordinals");
      assertEquals(1, named[1], field + ": the ordinals and the terms in one wave");
      assertTrue(unnamed[2] > 0, field + ": unnamed, looking the terms up reads them from the store");
    }
  }

  /**
   * On a fresh cache and mount, names {@code field} to {@link ColumnPrefetch} (or not), then reads every document's
   * ordinals and looks up their terms: the requests and waves of the prefetch, and the requests after it.
   */
  private static long[] lookUpEveryTerm(String cacheName, String field, boolean name) throws Exception {
    CountingBlobStore store = store();
    try (SharedRegionCache cache = cache(cacheName, 16 << 10); Catalog catalog = Catalog.builder(cache).build()) {
      mount(catalog, store);
      try (Lease lease = catalog.acquire("logs-host")) {
        LeafReader leaf = lease.reader().leaves().get(0).reader();
        Waits.awaitNoFetch(cache);
        store.reset();
        ReadCost cost = new ReadCost();
        if (name) {
          try (ReadCost.Scope scope = ReadCost.attach(cost)) {
            ColumnPrefetch.prefetch(leaf, field);
            Waits.awaitNoFetch(cache);
          }
        }
        long prefetched = store.readRequests.get();
        SortedSetDocValues values = leaf.getSortedSetDocValues(field);
        assertTrue(values.getValueCount() > 1 && values.getValueCount() < 100, "few terms: " + values.getValueCount());
        java.util.Set<String> seen = new java.util.TreeSet<>();
        for (int doc = values.nextDoc(); doc != SortedSetDocValues.NO_MORE_DOCS; doc = values.nextDoc()) {
          for (int i = 0; i < values.docValueCount(); i++) {
            seen.add(values.lookupOrd(values.nextOrd()).utf8ToString());
          }
        }
        Waits.awaitNoFetch(cache);
        assertEquals(values.getValueCount(), seen.size(), "every term was some document's: " + seen);
        return new long[] {prefetched, cost.waves(), store.readRequests.get() - prefetched};
      }
    }
  }

  /**
   * A cold {@code stats} aggregation of the Elasticsearch API over {@code latency}: its collector names the column
   * when it starts on the segment, and the search reads it in one wave; the sum is the generator's.
   */
  @Test
  void anElasticsearchApiAggregationReadsItsColumnInOneWave() throws Exception {
    CountingBlobStore store = store();
    List<SearchCost> costs = Collections.synchronizedList(new ArrayList<>());
    SearchObserver observer = request -> (cost, failure) -> {
      if (cost != null) {
        costs.add(cost);
      }
    };
    try (SharedRegionCache cache = cache("api", 16 << 10);
        Catalog catalog = Catalog.builder(cache).searchObserver(observer).build()) {
      mount(catalog, store);
      EngineSnapshotRepository repository = EngineSnapshotRepository.open(store());
      IndexMapping mapping = repository.indexMetadata("snap-2", "logs-host").mapping();
      SearchApi api = new SearchApi(catalog,
          () -> Map.of("logs-host", new SearchApi.Index("logs-host", List.of("logs-host"), mapping)));
      Waits.awaitNoFetch(cache);
      store.reset();
      ObjectNode response = api.search("logs-host", JSON.readTree("""
          {"size": 0, "track_total_hits": true, "aggs": {"latency": {"stats": {"field": "latency"}}}}"""), Map.of());
      Waits.awaitNoFetch(cache);
      double sum = 0;
      for (int seq = 0; seq < DOCS; seq++) {
        sum += JSON.readTree(TsdbFixture.logsDocument(seq, 0)).path("latency").asDouble();
      }
      JsonNode stats = response.path("aggregations").path("latency");
      assertEquals(DOCS, stats.path("count").asLong(), response.toString());
      assertEquals(sum, stats.path("sum").asDouble(), 1e-6 * Math.abs(sum), response.toString());
      SearchCost cost = costs.get(costs.size() - 1);
      System.out.printf("stats over latency, cold: %s%n", cost.summary());
      assertEquals(1, cost.waves(), cost.summary());
      assertEquals(store.readRequests.get(), cost.storeRequests(), "every request the search's: " + cost.summary());
    }
  }
}
