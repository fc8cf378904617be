/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.snapshot.SnapshotException;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a snapshot recorded of one index: its name, shard count, settings and mapping.
 *
 * @param name the index's name
 * @param shards its number of primary shards
 * @param settings its settings, flattened ({@code index.number_of_shards} and so on)
 * @param mapping its mapping
 */
public record IndexMetadata(String name, int shards, Map<String, String> settings, IndexMapping mapping) {
  static IndexMetadata of(String index, JsonNode tree, String where) throws SnapshotException {
    JsonNode body = tree.get(index);
    if (body == null && tree.size() == 1) {
      body = tree.elements().next();
    }
    if (body == null || !body.isObject()) {
      throw new SnapshotException.CorruptManifest(where + " holds no metadata of index '" + index + "'", null);
    }
    Map<String, String> settings = new LinkedHashMap<>();
    flatten("", body.path("settings"), settings);
    String shards = settings.get("index.number_of_shards");
    if (shards == null || !shards.matches("\\d{1,5}")) {
      throw new SnapshotException.CorruptManifest(where + " records no shard count (index.number_of_shards) for index '"
          + index + "'", null);
    }
    JsonNode mappings = body.path("mappings");
    JsonNode mapping = null;
    if (mappings.isArray() && !mappings.isEmpty()) {
      mapping = mappingOf(mappings.get(0), where);
    } else if (mappings.isObject()) {
      mapping = mappings;
    }
    return new IndexMetadata(index, Integer.parseInt(shards), Map.copyOf(settings), IndexMapping.of(mapping));
  }

  /** A mapping as a tree, or as the compressed JSON or SMILE bytes some engine versions keep. */
  private static JsonNode mappingOf(JsonNode node, String where) throws SnapshotException {
    if (node.isObject()) {
      return node;
    }
    try {
      byte[] bytes = node.binaryValue();
      if (bytes == null) {
        throw new SnapshotException.CorruptManifest(where + " has a mapping that is neither an object nor bytes", null);
      }
      return MetadataBlob.content(bytes, where + " (its mapping)");
    } catch (IOException e) {
      throw new SnapshotException.CorruptManifest(where + " has a mapping that cannot be read: " + e.getMessage(), e);
    }
  }

  private static void flatten(String prefix, JsonNode node, Map<String, String> into) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = prefix + e.getKey();
      if (e.getValue().isObject()) {
        flatten(key + ".", e.getValue(), into);
      } else {
        into.put(key, e.getValue().isArray() ? e.getValue().toString() : e.getValue().asText());
      }
    }
  }
}
