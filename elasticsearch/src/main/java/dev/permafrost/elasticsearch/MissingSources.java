/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;

/**
 * The {@code _source} of the hits that store none (Elasticsearch's synthetic source: logsdb and time_series indices,
 * {@code _source.mode: synthetic}), rebuilt from their doc values ({@link EngineDocuments#sourceFromDocValues}) while
 * their indices are still mounted: the one home of that rule for the Elasticsearch API, the service and the command
 * line.
 */
public final class MissingSources {
  private MissingSources() {}

  /**
   * Rebuilds the source of each of {@code hits} that stores none, by its index's mapping: the hits of one index
   * under one lease of it, whatever their number. A hit whose index {@code mappingOf} gives no mapping for (not an
   * engine's index) is passed over, and so is one whose stored fields were not read (no document).
   *
   * @param mappingOf the mapping of a mounted index, by its name in the catalog, or null
   * @return the rebuilt sources by hit (by identity), for the hits that needed one
   * @throws IllegalArgumentException if an index of those hits is no longer mounted
   */
  public static Map<SearchResponse.Hit, EngineDocuments.RebuiltSource> rebuild(Catalog catalog,
      List<SearchResponse.Hit> hits, Function<String, IndexMapping> mappingOf) throws IOException {
    Map<String, List<SearchResponse.Hit>> byIndex = new LinkedHashMap<>();
    for (SearchResponse.Hit hit : hits) {
      if (hit.document() != null && !storesSource(hit.document())) {
        byIndex.computeIfAbsent(hit.index(), i -> new ArrayList<>()).add(hit);
      }
    }
    Map<SearchResponse.Hit, EngineDocuments.RebuiltSource> rebuilt = new IdentityHashMap<>();
    for (Map.Entry<String, List<SearchResponse.Hit>> e : byIndex.entrySet()) {
      IndexMapping mapping = mappingOf.apply(e.getKey());
      if (mapping == null) {
        continue;
      }
      try (Lease lease = catalog.acquire(e.getKey())) {
        for (SearchResponse.Hit hit : e.getValue()) {
          rebuilt.put(hit, EngineDocuments.sourceFromDocValues(lease.reader(), hit.doc(), mapping));
        }
      }
    }
    return rebuilt;
  }

  /** Whether {@code document} holds a stored {@code _source} with a value (bytes or text). */
  public static boolean storesSource(Document document) {
    IndexableField f = document.getField(EngineDocuments.SOURCE);
    return f != null && (f.binaryValue() != null || f.stringValue() != null);
  }
}
