/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.blob.BlobMetadata;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code permafrost delete <repository-uri> <name>}: a snapshot, and the blobs no other snapshot uses. */
@Command(
    name = "delete",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "Delete a snapshot and the blobs no other snapshot uses.",
    description = {
      "Deletes a snapshot: its manifest, then every blob of it that no other snapshot uses (every other manifest is"
          + " read first; if one cannot be read, nothing is deleted). Blobs shared with other snapshots stay.",
      "Do not run it while a snapshot is being taken in the same repository: the repository has one writer at a time."
    })
final class DeleteCommand implements Callable<Integer> {
  /** Where a repository keeps its files' blobs (and the chunk tables of snapshots of format 2): see SnapshotRepository. */
  private static final String BLOBS_PREFIX = "blobs/";

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Parameters(index = "1", paramLabel = "NAME", description = "the snapshot to delete")
  String name;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Names.validateSnapshot(name);
    try (Repository repository = Repository.open(repositoryUri)) {
      long[] before = blobs(repository);
      repository.snapshots().deleteSnapshot(name);
      long[] after = blobs(repository);
      out.println("snapshot '" + name + "' deleted from " + repository.redactedUri() + "; removed "
          + Formats.plural(before[0] - after[0], "blob") + " (" + Formats.bytes(before[1] - after[1]) + ") that no"
          + " other snapshot uses");
    }
    return ExitCodes.OK;
  }

  /** How many blobs the repository holds, and their bytes: one listing. */
  private static long[] blobs(Repository repository) throws IOException {
    List<BlobMetadata> blobs = repository.store().list(BLOBS_PREFIX);
    return new long[] {blobs.size(), blobs.stream().mapToLong(BlobMetadata::length).sum()};
  }
}
