/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VectorsSnapshotTest {
  static final EngineFixture ENGINE = EngineFixture.ELASTICSEARCH_95;
  @TempDir static Path tmp;
  static SharedRegionCache cache;
  static Catalog catalog;
  static Path fixture;
  static JsonNode answers;
  static EngineSnapshotRepository repository;

  @BeforeAll
  static void mount() throws Exception {
    fixture = ENGINE.ensure();
    answers = new ObjectMapper().readTree(fixture.resolve("answers.json").toFile()).path("vectors");
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(32 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"), false));
  }

  @AfterAll
  static void close() throws Exception {
    if (catalog != null) {
      catalog.close();
    }
    if (cache != null) {
      cache.close();
    }
  }

  @Test
  void explore() throws Exception {
    System.out.println(answers.toPrettyString());
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(ENGINE.luceneVersion())));
    repository.mount(catalog, "vectors", "snap-2", "vectors");
    try (Lease lease = catalog.acquire("vectors.0")) {
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        FloatVectorValues values = leaf.reader().getFloatVectorValues("embedding");
        KnnVectorValues.DocIndexIterator it = values.iterator();
        for (int doc = it.nextDoc(); doc != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS && doc < 10; doc = it.nextDoc()) {
          System.out.println(doc + " " + Arrays.toString(values.vectorValue(it.index())));
        }
      }
    }
  }
}
