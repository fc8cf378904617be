/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.snapshot.SnapshotInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code permafrost list [--format FORMAT] <repository-uri>}: the snapshots of a repository, one a line; of an
 * OpenSearch or Elasticsearch repository, each index of each snapshot, {@code SNAPSHOT/INDEX}.
 */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "List the snapshots of a repository.",
    description = {
      "Lists the snapshots of the repository, sorted by name, one a line (a listing of its manifests; with --long, each"
          + " manifest is read too).",
      "With --format opensearch or elasticsearch, the repository is one a cluster wrote: each index of each completed"
          + " snapshot is a line, SNAPSHOT/INDEX as info and search take it, snapshots oldest first (their start"
          + " times are read from their metadata, a request each the first time). With --long, also when each was"
          + " taken, its shards, files and bytes (a request for each index's metadata and one for each shard's file"
          + " list)."
    })
final class ListCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin RepositoryFormat format;

  @Parameters(index = "0", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Option(names = {"-l", "--long"},
      description = "also the creation time, live documents, files and bytes of each (reads every manifest); of an"
          + " engine's index, when it was taken, its shards, files and bytes")
  boolean longFormat;

  @Override
  public Integer call() throws Exception {
    format.checkPermafrostOptions();
    PrintWriter out = spec.commandLine().getOut();
    if (format.isEngine()) {
      listEngine(out);
      return ExitCodes.OK;
    }
    try (Repository repository = Repository.open(repositoryUri)) {
      List<String> names = repository.snapshots().listSnapshots();
      if (names.isEmpty()) {
        String hint = repository.engineHint();
        if (!hint.isEmpty()) {
          PrintWriter err = spec.commandLine().getErr();
          err.println(spec.qualifiedName() + ": no Permafrost snapshot in " + repository.redactedUri() + hint);
        }
      }
      for (String name : names) {
        if (!longFormat) {
          out.println(name);
          continue;
        }
        SnapshotInfo info = repository.snapshots().snapshotInfo(name);
        out.println(String.format(Locale.ROOT, "%-40s %-24s %14s docs %6s files %12s", name,
            info.createdAt(), Formats.count(info.numDocs()), Formats.count(info.fileCount()),
            Formats.bytes(info.totalBytes())));
      }
    }
    return ExitCodes.OK;
  }

  private void listEngine(PrintWriter out) throws IOException {
    try (EngineRepository repository = EngineRepository.open(repositoryUri, format)) {
      EngineSnapshotRepository engine = repository.engine();
      for (String snapshot : engine.snapshots()) {
        List<String> indices = engine.indices(snapshot);
        if (indices.isEmpty()) {
          out.println(snapshot + (longFormat ? " (no index)" : "")); // a snapshot of the cluster's state alone
        }
        for (String index : indices) {
          String name = snapshot + "/" + index;
          if (!longFormat) {
            out.println(name);
            continue;
          }
          int shards = engine.indexMetadata(snapshot, index).shards();
          Instant started = null;
          long files = 0;
          long bytes = 0;
          for (int shard = 0; shard < shards; shard++) {
            String shardName = EngineSnapshotRepository.shard(snapshot, index, shard);
            SnapshotInfo info = engine.parseManifest(shardName, engine.readManifestBytes(shardName)).info();
            started = started == null || info.createdAt().isBefore(started) ? info.createdAt() : started;
            files += info.fileCount();
            bytes += info.totalBytes();
          }
          out.println(String.format(Locale.ROOT, "%-40s %-24s %6s shards %6s files %12s", name, started,
              Formats.count(shards), Formats.count(files), Formats.bytes(bytes)));
        }
      }
    }
  }
}
