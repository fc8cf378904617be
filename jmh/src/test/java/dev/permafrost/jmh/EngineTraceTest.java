/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.jmh.workload.DashboardWorkload;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * How the engine trace names a request into a compound file (by the entry its range starts in, and how many entries
 * after it the range reaches), and the check of Permafrost's dashboard against the node's answer: every difference
 * (the total, its relation, a bucket, a term) fails it.
 */
class EngineTraceTest {
  private static final Map<String, TreeMap<Long, String>> COMPOUND = Map.of("indices/x/0/__cfs",
      new TreeMap<>(Map.of(48L, "_0.fnm", 1000L, "_0_ES819TSDB_0.dvd", 5000L, "_0.kdd")));

  @Test
  void aRequestIntoACompoundFileIsNamedByItsEntries() {
    assertEquals("wave  3  fetch-1 indices/x/0/__cfs:_0_ES819TSDB_0.dvd [1000, +4000)",
        EngineTrace.inCompound("wave  3  fetch-1 indices/x/0/__cfs [1000, +4000)", COMPOUND), "ends at the next entry");
    assertEquals("wave  3  fetch-1 indices/x/0/__cfs:_0_ES819TSDB_0.dvd+1 [4096, +4096)",
        EngineTrace.inCompound("wave  3  fetch-1 indices/x/0/__cfs [4096, +4096)", COMPOUND), "reaches into .kdd");
    assertEquals("wave  2  fetch-1 indices/x/0/__cfs:(header)+2 [0, +4096)",
        EngineTrace.inCompound("wave  2  fetch-1 indices/x/0/__cfs [0, +4096)", COMPOUND), "the header, then two");
    assertEquals("wave  1  fetch-1 indices/x/0/snap-1.dat [0, +998)",
        EngineTrace.inCompound("wave  1  fetch-1 indices/x/0/snap-1.dat [0, +998)", COMPOUND), "another blob as it is");
  }

  @Test
  void theNodesAnswerMustBePermafrostsToTheLastBucket() throws Exception {
    DashboardWorkload.Result ours = new DashboardWorkload.Result(7, new TreeMap<>(Map.of(0L, 3L, 3_600_000L, 4L)),
        List.of(new DashboardWorkload.Bucket("/a", 5), new DashboardWorkload.Bucket("/b", 2)),
        List.of(new DashboardWorkload.Bucket("DE", 7)));
    String answer = """
        {"hits": {"total": {"value": 7, "relation": "eq"}}, "aggregations": {
          "histogram": {"buckets": [{"key": 0, "doc_count": 3}, {"key": 3600000, "doc_count": 4}]},
          "urls": {"buckets": [{"key": "/a", "doc_count": 5}, {"key": "/b", "doc_count": 2}]},
          "countries": {"buckets": [{"key": "DE", "doc_count": 7}]}}}""";
    DashboardAnswer.checkNode(ours, json(answer));
    for (String[] change : new String[][] {{"\"value\": 7", "\"value\": 8"}, {"\"eq\"", "\"gte\""},
        {"\"doc_count\": 4", "\"doc_count\": 5"}, {"\"key\": 3600000", "\"key\": 7200000"}, {"\"/b\"", "\"/c\""},
        {"\"doc_count\": 2}", "\"doc_count\": 3}"}, {"\"DE\"", "\"FR\""}}) {
      String other = answer.replace(change[0], change[1]);
      assertTrue(!other.equals(answer), change[0]);
      assertThrows(IllegalStateException.class, () -> DashboardAnswer.checkNode(ours, json(other)), change[0]);
    }
  }

  private static JsonNode json(String s) throws Exception {
    return new ObjectMapper().readTree(s);
  }
}
