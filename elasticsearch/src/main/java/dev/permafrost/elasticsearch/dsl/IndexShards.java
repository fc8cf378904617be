/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.IndexMapping;
import java.util.List;

/**
 * One index a request searches, as parsing and running it see it: its name, the names its shards are mounted under
 * in the catalog, and its mapping (what {@code SearchApi.Index} says, below the API's door).
 */
record IndexShards(String name, List<String> shards, IndexMapping mapping) {
  IndexShards {
    shards = List.copyOf(shards);
  }
}
