/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Indices that map one field two ways ({@code f}: a keyword in {@code conflict-a}, a long in {@code conflict-b}) are
 * searched together, each by its own mapping, as a 9.3.3 node searches them (its answers to these very requests,
 * checked by hand on a live node, are the expectations): a query on another field, or on {@code f} itself, finds what
 * each index's own reading finds; a value one index cannot read fails that index's shard only; a sort or an
 * aggregation over {@code f}, which must see both alike, is refused as the node refuses it.
 */
class SearchApiIndicesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;
  private SharedRegionCache cache;
  private Catalog catalog;
  private SearchApi api;

  @BeforeEach
  void setUp() throws Exception {
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo")));
    try (ByteBuffersDirectory a = new ByteBuffersDirectory(); ByteBuffersDirectory b = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(a, new IndexWriterConfig())) {
        w.addDocument(doc("a1", keyword("f", "10"), keyword("g", "x")));
        w.addDocument(doc("a2", keyword("f", "abc"), keyword("g", "y")));
      }
      try (IndexWriter w = new IndexWriter(b, new IndexWriterConfig())) {
        w.addDocument(doc("b1", number("f", 10), keyword("g", "x")));
        w.addDocument(doc("b2", number("f", 7), keyword("g", "y")));
      }
      repo.createSnapshot("conflict-a", a);
      repo.createSnapshot("conflict-b", b);
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    catalog.mount("conflict-a", repo, "conflict-a");
    catalog.mount("conflict-b", repo, "conflict-b");
    Map<String, SearchApi.Index> indices = new LinkedHashMap<>();
    indices.put("conflict-a", new SearchApi.Index("conflict-a", List.of("conflict-a"), mapping("keyword")));
    indices.put("conflict-b", new SearchApi.Index("conflict-b", List.of("conflict-b"), mapping("long")));
    api = new SearchApi(catalog, () -> indices);
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    cache.close();
  }

  private static IndexMapping mapping(String typeOfF) throws Exception {
    return IndexMapping.of(JSON.readTree("{\"properties\": {\"f\": {\"type\": \"" + typeOfF + "\"}, \"g\": {\"type\":"
        + " \"keyword\"}}}"));
  }

  private static Document doc(String id, Field... fields) {
    Document d = new Document();
    d.add(new StoredField("_id", id)); // read back as the hit's id
    for (Field f : fields) {
      d.add(f);
    }
    return d;
  }

  private static Field keyword(String name, String value) {
    return new StringField(name, value, Field.Store.NO);
  }

  private static Field number(String name, long value) {
    return new LongPoint(name, value);
  }

  private ObjectNode search(String body) throws Exception {
    return api.search("conflict-*", JSON.readTree(body), Map.of());
  }

  /** The hits' indices, sorted. */
  private static TreeSet<String> found(JsonNode response) {
    TreeSet<String> out = new TreeSet<>();
    response.at("/hits/hits").forEach(h -> out.add(h.get("_index").asText() + "/" + h.get("_id").asText()));
    return out;
  }

  @Test
  void eachIndexIsQueriedByItsOwnMapping() throws Exception {
    ObjectNode other = search("{\"query\": {\"term\": {\"g\": \"x\"}}, \"_source\": false}");
    assertEquals(2, other.at("/hits/total/value").asInt(), other.toString());
    ObjectNode ten = search("{\"query\": {\"term\": {\"f\": \"10\"}}, \"_source\": false}");
    assertEquals(2, ten.at("/hits/total/value").asInt(), "the keyword 10 and the number 10: " + ten);
    assertEquals(2, found(ten).size());
    ObjectNode viaQueryString = search("{\"query\": {\"query_string\": {\"query\": \"f:10\"}}, \"_source\": false}");
    assertEquals(2, viaQueryString.at("/hits/total/value").asInt(), viaQueryString.toString());
    ObjectNode range = search("{\"query\": {\"range\": {\"f\": {\"gte\": 5}}}, \"_source\": false}");
    assertEquals(3, range.at("/hits/total/value").asInt(), "the keywords from \"5\" on and the numbers: " + range);
  }

  @Test
  void aValueOneIndexCannotReadFailsThatIndexOnly() throws Exception {
    ObjectNode word = search("{\"query\": {\"term\": {\"f\": \"abc\"}}, \"_source\": false}");
    assertEquals(1, word.at("/hits/total/value").asInt(), word.toString());
    assertEquals(2, word.at("/_shards/total").asInt());
    assertEquals(1, word.at("/_shards/failed").asInt(), word.toString());
    assertEquals("conflict-b", word.at("/_shards/failures/0/index").asText());
    // a value no index reads fails the search, as the node fails it
    DslException e = assertThrows(DslException.class, () -> api.search("conflict-b", JSON.readTree(
        "{\"query\": {\"term\": {\"f\": \"abc\"}}}"), Map.of()));
    assertEquals("search_phase_execution_exception", e.type());
    assertEquals("query_shard_exception", e.rootCauseType());
  }

  @Test
  void aSortOrAnAggregationOverNumbersOfTwoTypesIsRefusedNamingTheFieldAndItsTypes() throws Exception {
    // conflict-b's shard again, read as an integer field's: numbers of two types, which a node merges by widening
    Map<String, SearchApi.Index> numbers = Map.of(
        "long", new SearchApi.Index("long", List.of("conflict-b"), mapping("long")),
        "int", new SearchApi.Index("int", List.of("conflict-b"), mapping("integer")));
    SearchApi both = new SearchApi(catalog, () -> numbers);
    DslException e = assertThrows(DslException.class, () -> both.search("long,int",
        JSON.readTree("{\"sort\": [{\"f\": \"asc\"}]}"), Map.of()));
    assertEquals(400, e.status());
    assertEquals("illegal_argument_exception", e.type());
    assertTrue(e.getMessage().contains("[sort] on [f], mapped as [long, integer]")
        || e.getMessage().contains("[sort] on [f], mapped as [integer, long]"), e.getMessage());
    assertTrue(e.getMessage().contains("not supported by Permafrost"), e.getMessage());
    DslException aggs = assertThrows(DslException.class, () -> both.search("long,int",
        JSON.readTree("{\"size\": 0, \"aggs\": {\"m\": {\"max\": {\"field\": \"f\"}}}}"), Map.of()));
    assertEquals("illegal_argument_exception", aggs.type());
    assertTrue(aggs.getMessage().contains("aggregation [m] over [f]"), aggs.getMessage());
  }

  @Test
  void sortsAndAggregationsOverTheFieldMappedTwoWaysAreRefusedAsTheNodeRefusesThem() {
    DslException sort = assertThrows(DslException.class, () -> search("{\"sort\": [{\"f\": \"asc\"}]}"));
    assertEquals("search_phase_execution_exception", sort.type());
    assertTrue(sort.getMessage().contains("Can't sort on field [f]; the field has incompatible sort types: [STRING]"
        + " and [LONG] across shards!"), sort.getMessage());
    JsonNode body = SearchApi.error(sort);
    assertEquals(0, body.at("/error/root_cause").size(), body.toString());
    assertEquals("illegal_argument_exception", body.at("/error/caused_by/type").asText());
    DslException aggs = assertThrows(DslException.class, () -> search("{\"size\": 0, \"aggs\": {\"t\": {\"terms\":"
        + " {\"field\": \"f\"}}}}"));
    assertTrue(aggs.getMessage().contains("computing the aggregation [t] because the field you gave in the aggregation"
        + " query existed as two different types in two different indices"), aggs.getMessage());
  }

  @Test
  void aPatternThatMatchesNoIndexAnswersEmptyWhateverItSortsOrAggregates() throws Exception {
    ObjectNode none = api.search("nothing-*", JSON.readTree("{\"sort\": [{\"host\": \"asc\"}], \"aggs\": {\"h\":"
        + " {\"terms\": {\"field\": \"host\"}}}}"), Map.of());
    assertEquals(0, none.at("/hits/total/value").asInt());
    assertEquals(0, none.at("/_shards/total").asInt());
    assertTrue(none.at("/hits/hits").isEmpty());
    assertTrue(!none.has("aggregations"), none.toString());
    assertEquals(0, api.count("nothing-*", JSON.readTree("{\"query\": {\"term\": {\"host\": \"x\"}}}"), Map.of())
        .get("count").asInt());
    ObjectNode counted = api.count("conflict-*", JSON.readTree("{\"query\": {\"term\": {\"f\": \"abc\"}}}"), Map.of());
    assertEquals(1, counted.get("count").asInt(), counted.toString());
    assertEquals(1, counted.at("/_shards/failed").asInt(), counted.toString());
  }
}
