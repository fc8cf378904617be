/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code search.max_buckets} as an Elasticsearch 9.3.3 node applies it, over the index it was checked on (two
 * documents, {@code x} 0 and 10): a histogram's empty buckets count once more in whole tens of thousands, every
 * multi-bucket aggregation's buckets count, at every level, and the refusal is the node's error body.
 */
class BucketLimitTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static ByteBuffersDirectory dir;
  private static DirectoryReader reader;
  private static IndexMapping mapping;

  @BeforeAll
  static void index() throws IOException {
    dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
      for (long x : new long[] {0, 10}) {
        Document d = new Document();
        d.add(new SortedNumericDocValuesField("x", x));
        w.addDocument(d);
      }
    }
    reader = DirectoryReader.open(dir);
    mapping = IndexMapping.of(JSON.readTree("{\"properties\": {\"x\": {\"type\": \"long\"}}}"));
  }

  @AfterAll
  static void close() throws IOException {
    reader.close();
    dir.close();
  }

  private static void run(String aggs) throws IOException {
    Aggregations a = Aggregations.parse(JSON.readTree(aggs), mapping, q -> new MatchAllDocsQuery());
    new IndexSearcher(reader).search(new MatchAllDocsQuery(), a.collectorManager()).toJson(false);
  }

  /** A histogram of {@code buckets} buckets from 0, all but two empty. */
  private static String histogram(int buckets) {
    return "\"h\": {\"histogram\": {\"field\": \"x\", \"interval\": 1, \"min_doc_count\": 0, \"extended_bounds\":"
        + " {\"min\": 0, \"max\": " + (buckets - 1) + "}}}";
  }

  private static void refused(String aggs) {
    DslException e = assertThrows(DslException.class, () -> run(aggs), aggs);
    assertEquals(65_536, e.maxBuckets());
  }

  @Test
  void emptyBucketsCountOnceMoreInWholeTensOfThousands() throws IOException {
    run("{" + histogram(35_536) + "}"); // 35,536 + 30,000: the limit
    refused("{" + histogram(35_537) + "}");
    run("{" + histogram(30_001) + "}"); // 29,999 empty: 30,001 + 20,000
  }

  @Test
  void everyMultiBucketAggregationCountsAtEveryLevel() throws IOException {
    refused("{" + histogram(35_536) + ", \"t\": {\"terms\": {\"field\": \"x\"}}}");
    refused("{" + histogram(35_536) + ", \"r\": {\"range\": {\"field\": \"x\", \"ranges\": [{\"to\": 5}]}}}");
    refused("{" + histogram(35_536) + ", \"fs\": {\"filters\": {\"filters\": {\"a\": {\"match_all\": {}}}}}}");
    refused("{" + histogram(35_536) + ", \"f\": {\"filter\": {\"match_all\": {}}, \"aggs\": {\"t\": {\"terms\":"
        + " {\"field\": \"x\"}}}}}");
    run("{" + histogram(35_536) + ", \"f\": {\"filter\": {\"match_all\": {}}}}"); // a single bucket does not count
    run("{" + histogram(35_536) + ", \"m\": {\"max\": {\"field\": \"x\"}}}");
    // two histograms of 20,001 (19,999 empty: 20,001 + 10,000 each) are within it; of 20,002 (20,000 empty) past it
    run("{" + histogram(20_001) + ", " + histogram(20_001).replace("\"h\"", "\"h2\"") + "}");
    refused("{" + histogram(20_002) + ", " + histogram(20_002).replace("\"h\"", "\"h2\"") + "}");
    // buckets under buckets: 3 ranges, each holding a histogram of 11,000 (one document, 10,999 empty: 21,000), 63,003
    // in all; of 12,000 (22,000 each) past it
    String ranges = "\"r\": {\"range\": {\"field\": \"x\", \"ranges\": [{\"to\": 1}, {\"to\": 2}, {\"to\": 3}]},"
        + " \"aggs\": {%s}}";
    run("{" + ranges.formatted(histogram(11_000)) + "}");
    refused("{" + ranges.formatted(histogram(12_000)) + "}");
  }

  /**
   * The empty buckets a histogram adds share one empty set of sub-aggregations on the node, counted once: a 9.3.3 node
   * answers an hourly {@code date_histogram} of about 960 buckets (40 with documents) each holding a
   * {@code date_histogram} of 71 buckets by {@code extended_bounds} (seed 1217779204 #952 of the reference generator).
   */
  @Test
  void subAggregationsOfAddedEmptyBucketsCountOnce() throws IOException {
    // 1,000 buckets, 998 empty, each holding 1,000 (by extended_bounds): 1,000 + 3 * 1,000, not 1,001,000
    run("{\"p\": {\"histogram\": {\"field\": \"x\", \"interval\": 1, \"min_doc_count\": 0, \"extended_bounds\":"
        + " {\"min\": 0, \"max\": 999}}, \"aggs\": {" + histogram(1_000) + "}}}");
    // under buckets that hold documents, each counts: 2 ranges with documents, each of 35,000 buckets
    refused("{\"r\": {\"range\": {\"field\": \"x\", \"ranges\": [{\"to\": 1}, {\"from\": 1}]}, \"aggs\": {"
        + histogram(35_000) + "}}}");
  }

  @Test
  void theRefusalIsTheNodesErrorBody() throws Exception {
    assertEquals(JSON.readTree("""
        {"error": {"root_cause": [], "type": "search_phase_execution_exception", "reason": "", "phase": "fetch",
          "grouped": true, "failed_shards": [], "caused_by": {"type": "too_many_buckets_exception", "reason": "Trying to\
         create too many buckets. Must be less than or equal to: [65536] but this number of buckets was exceeded. This\
         limit can be set by changing the [search.max_buckets] cluster level setting.", "max_buckets": 65536}},
         "status": 400}"""), SearchApi.error(DslException.tooManyBuckets(65_536)));
  }
}
