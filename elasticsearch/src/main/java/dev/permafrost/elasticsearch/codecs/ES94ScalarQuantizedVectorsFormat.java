/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

/**
 * Elasticsearch 9.5's vectors of {@code dense_vector} fields indexed {@code int8_flat} or {@code int4_flat}:
 * scalar-quantized vectors over the raw ones, no graph, read by Lucene's {@code Lucene104ScalarQuantizedVectorsFormat}
 * ({@code ES94VectorsFormat}). Registered by Lucene's SPI.
 */
public final class ES94ScalarQuantizedVectorsFormat extends ES94VectorsFormat {
  /** Called by Lucene's SPI. */
  public ES94ScalarQuantizedVectorsFormat() {
    super("ES94ScalarQuantizedVectorsFormat", "Lucene104ScalarQuantizedVectorsFormat");
  }
}
