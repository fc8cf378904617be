/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.elasticsearch.codecs.Elasticsearch96Codec;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.PostingsFormat;

/**
 * The engines' own codec and postings-format names this module reads, as Lucene's SPI finds them (the classes of
 * package {@code dev.permafrost.elasticsearch.codecs}), so that an error listing them cannot fall behind what is
 * registered.
 */
final class EngineFormats {
  /** Elasticsearch's codecs read, by name, sorted. */
  static final List<String> CODECS = ours(Codec.availableCodecs(), Codec::forName);
  /** Elasticsearch's postings formats read, by name, sorted. */
  static final List<String> POSTINGS = ours(PostingsFormat.availablePostingsFormats(), PostingsFormat::forName);

  private EngineFormats() {}

  private static List<String> ours(Set<String> names, Function<String, Object> byName) {
    String own = Elasticsearch96Codec.class.getPackageName();
    return names.stream().filter(n -> byName.apply(n).getClass().getPackageName().equals(own)).sorted().toList();
  }
}
