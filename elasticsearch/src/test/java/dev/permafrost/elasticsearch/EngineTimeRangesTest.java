/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.catalog.SkipReason;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.util.NumericUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An engine's shard, mounted, records the range of its date fields' points, which the engine's snapshot does not
 * ({@link EngineSnapshotRepository#checkAndKeep}): over the fixtures' real snapshots, each shard's recorded
 * {@code @timestamp} range is the least and greatest of its documents' values as its doc values hold them (read
 * apart from the points), its other fields none; and a time range that one shard cannot match skips it unopened,
 * with the same answer as a search of every shard.
 */
class EngineTimeRangesTest {
  @TempDir Path tmp;
  SharedRegionCache cache;
  Catalog catalog;

  @BeforeEach
  void open() throws Exception {
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
    cache.close();
  }

  static Stream<EngineFixture> readable() {
    return EngineFixtureSnapshotsTest.readable();
  }

  @ParameterizedTest
  @MethodSource("readable")
  void aShardRecordsItsTimeRangeAndARangeOutsideItSkipsIt(EngineFixture engine) throws Exception {
    for (MountInfo shard : mountAndCheckRanges(engine)) {
      assertTrue(shard.keptHeapBytes() > 0, engine + " " + shard.name() + " keeps what opening it read");
    }
  }

  /**
   * The same with a catalog whose mounts may keep nothing ({@code maxKeptHeap}): the shards keep none of what opening
   * them read, and still record their ranges, which skip the same shard.
   */
  @ParameterizedTest
  @MethodSource("readable")
  void aShardPastTheCatalogsBoundOnKeptBytesStillRecordsItsTimeRange(EngineFixture engine) throws Exception {
    catalog.close();
    catalog = Catalog.builder(cache).maxKeptHeap("1b").build();
    for (MountInfo shard : mountAndCheckRanges(engine)) {
      assertEquals(0, shard.keptHeapBytes(), engine + " " + shard.name() + ": past the bound, nothing kept");
    }
  }

  /** Mounts two indices of {@code engine}'s fixture, checks what their shards record and a search by it; the shards. */
  private List<MountInfo> mountAndCheckRanges(EngineFixture engine) throws Exception {
    Path fixture = engine.ensure();
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"),
        false));
    List<MountInfo> shards = new ArrayList<>();
    // snap-1: no document deleted or updated yet, so every value the points hold is a live document's
    for (String index : List.of("logs-a", "logs-b")) {
      shards.addAll(repository.mount(catalog, index, "snap-1", index));
    }
    assertEquals(4, shards.size(), engine + ": two shards each");
    for (MountInfo shard : shards) {
      String what = engine + " " + shard.name();
      PointRange recorded = shard.pointRanges().get("@timestamp");
      assertNotNull(recorded, what + " records its @timestamp range: " + shard.pointRanges());
      assertEquals(Map.of("@timestamp", recorded), shard.pointRanges(), what + ": only date fields are recorded");
      assertEquals(1, recorded.numDimensions(), what);
      assertEquals(Long.BYTES, recorded.bytesPerDimension(), what);
      long[] minMaxCount = valuesOf(shard.name());
      assertEquals(minMaxCount[0], NumericUtils.sortableBytesToLong(recorded.minPackedValue(), 0), what + " min");
      assertEquals(minMaxCount[1], NumericUtils.sortableBytesToLong(recorded.maxPackedValue(), 0), what + " max");
      assertEquals(minMaxCount[2], recorded.docCount(), what + " documents with a value");
    }

    // the range after the shard that ends first: that shard cannot match it, the others can
    MountInfo first = shards.stream().min(Comparator.comparingLong(EngineTimeRangesTest::max)).orElseThrow();
    long from = max(first) + 1;
    assertTrue(shards.stream().anyMatch(s -> max(s) >= from), engine + ": the shards' ranges differ at their ends");
    Query after = LongPoint.newRangeQuery("@timestamp", from, Long.MAX_VALUE);
    Sort byTime = new Sort(new MappedQueryParser(repository.indexMetadata("snap-1", "logs-a").mapping())
        .sortField("@timestamp", true));
    SearchResponse skipping = catalog.search(SearchRequest.builder(after).indices("logs-*").size(20)
        .sort(byTime).exactTotalHits(true).fields(EngineDocuments.ID).build());
    SearchResponse every = catalog.search(SearchRequest.builder(after).indices("logs-*").size(20)
        .sort(byTime).exactTotalHits(true).fields(EngineDocuments.ID).searchEveryIndex(true).build());
    assertEquals(SkipReason.CANNOT_MATCH, skipping.skipReasons().get(first.name()), engine + ": " + skipping.skipReasons());
    assertFalse(skipping.searched().contains(first.name()), engine.toString());
    assertNull(every.skipReasons().get(first.name()), engine + " searchEveryIndex: " + every.skipReasons());
    assertEquals(every.totalHits(), skipping.totalHits(), engine.toString());
    assertTrue(skipping.totalHits().value() > 0, engine.toString());
    assertEquals(ids(every), ids(skipping), engine.toString());

    // a search with no range is never skipped by ranges
    SearchResponse all = catalog.search(SearchRequest.builder(new MatchAllDocsQuery()).indices("logs-*").size(1)
        .exactTotalHits(true).build());
    assertTrue(all.skipped().isEmpty(), engine + ": " + all.skipReasons());
    return shards;
  }

  private static long max(MountInfo shard) {
    return NumericUtils.sortableBytesToLong(shard.pointRanges().get("@timestamp").maxPackedValue(), 0);
  }

  private static List<String> ids(SearchResponse response) {
    return response.hits().stream().map(h -> EngineDocuments.id(h.document())).toList();
  }

  /** The least and greatest {@code @timestamp} of the shard's documents by their doc values, and how many have one. */
  private long[] valuesOf(String shard) throws Exception {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long count = 0;
    try (Lease lease = catalog.acquire(shard)) {
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        SortedNumericDocValues values = DocValues.getSortedNumeric(leaf.reader(), "@timestamp");
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
          count++;
          for (int i = 0; i < values.docValueCount(); i++) {
            long v = values.nextValue();
            min = Math.min(min, v);
            max = Math.max(max, v);
          }
        }
      }
    }
    return new long[] {min, max, count};
  }
}
