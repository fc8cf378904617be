/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.peer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.blob.Durations;
import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.sample.AccessLogGenerator;
import dev.permafrost.sample.DatasetSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The access-log data set of {@code sample-data} as OpenSearch indices: one index of one shard a day, named as the
 * data set names its days, with the same 36 fields and types as {@link AccessLogDocuments} (keywords, longs, the
 * {@code @timestamp} date, the {@code message} text) and its JSON {@code _source}; indexed with bulk requests,
 * force-merged to one segment (as Permafrost's own daily snapshots are), snapshotted, and deleted.
 */
final class PeerData {
  private static final int BULK_DOCS = 4000;

  private PeerData() {}

  /**
   * Creates and fills every day's index on the cluster, force-merges each to one segment and flushes; returns how long
   * the indexing took, in seconds, and logs progress to stderr.
   */
  static double index(Rest os, DatasetSpec spec) throws Exception {
    long start = System.nanoTime();
    AccessLogGenerator generator = new AccessLogGenerator(spec.seed());
    ExecutorService senders = Executors.newFixedThreadPool(2);
    try {
      for (int d = 0; d < spec.days(); d++) {
        String index = spec.indexName(d);
        os.put("/" + index, AccessLogDocuments.engineIndexBody());
        BlockingQueue<String> bulks = new ArrayBlockingQueue<>(4);
        String end = new String("end");
        List<Future<?>> sending = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          sending.add(senders.submit(() -> {
            for (String body = bulks.take(); body != end; body = bulks.take()) {
              JsonNode r = os.postNdjson("/" + index + "/_bulk", body);
              if (r.path("errors").asBoolean()) {
                throw new IOException("bulk indexing into " + index + " failed: " + firstError(r));
              }
            }
            return null;
          }));
        }
        StringBuilder bulk = new StringBuilder(BULK_DOCS * 1300);
        int[] inBulk = {0};
        generator.generateDay(spec.day(d), spec.eventsPerDay(), e -> {
          bulk.append("{\"index\":{}}\n").append(AccessLogDocuments.engineDocument(e)).append('\n');
          if (++inBulk[0] == BULK_DOCS) {
            put(bulks, bulk.toString());
            bulk.setLength(0);
            inBulk[0] = 0;
          }
        });
        if (inBulk[0] > 0) {
          put(bulks, bulk.toString());
        }
        for (int t = 0; t < 2; t++) {
          put(bulks, end);
        }
        for (Future<?> f : sending) {
          f.get();
        }
        os.post("/" + index + "/_refresh", null);
        System.err.printf("peer: indexed %s (%d events) after %s%n", index, spec.eventsPerDay(),
            Durations.formatNanos(System.nanoTime() - start));
      }
      os.post("/" + spec.indexName(0).replaceAll("[0-9.]+$", "") + "*/_forcemerge?max_num_segments=1", null);
      os.post("/" + spec.indexName(0).replaceAll("[0-9.]+$", "") + "*/_flush?force=true", null);
      System.err.printf("peer: force-merged after %s%n", Durations.formatNanos(System.nanoTime() - start));
    } finally {
      senders.shutdownNow();
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static void put(BlockingQueue<String> queue, String body) {
    try {
      queue.put(body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while indexing", e);
    }
  }

  private static String firstError(JsonNode bulk) {
    for (JsonNode item : bulk.path("items")) {
      JsonNode error = item.path("index").path("error");
      if (!error.isMissingNode()) {
        return error.toString();
      }
    }
    return bulk.toString();
  }
}
