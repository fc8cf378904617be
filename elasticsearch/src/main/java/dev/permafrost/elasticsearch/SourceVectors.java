/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.apache.lucene.index.ByteVectorValues;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.VectorEncoding;

/**
 * The vectors of a document's indexed {@code dense_vector} fields, put back into its {@code _source} as Elasticsearch
 * gives them back where it keeps them out of the stored source ({@code index.mapping.exclude_source_vectors}, true by
 * default from 9.1; a search shows them with {@code "_source": {"exclude_vectors": false}}): read from the field's
 * vector values. A {@code float} field is an array of floats printed as Java prints a float; a field whose similarity
 * is {@code cosine} holds unit vectors, and its length, when not 1, is a float's bits in the numeric doc values
 * {@code <field>._magnitude}: each value is the unit vector's times that length, multiplied as floats (checked on a
 * 9.5.3 node: {@code [3.0000002, 3.9999998, 0.99999994, 0.99999994]} for an indexed {@code [3, 4, 1, 1]}). A
 * {@code byte} field is an array of integers. A field the source already holds is left as it is.
 */
final class SourceVectors {
  /** The suffix of the numeric doc values that hold a cosine vector's length. */
  static final String MAGNITUDE = "._magnitude";

  private SourceVectors() {}

  /** Puts the vectors of {@code doc} (of {@code leaf}) of the mapping's indexed vector fields {@code source} lacks. */
  static void put(ObjectNode source, LeafReader leaf, int doc, IndexMapping mapping) throws IOException {
    for (String path : mapping.indexedVectorFields()) {
      FieldInfo info = leaf.getFieldInfos().fieldInfo(path);
      if (info == null || !info.hasVectorValues() || at(source, path) != null) {
        continue;
      }
      ArrayNode vector = info.getVectorEncoding() == VectorEncoding.FLOAT32
          ? floats(leaf, path, doc)
          : bytes(leaf, path, doc);
      if (vector != null) {
        set(source, path, vector);
      }
    }
  }

  private static ArrayNode floats(LeafReader leaf, String field, int doc) throws IOException {
    FloatVectorValues values = leaf.getFloatVectorValues(field);
    KnnVectorValues.DocIndexIterator it = values.iterator();
    if (it.advance(doc) != doc) {
      return null;
    }
    float[] vector = values.vectorValue(it.index());
    float magnitude = 1f;
    NumericDocValues magnitudes = leaf.getNumericDocValues(field + MAGNITUDE);
    if (magnitudes != null && magnitudes.advanceExact(doc)) {
      magnitude = Float.intBitsToFloat((int) magnitudes.longValue());
    }
    ArrayNode array = JsonNodeFactory.instance.arrayNode(vector.length);
    for (float v : vector) {
      array.add(v * magnitude);
    }
    return array;
  }

  private static ArrayNode bytes(LeafReader leaf, String field, int doc) throws IOException {
    ByteVectorValues values = leaf.getByteVectorValues(field);
    KnnVectorValues.DocIndexIterator it = values.iterator();
    if (it.advance(doc) != doc) {
      return null;
    }
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    for (byte v : values.vectorValue(it.index())) {
      array.add(v);
    }
    return array;
  }

  /** The node at dotted {@code path} of {@code root} (as an object path or a key with dots), or null. */
  private static JsonNode at(ObjectNode root, String path) {
    if (root.has(path)) {
      return root.get(path);
    }
    JsonNode at = root;
    for (String part : path.split("\\.")) {
      at = at.get(part);
      if (at == null) {
        return null;
      }
    }
    return at;
  }

  private static void set(ObjectNode root, String path, ArrayNode value) {
    String[] parts = path.split("\\.");
    ObjectNode at = root;
    for (int i = 0; i < parts.length - 1; i++) {
      JsonNode next = at.get(parts[i]);
      at = next instanceof ObjectNode o ? o : at.putObject(parts[i]);
    }
    at.set(parts[parts.length - 1], value);
  }
}
