/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the official clients found to differ from a 9.3.3 node's answers (the examples' client suites), answered as
 * the node answers (its answers, read from a live node, are the expectations): {@code _field_caps} lists the metadata
 * fields a pattern matches, and reads a body's string as one pattern; a missing index's 404 names the index.
 */
class SearchApiFieldCapsAndErrorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;
  private SharedRegionCache cache;
  private Catalog catalog;
  private SearchApi api;

  @BeforeEach
  void setUp() throws Exception {
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    IndexMapping mapping = IndexMapping.of(JSON.readTree("{\"properties\": {\"host\": {\"type\": \"keyword\"},"
        + " \"user\": {\"properties\": {\"name\": {\"type\": \"keyword\"}}}}}"));
    Map<String, SearchApi.Index> indices = Map.of("logs-a", new SearchApi.Index("logs-a", List.of(), mapping));
    api = new SearchApi(catalog, () -> indices); // no field caps or refusal here searches, so nothing is mounted
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    cache.close();
  }

  private List<String> fields(JsonNode caps) {
    List<String> names = new ArrayList<>();
    caps.get("fields").fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void everyPatternThatMatchesAMetadataFieldListsItAsTheNodeDoes() {
    JsonNode all = api.fieldCaps("logs-*", "*", Map.of());
    assertEquals(List.of("_data_stream_timestamp", "_doc_count", "_field_names", "_id", "_ignored", "_ignored_source",
        "_index", "_index_mode", "_nested_path", "_routing", "_seq_no", "_source", "_version", "host", "user",
        "user.name"), fields(all));
    assertEquals("{\"type\":\"integer\",\"metadata_field\":true,\"searchable\":false,\"aggregatable\":false}",
        all.at("/fields/_doc_count/integer").toString());
    assertEquals("{\"type\":\"_id\",\"metadata_field\":true,\"searchable\":true,\"aggregatable\":false}",
        all.at("/fields/_id/_id").toString());
    assertEquals("{\"type\":\"_version\",\"metadata_field\":true,\"searchable\":false,\"aggregatable\":true}",
        all.at("/fields/_version/_version").toString());
    assertEquals(false, all.at("/fields/host/keyword/metadata_field").asBoolean(true));
    assertEquals(List.of("_id", "_ignored", "_ignored_source", "_index", "_index_mode"),
        fields(api.fieldCaps("logs-*", "_i*", Map.of())));
    assertEquals(List.of("user", "user.name"), fields(api.fieldCaps("logs-*", "user.*", Map.of())));
    assertEquals(List.of(), fields(api.fieldCaps("nothing-*", "*", Map.of())), "no index, no metadata field either");
  }

  @Test
  void aBodysStringIsOnePatternCommasAndAll() {
    assertEquals(List.of(), fields(api.fieldCaps("logs-*", List.of("user.*,host"), Map.of())));
    assertEquals(List.of("host", "user", "user.name"), fields(api.fieldCaps("logs-*", List.of("user.*", "host"),
        Map.of())));
    assertEquals(List.of("host", "user", "user.name"), fields(api.fieldCaps("logs-*", "user.*, host", Map.of())),
        "the URL's list is split");
  }

  @Test
  void aMissingIndexsErrorNamesIt() throws Exception {
    DslException e = assertThrows(DslException.class, () -> api.search("nope", JSON.readTree("{}"), Map.of()));
    String cause = "{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\",\"resource.type\":"
        + "\"index_or_alias\",\"resource.id\":\"nope\",\"index_uuid\":\"_na_\",\"index\":\"nope\"";
    assertEquals("{\"error\":{\"root_cause\":[" + cause + "}]," + cause.substring(1) + "},\"status\":404}",
        SearchApi.error(e).toString());
    DslException other = DslException.illegalArgument("not an index");
    assertEquals(Map.of(), other.metadata());
    assertEquals(false, SearchApi.error(other).get("error").has("index"), "only a missing index is named so");
  }
}
