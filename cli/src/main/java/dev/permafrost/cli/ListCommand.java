/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.snapshot.SnapshotInfo;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code permafrost list <repository-uri>}: the snapshots of a repository, one a line. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "List the snapshots of a repository.",
    description = "Lists the snapshots of the repository, sorted by name, one a line (a listing of its manifests; with"
        + " --long, each manifest is read too).")
final class ListCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Option(names = {"-l", "--long"},
      description = "also the creation time, live documents, files and bytes of each (reads every manifest)")
  boolean longFormat;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (Repository repository = Repository.open(repositoryUri)) {
      List<String> names = repository.snapshots().listSnapshots();
      for (String name : names) {
        if (!longFormat) {
          out.println(name);
          continue;
        }
        SnapshotInfo info = repository.snapshots().snapshotInfo(name);
        out.println(String.format(java.util.Locale.ROOT, "%-40s %-24s %14s docs %6s files %12s", name,
            info.createdAt(), Formats.count(info.numDocs()), Formats.count(info.fileCount()),
            Formats.bytes(info.totalBytes())));
      }
    }
    return ExitCodes.OK;
  }
}
