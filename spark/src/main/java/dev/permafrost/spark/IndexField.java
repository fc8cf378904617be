/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.Serial;
import java.io.Serializable;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexOptions;

/**
 * How a field is indexed, from its Lucene {@link FieldInfo}: what decides its column type, how its values are read
 * and which filters on it can become Lucene queries. Sent to the executors with the scan.
 *
 * @param name the field
 * @param terms whether it is indexed as terms without norms (a keyword: {@code StringField})
 * @param text whether it is indexed as terms with norms (analyzed text: {@code TextField})
 * @param pointDimensions its points' dimensions (0 if it has none)
 * @param pointBytes bytes per point dimension (8 for {@code LongPoint}, 4 for {@code IntPoint})
 * @param docValues its doc values' type
 * @param vectors whether it holds vectors
 */
record IndexField(String name, boolean terms, boolean text, int pointDimensions, int pointBytes, DocValuesType docValues,
    boolean vectors)
    implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  static IndexField of(FieldInfo info) {
    boolean indexed = info.getIndexOptions() != IndexOptions.NONE;
    return new IndexField(info.name, indexed && info.omitsNorms(), indexed && !info.omitsNorms(),
        info.getPointDimensionCount(), info.getPointNumBytes(), info.getDocValuesType(), info.getVectorDimension() > 0);
  }

  /** Whether it is a one-dimensional long point ({@code LongPoint}). */
  boolean longPoint() {
    return pointDimensions == 1 && pointBytes == Long.BYTES;
  }

  /** Whether it is a one-dimensional int point ({@code IntPoint}). */
  boolean intPoint() {
    return pointDimensions == 1 && pointBytes == Integer.BYTES;
  }

  /** Whether its doc values hold terms ({@code SORTED} or {@code SORTED_SET}). */
  boolean termDocValues() {
    return docValues == DocValuesType.SORTED || docValues == DocValuesType.SORTED_SET;
  }

  /** Whether its doc values hold numbers ({@code NUMERIC} or {@code SORTED_NUMERIC}). */
  boolean numericDocValues() {
    return docValues == DocValuesType.NUMERIC || docValues == DocValuesType.SORTED_NUMERIC;
  }

  /** Whether a document's having a value can be told ({@code FieldExistsQuery} needs doc values or norms). */
  boolean existsQueryable() {
    return docValues != DocValuesType.NONE || text;
  }

  /** Whether it holds no indexed form at all: only stored values (such as {@code _source}). */
  boolean storedOnly() {
    return !terms && !text && pointDimensions == 0 && docValues == DocValuesType.NONE && !vectors;
  }
}
