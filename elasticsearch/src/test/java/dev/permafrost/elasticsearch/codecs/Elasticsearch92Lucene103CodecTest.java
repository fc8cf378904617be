/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.function.Function;
import org.apache.lucene.backward_codecs.lucene103.Lucene103Codec;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.junit.jupiter.api.Test;

/**
 * {@code Elasticsearch92Lucene103} names segments of two Lucene codecs: 9.2-9.3 write it over {@code Lucene103Codec},
 * 9.4-9.5 over {@code Lucene104Codec}. One reader over {@code Lucene104Codec} reads both only while the two write
 * every format that is not chosen per field by the same classes: checked here, so that a Lucene upgrade that changes
 * one of them fails this test rather than a 9.2 shard's opening. (The 9.3 shards of the fixtures are read by
 * EngineFixtureSnapshotsTest.)
 */
class Elasticsearch92Lucene103CodecTest {
  @Test
  void readsWithZstdStoredFieldsOverLucene104() {
    Codec codec = Codec.forName("Elasticsearch92Lucene103");
    assertInstanceOf(Elasticsearch92Lucene103Codec.class, codec);
    assertSame(ZstdStoredFieldsFormat.INSTANCE, codec.storedFieldsFormat());
  }

  @Test
  void lucene103And104WriteTheSameFormatsWhereNoFieldChooses() {
    Codec v103 = new Lucene103Codec();
    Codec v104 = new Lucene104Codec();
    List<Function<Codec, Object>> formats = List.of(Codec::segmentInfoFormat, Codec::fieldInfosFormat,
        Codec::normsFormat, Codec::pointsFormat, Codec::termVectorsFormat, Codec::liveDocsFormat,
        Codec::compoundFormat, Codec::storedFieldsFormat);
    for (Function<Codec, Object> format : formats) {
      assertEquals(format.apply(v103).getClass(), format.apply(v104).getClass());
    }
  }
}
