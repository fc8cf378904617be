/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which {@code dense_vector} fields a mapping indexes (their vectors in Elasticsearch's own formats, refused at mount):
 * those that say so and those that say nothing (the default since 8.11), at any depth; not those with
 * {@code "index": false}, whose vectors are plain binary doc values.
 */
class IndexMappingTest {
  @Test
  void indexedVectorFieldsAreThoseNotMarkedUnindexed() throws Exception {
    IndexMapping mapping = IndexMapping.of(new ObjectMapper().readTree("""
        {"properties": {
          "seq": {"type": "long"},
          "plain": {"type": "dense_vector", "dims": 4, "index": false},
          "indexed": {"type": "dense_vector", "dims": 4, "index": true, "similarity": "cosine"},
          "doc": {"properties": {"emb": {"type": "dense_vector", "dims": 8}}}
        }}"""));
    assertEquals(Set.of("indexed", "doc.emb"), mapping.indexedVectorFields());
    assertEquals("dense_vector", mapping.field("plain").type());
  }
}
