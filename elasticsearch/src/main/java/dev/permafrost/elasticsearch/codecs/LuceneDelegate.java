/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import org.apache.lucene.codecs.Codec;

/**
 * The Lucene codec the codecs of Elasticsearch 9.2 and later read through: {@code Lucene104Codec} where Lucene 10.4 or
 * later is on the class path, else Lucene 10.3's own {@code Lucene103Codec}. The two write every format no field
 * chooses with the same classes, so either reads what Elasticsearch wrote over the other, as far as that Lucene reads
 * the fields' own formats (Lucene 10.3 has no {@code Lucene104} postings). Found by class name, so that this module's
 * codecs load, and the rest of Lucene's SPI with them, on every Lucene it supports; built directly, as a codec's
 * constructor must not look codecs up by name.
 */
final class LuceneDelegate {
  private static final String[] NEWEST_FIRST = {"org.apache.lucene.codecs.lucene104.Lucene104Codec",
      "org.apache.lucene.codecs.lucene103.Lucene103Codec"};

  private LuceneDelegate() {}

  /** A new instance of the newest of those codecs on the class path. */
  static Codec newest() {
    for (String name : NEWEST_FIRST) {
      Class<?> type;
      try {
        type = Class.forName(name, true, Codec.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        continue;
      }
      try {
        return (Codec) type.getConstructor().newInstance();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot create Lucene's " + name + ": " + e, e);
      }
    }
    throw new IllegalStateException("neither Lucene104Codec nor Lucene103Codec is in Lucene's core on the class path:"
        + " Elasticsearch 9.2's codecs need Lucene 10.3 or later");
  }
}
