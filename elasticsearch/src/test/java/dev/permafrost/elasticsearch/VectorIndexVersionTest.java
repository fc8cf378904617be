/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which indices with indexed {@code dense_vector} fields may mount ({@link EngineSnapshotRepository#vectorsMayBeRead}):
 * those created by Elasticsearch 9.4 or later (index version 9_094_0_00 on), whose {@code int8_hnsw} and
 * {@code int4_hnsw} vectors are in formats read; older ones, and an index whose version is not a number, are refused.
 * 9.5.3's and 9.3.3's versions are those es-tsdb-9.4-9.5.md lists (9.5.3's checked on its node's settings).
 */
class VectorIndexVersionTest {
  @Test
  void vectorsMountFromElasticsearch94On() {
    assertTrue(EngineSnapshotRepository.vectorsMayBeRead("9111000")); // 9.5.3
    assertTrue(EngineSnapshotRepository.vectorsMayBeRead("9107000")); // 9.5.0
    assertTrue(EngineSnapshotRepository.vectorsMayBeRead("9094000")); // 9.4.0
    assertFalse(EngineSnapshotRepository.vectorsMayBeRead("9093999"));
    assertFalse(EngineSnapshotRepository.vectorsMayBeRead("9060001")); // 9.3.3
    assertFalse(EngineSnapshotRepository.vectorsMayBeRead("8000099")); // 8.0
    assertFalse(EngineSnapshotRepository.vectorsMayBeRead(null));
    assertFalse(EngineSnapshotRepository.vectorsMayBeRead("9.5.3"));
  }
}
