/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --format} and {@code --base-path}, mixed into {@code list}, {@code info} and {@code search}: whether the
 * repository is Permafrost's own, or one an OpenSearch or Elasticsearch cluster wrote (both names read the same
 * layout, through {@link dev.permafrost.elasticsearch.EngineSnapshotRepository}).
 */
final class RepositoryFormat {
  /** The kinds of repository the commands read. */
  enum Kind {
    PERMAFROST,
    OPENSEARCH,
    ELASTICSEARCH;

    /** The name as written on the command line. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "permafrost", converter = KindConverter.class,
      description = "what wrote the repository: permafrost (default), or opensearch or elasticsearch, a cluster's"
          + " snapshot repository (both names read the same layout; segments Elasticsearch wrote with formats of its"
          + " own are not read)")
  Kind kind = Kind.PERMAFROST;

  @Option(names = "--base-path", paramLabel = "PATH",
      description = "with --format opensearch or elasticsearch: the repository's base_path in its bucket, the URI"
          + " naming the bucket's root (needed where OpenSearch hashed the shard paths: they are outside the base path)")
  String basePath;

  /** Whether the repository is an OpenSearch or Elasticsearch one. */
  boolean isEngine() {
    return kind != Kind.PERMAFROST;
  }

  /** The format as written on the command line. */
  String label() {
    return kind.label();
  }

  /** Fails with a usage error if an option that only an engine's repository takes was given for Permafrost's. */
  void checkPermafrostOptions() {
    if (!isEngine() && basePath != null) {
      throw new UsageException("--base-path is for --format opensearch or elasticsearch; a Permafrost repository is at"
          + " its URI");
    }
  }

  /** {@code permafrost}, {@code opensearch} or {@code elasticsearch}, in any case. */
  static final class KindConverter implements ITypeConverter<Kind> {
    @Override
    public Kind convert(String value) {
      for (Kind kind : Kind.values()) {
        if (kind.label().equalsIgnoreCase(value.strip())) {
          return kind;
        }
      }
      throw new TypeConversionException("unknown format '" + value + "': use permafrost (the default), opensearch or"
          + " elasticsearch");
    }
  }
}
