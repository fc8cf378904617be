/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.snapshot.SnapshotException;
import java.util.Arrays;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * The engine's stored fields of a hit, decoded: {@code _id} (see {@link DocumentId}) and {@code _source} (the JSON
 * the document was indexed with; SMILE, as some clients send it, is turned into JSON). Ask the catalog for the
 * stored fields {@code _id} and {@code _source} ({@code SearchRequest.Builder.fields}).
 */
public final class EngineDocuments {
  /** The stored field holding a document's id. */
  public static final String ID = "_id";
  /** The stored field holding a document's source. */
  public static final String SOURCE = "_source";

  private EngineDocuments() {}

  /** The document's {@code _id}, or null if it has none stored. */
  public static String id(Document document) {
    IndexableField f = document.getField(ID);
    if (f == null) {
      return null;
    }
    BytesRef b = f.binaryValue();
    return b != null ? DocumentId.decode(b) : f.stringValue();
  }

  /** The document's {@code _source} as JSON, or null if it has none stored. */
  public static String source(Document document) {
    IndexableField f = document.getField(SOURCE);
    if (f == null || f.binaryValue() == null) {
      return null;
    }
    return source(f.binaryValue());
  }

  /**
   * The JSON of stored {@code _source} bytes (JSON, or SMILE as some clients send it).
   *
   * @throws IllegalStateException if they are neither
   */
  public static String source(BytesRef b) {
    byte[] bytes = Arrays.copyOfRange(b.bytes, b.offset, b.offset + b.length);
    try {
      return MetadataBlob.content(bytes, "a stored _source").toString();
    } catch (SnapshotException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The query for the document with id {@code id}, as the engine indexes it. */
  public static Query idQuery(String id) {
    return new TermQuery(new Term(ID, DocumentId.encode(id)));
  }
}
