/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.IndexMetadata;
import dev.permafrost.snapshot.SnapshotInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code permafrost info --format opensearch URI SNAPSHOT[/INDEX]}: a snapshot's indices with their shards, uuids and
 * creation times (a request per index), or one index's shards (a request each, for its file list) and its mapped
 * fields with their types.
 */
final class EngineInfo {
  private EngineInfo() {}

  static void print(PrintWriter out, EngineRepository repository, String name) throws IOException {
    if (Names.isGlob(name)) {
      throw new UsageException("info takes one snapshot or SNAPSHOT/INDEX, not a glob: '" + name + "' ('permafrost"
          + " list --format " + repository.format() + " URI' lists them)");
    }
    int slash = name.indexOf('/');
    if (slash < 0) {
      printSnapshot(out, repository, name);
      return;
    }
    List<EngineRepository.Target> targets = repository.resolve(name);
    assert targets.size() == 1 : targets;
    printIndex(out, repository, targets.get(0));
  }

  private static void printSnapshot(PrintWriter out, EngineRepository repository, String snapshot) throws IOException {
    EngineSnapshotRepository engine = repository.engine();
    List<String> indices = repository.indices(snapshot);
    row(out, "snapshot", snapshot);
    row(out, "repository", repository.redactedUri() + " (" + repository.format() + ")");
    row(out, "indices", Formats.count(indices.size()));
    out.println();
    out.println(String.format(Locale.ROOT, "%-32s %6s  %-24s  %s", "INDEX", "SHARDS", "UUID", "CREATED"));
    for (String index : indices) {
      IndexMetadata metadata = engine.indexMetadata(snapshot, index);
      out.println(String.format(Locale.ROOT, "%-32s %6d  %-24s  %s", index, metadata.shards(),
          metadata.settings().getOrDefault("index.uuid", "-"), created(metadata)));
    }
  }

  private static void printIndex(PrintWriter out, EngineRepository repository, EngineRepository.Target target)
      throws IOException {
    EngineSnapshotRepository engine = repository.engine();
    IndexMetadata metadata = engine.indexMetadata(target.snapshot(), target.index());
    List<SnapshotInfo> shards = new ArrayList<>();
    for (int shard = 0; shard < metadata.shards(); shard++) {
      String name = EngineSnapshotRepository.shard(target.snapshot(), target.index(), shard);
      shards.add(engine.parseManifest(name, engine.readManifestBytes(name)).info());
    }
    row(out, "snapshot", target.snapshot());
    row(out, "index", target.index());
    row(out, "repository", repository.redactedUri() + " (" + repository.format() + ")");
    row(out, "uuid", metadata.settings().getOrDefault("index.uuid", "(not recorded)"));
    row(out, "created", created(metadata));
    row(out, "shards", Formats.count(metadata.shards()) + ", " + Formats.count(
        shards.stream().mapToLong(SnapshotInfo::fileCount).sum()) + " files, " + Formats.bytes(
        shards.stream().mapToLong(SnapshotInfo::totalBytes).sum()));
    out.println();
    out.println(String.format(Locale.ROOT, "%-6s %-24s %8s %14s  %8s  %s", "SHARD", "TAKEN", "FILES", "BYTES",
        "SEGMENTS", "LUCENE"));
    for (int shard = 0; shard < shards.size(); shard++) {
      SnapshotInfo info = shards.get(shard);
      out.println(String.format(Locale.ROOT, "%-6d %-24s %8s %14s  %8s  %s", shard, info.createdAt(),
          Formats.count(info.fileCount()), Formats.count(info.totalBytes()),
          info.segmentCount() < 0 ? "?" : Formats.count(info.segmentCount()),
          info.luceneVersion() == null || info.luceneVersion().isEmpty() ? "?" : info.luceneVersion()));
    }
    out.println();
    out.println(String.format(Locale.ROOT, "%-40s %s", "FIELD", "TYPE"));
    for (IndexMapping.Field field : metadata.mapping().fields().values()) {
      out.println(String.format(Locale.ROOT, "%-40s %s", field.path(), type(field)));
    }
  }

  /** A field's type, with its analyzers and the nested object holding it where it has them. */
  static String type(IndexMapping.Field field) {
    StringBuilder type = new StringBuilder(field.type());
    if (field.analyzer() != null) {
      type.append(", analyzer ").append(field.analyzer());
      if (!field.analyzer().equals(field.searchAnalyzer())) {
        type.append(", search analyzer ").append(field.searchAnalyzer());
      }
    }
    if (field.nestedPath() != null) {
      type.append(", in nested object ").append(field.nestedPath()).append(" (not queryable)");
    }
    return type.toString();
  }

  /** When the index was created ({@code index.creation_date}, epoch milliseconds), or a dash. */
  private static String created(IndexMetadata metadata) {
    String millis = metadata.settings().get("index.creation_date");
    try {
      return millis == null ? "-" : Instant.ofEpochMilli(Long.parseLong(millis)).toString();
    } catch (NumberFormatException e) {
      return millis;
    }
  }

  private static void row(PrintWriter out, String key, String value) {
    out.println(String.format(Locale.ROOT, "%-13s %s", key + ":", value));
  }
}
