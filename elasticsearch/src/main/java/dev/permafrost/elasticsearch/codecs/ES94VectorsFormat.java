/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.util.Version;

/**
 * Elasticsearch 9.4/9.5's scalar-quantized vector formats, read by Lucene's own readers: each is Lucene 10.4's
 * {@code Lucene104ScalarQuantizedVectorsReader} (the quantized copy, {@code .veq}/{@code .vemq}; under an HNSW graph,
 * {@code Lucene99HnswVectorsReader}'s {@code .vex}/{@code .vem}) over raw vectors in Lucene's flat layout
 * ({@code .vec}/{@code .vemf}), every file under Lucene's own header names and the segment suffix of the
 * Elasticsearch name, plus the generic flat format's {@code .vfi}, which says which layout holds each field's raw
 * vectors ({@link GenericFlatVectorsMeta}). So a segment opens the Lucene format of the same layers, by its SPI name,
 * once the {@code .vfi} says every field's raw vectors are in Lucene's flat layout. Read-only.
 *
 * <p>Lucene's format is made by reflection, not linked: Lucene before 10.4 (the floor, 10.3) has no
 * {@code Lucene104*} vectors, and there a segment that names this format fails saying so (no such segment opens there
 * anyway: it was written by Lucene 10.4 or later).
 */
abstract class ES94VectorsFormat extends KnnVectorsFormat {
  /** The most dimensions Elasticsearch lets a {@code dense_vector} have. */
  static final int MAX_DIMENSIONS = 4096;

  private static final String LUCENE_PACKAGE = "org.apache.lucene.codecs.lucene104.";

  private final String lucene;

  /**
   * @param name the Elasticsearch name segments record
   * @param lucene the simple name of Lucene's format class of the same layers, in {@code lucene104}
   */
  ES94VectorsFormat(String name, String lucene) {
    super(name);
    this.lucene = lucene;
  }

  @Override
  public final KnnVectorsWriter fieldsWriter(SegmentWriteState state) {
    throw new UnsupportedOperationException(getName() + " is read-only here: Permafrost never writes an engine's"
        + " segments");
  }

  @Override
  public final KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
    KnnVectorsFormat delegate = luceneFormat(state);
    GenericFlatVectorsMeta.read(state);
    return delegate.fieldsReader(state);
  }

  /**
   * Lucene's format of the same layers, made by its class (not its SPI name: Lucene 10.4 to 10.6 register the HNSW
   * one as {@code Lucene104HnswBinaryQuantizedVectorsFormat}); fails naming the segment's file if this Lucene has none.
   */
  private KnnVectorsFormat luceneFormat(SegmentReadState state) throws CorruptIndexException {
    try {
      return Class.forName(LUCENE_PACKAGE + lucene).asSubclass(KnnVectorsFormat.class).getConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new CorruptIndexException("vectors in Elasticsearch's " + getName() + " are read by Lucene's " + lucene
          + ", which Lucene " + Version.LATEST + " does not have (Lucene 10.4 or later does)",
          IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, GenericFlatVectorsMeta.EXTENSION),
          e);
    }
  }

  @Override
  public final int getMaxDimensions(String fieldName) {
    return MAX_DIMENSIONS;
  }

  @Override
  public String toString() {
    return getName() + "(read by " + lucene + ")";
  }
}
