/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

/**
 * Elasticsearch 9.5's vectors of {@code dense_vector} fields indexed {@code int8_hnsw} (the default for fewer than
 * 384 dimensions) or {@code int4_hnsw}: an HNSW graph over scalar-quantized vectors over the raw ones, read by Lucene's
 * {@code Lucene104HnswScalarQuantizedVectorsFormat} ({@code ES94VectorsFormat}). Registered by Lucene's SPI.
 */
public final class ES94HnswScalarQuantizedVectorsFormat extends ES94VectorsFormat {
  /** Called by Lucene's SPI. */
  public ES94HnswScalarQuantizedVectorsFormat() {
    super("ES94HnswScalarQuantizedVectorsFormat", "Lucene104HnswScalarQuantizedVectorsFormat");
  }
}
