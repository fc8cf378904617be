/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.Waits;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.CopyOnWriteArrayList;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Searches and store requests as Micrometer Observations, as tracing would see them. */
class ObservationsTest {
  @TempDir Path tmp;

  @Test
  void aSearchAndItsStoreRequestsAreObserved() throws Exception {
    try (Directory dir = FSDirectory.open(tmp.resolve("index"));
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
      for (int i = 0; i < 2000; i++) {
        Document doc = new Document();
        doc.add(new StringField("status", i % 10 == 0 ? "404" : "200", Field.Store.YES));
        writer.addDocument(doc);
      }
    }
    // what a tracing or metrics handler would be given
    List<Observation.Context> started = new CopyOnWriteArrayList<>();
    List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
      @Override
      public void onStart(Observation.Context context) {
        started.add(context);
      }

      @Override
      public void onStop(Observation.Context context) {
        stopped.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    BlobStore fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    try (Directory dir = FSDirectory.open(tmp.resolve("index"))) {
      SnapshotRepository.open(fs).createSnapshot("logs", dir, SnapshotOptions.DEFAULTS.withKeepWholeLimits(0, 0).withWarmBytesPerFile(0));
    }
    SnapshotRepository repo = SnapshotRepository.open(StorePolicy.DEFAULT.apply(new ObservedBlobStore(fs, registry)));
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size("16mb").build();
        Catalog catalog = Catalog.builder(cache).searchObserver(new SearchObservations(registry)).build()) {
      catalog.mount("logs", repo, "logs");
      SearchResponse r = catalog.search(SearchRequest.builder(new TermQuery(new Term("status", "404"))).indices("logs")
          .fields("status").build());
      assertEquals(200, r.totalHits().value());
      // a store read the search asked for and did not wait for (a prefetch, a fill carrying on) may still be on its
      // way: its observation stops when it ends
      Waits.awaitNoFetch(cache);
      List<Observation.Context> searches = stopped.stream().filter(c -> c.getName().equals(SearchObservations.NAME)).toList();
      assertEquals(1, searches.size());
      Observation.Context search = searches.get(0);
      assertEquals("success", search.getLowCardinalityKeyValue("outcome").getValue());
      assertEquals(Long.toString(r.cost().storeRequests()), search.getHighCardinalityKeyValue("store.requests").getValue());
      long reads = stopped.stream().filter(c -> c.getName().equals(ObservedBlobStore.NAME)).count();
      assertTrue(reads >= r.cost().storeRequests() && reads > 1, "every store read observed: " + reads);
      assertEquals(null, registry.getCurrentObservation(), "no observation left current");
      assertEquals(started.size(), stopped.size(), "every observation started was stopped");

      assertThrows(IllegalArgumentException.class,
          () -> catalog.search(SearchRequest.builder(new TermQuery(new Term("status", "404"))).indices("nope").build()));
      Observation.Context failed = stopped.stream().filter(c -> c.getName().equals(SearchObservations.NAME)).toList().get(1);
      assertEquals("error", failed.getLowCardinalityKeyValue("outcome").getValue());
      assertTrue(failed.getError() instanceof IllegalArgumentException);
    }
  }
}
