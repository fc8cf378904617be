/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.Test;

/**
 * {@code Elasticsearch92Lucene103} names segments of two Lucene codecs: 9.2-9.3 write it over {@code Lucene103Codec},
 * 9.4-9.5 over {@code Lucene104Codec}. One reader over the newest of the two on the class path reads both only while
 * it writes every format that is not chosen per field by the same classes as {@code Lucene103Codec}: checked here,
 * so that a Lucene upgrade that changes one of them fails this test rather than a 9.2 shard's opening. (The 9.3
 * shards of the fixtures are read by EngineFixtureSnapshotsTest.) Runs on the Lucene floor too (10.3, whose core
 * has no {@code Lucene104Codec}), where the codecs must still load.
 */
class Elasticsearch92Lucene103CodecTest {
  @Test
  void readsWithZstdStoredFieldsOverTheNewestLuceneCodec() {
    Codec codec = Codec.forName("Elasticsearch92Lucene103");
    assertInstanceOf(Elasticsearch92Lucene103Codec.class, codec);
    assertSame(ZstdStoredFieldsFormat.INSTANCE, codec.storedFieldsFormat());
    // Lucene 10.4 brought Lucene104Codec; before it, Lucene 10.3's own codec is the one read through
    String expected = Version.LATEST.onOrAfter(Version.fromBits(10, 4, 0)) ? "Lucene104" : "Lucene103";
    assertEquals(expected, LuceneDelegate.newest().getName());
  }

  @Test
  void itsDelegateWritesLucene103sFormatsWhereNoFieldChooses() {
    Codec lucene103 = Codec.forName("Lucene103");
    for (Codec codec : List.of(Codec.forName("Elasticsearch92Lucene103"), Codec.forName("Elasticsearch96"))) {
      Map<String, Function<Codec, Object>> formats = Map.of("segment infos", Codec::segmentInfoFormat,
          "field infos", Codec::fieldInfosFormat, "norms", Codec::normsFormat, "points", Codec::pointsFormat,
          "term vectors", Codec::termVectorsFormat, "live docs", Codec::liveDocsFormat,
          "compound files", Codec::compoundFormat);
      formats.forEach((what, format) -> assertEquals(format.apply(lucene103).getClass(),
          format.apply(codec).getClass(), codec.getName() + "'s " + what));
    }
  }
}
