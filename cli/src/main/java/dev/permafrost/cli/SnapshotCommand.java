/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.blob.ByteSizes;
import dev.permafrost.elasticsearch.QueryFront;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotProgress;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.lucene.search.Query;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code permafrost snapshot <index-dir> <repository-uri> <name>}: uploads the index's latest commit. */
@Command(
    name = "snapshot",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "Take a snapshot of a local Lucene index into a repository.",
    description = {
      "Takes a snapshot of the latest commit of the Lucene index in INDEX-DIR into the repository: uploads the files"
          + " the repository does not hold yet (in parallel, each checked against its Lucene checksum while it"
          + " streams), then writes the manifest. Progress goes to stderr, the result to stdout.",
      "Do not write the index while it is being taken: a file deleted by a merge fails the snapshot (no snapshot is"
          + " left behind; blobs already uploaded are reused by the next attempt)."
    })
final class SnapshotCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "INDEX-DIR", description = "the directory of a Lucene index")
  Path indexDir;

  @Parameters(index = "1", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Parameters(index = "2", paramLabel = "NAME",
      description = "the new snapshot's name: 1 to 200 letters, digits, '.', '_' or '-', starting with a letter or digit")
  String name;

  @Option(names = {"-p", "--point-field"}, paramLabel = "FIELD",
      description = "a point field whose min and max the manifest records, so that searches skip the index without"
          + " opening it when their range cannot match (e.g. @timestamp); repeatable")
  List<String> pointFields = new ArrayList<>();

  @Option(names = "--upload-threads", paramLabel = "N", defaultValue = "4",
      description = "files uploaded at once (default: ${DEFAULT-VALUE})")
  int uploadThreads;

  @Option(names = {"-w", "--warm-query"}, paramLabel = "QUERY",
      description = "a query (Lucene's classic syntax, as search reads it) whose best ten hits' reads the manifest"
          + " keeps, so that its first run on a cold mount needs no request past the manifest: the snapshot's warm"
          + " set; repeatable")
  List<String> warmQueries = new ArrayList<>();

  @Option(names = "--warm-bytes", paramLabel = "SIZE", defaultValue = "2mb",
      description = "at most this much of the warm queries' reads is kept, smallest ranges first; a mounted index"
          + " holds it on heap while its reader is open (default: ${DEFAULT-VALUE})")
  String warmBytes;

  @Option(names = "--default-field", paramLabel = "FIELD", defaultValue = "message",
      description = "the field of a warm query's terms without a field name (default: ${DEFAULT-VALUE})")
  String defaultField;

  @Option(names = "--based-on", paramLabel = "SNAPSHOT",
      description = "an earlier snapshot of this index in the repository: the files whose blobs it has are not read"
          + " again, their checksums taken from its manifest (without it, every file is read once, locally)")
  String basedOn;

  @Option(names = {"-q", "--quiet"}, description = "no progress on stderr")
  boolean quiet;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Names.validateSnapshot(name);
    if (basedOn != null) {
      Names.validateSnapshot(basedOn);
    }
    if (!Files.isDirectory(indexDir)) {
      throw new UsageException("the index directory " + indexDir.toAbsolutePath() + (Files.exists(indexDir)
          ? " is not a directory" : " does not exist"));
    }
    if (uploadThreads < 1) {
      throw new UsageException("--upload-threads must be at least 1, got " + uploadThreads);
    }
    long warmLimit;
    try {
      warmLimit = ByteSizes.parse(warmBytes);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--warm-bytes: " + e.getMessage(), e);
    }
    if (warmLimit < 0 || warmLimit > Integer.MAX_VALUE) {
      throw new UsageException("--warm-bytes must be from 0 to 2gb, got " + warmBytes);
    }
    List<Query> warm = new ArrayList<>();
    QueryFront front = new QueryFront(defaultField, "@timestamp");
    for (String q : warmQueries) {
      try {
        warm.add(front.query(front.undeclared(front.fieldsOf(q)), q, QueryFront.TimeRange.ALL)); // as search reads it
      } catch (IllegalArgumentException e) {
        throw new UsageException("--warm-query: " + e.getMessage(), e);
      }
    }
    ProgressPrinter progress = new ProgressPrinter(quiet ? null : err);
    SnapshotOptions options = SnapshotOptions.DEFAULTS
        .withPointFields(pointFields.toArray(String[]::new))
        .withUploadThreads(uploadThreads)
        .withWarmQueries(warm.toArray(Query[]::new))
        .withWarmBytesLimit((int) warmLimit)
        .withBasedOn(basedOn)
        .withListener(progress);
    try (Repository repository = Repository.open(repositoryUri, true);
        Directory directory = FSDirectory.open(indexDir)) {
      SnapshotRepository snapshots = repository.snapshots();
      SnapshotInfo info = snapshots.createSnapshot(name, directory, options);
      SnapshotProgress last = progress.last();
      out.println("snapshot '" + info.name() + "' taken in " + repository.redactedUri() + ": "
          + Formats.plural(info.fileCount(), "file") + ", " + Formats.bytes(info.totalBytes()) + ", "
          + Formats.plural(info.numDocs(), "document") + "; uploaded "
          + (last == null ? "nothing" : Formats.plural(last.filesUploaded(), "file") + " ("
              + Formats.bytes(last.bytesUploaded()) + ")") + ", the rest was in the repository or the manifest");
      for (var range : info.pointRanges().values()) {
        out.println("  " + range.field() + ": " + Formats.pointRange(range));
      }
      if (!warm.isEmpty()) {
        out.println("  warm set of " + warm.size() + (warm.size() == 1 ? " query" : " queries") + ": the manifest holds "
            + Formats.bytes(snapshots.readManifest(info.name()).heapBytes()) + " on heap");
      }
    }
    return ExitCodes.OK;
  }

  /**
   * Prints progress on stderr: a line when the share of bytes done passes another tenth, and at the end; nothing
   * when quiet. Remembers the last report, for the summary.
   */
  static final class ProgressPrinter implements SnapshotProgress.Listener {
    private final PrintWriter err;
    private volatile SnapshotProgress last;
    private int lastTenth = -1;

    ProgressPrinter(PrintWriter err) {
      this.err = err;
    }

    @Override
    public void onProgress(SnapshotProgress p) {
      last = p;
      if (err == null) {
        return;
      }
      int tenth = p.bytesTotal() == 0 ? 10 : (int) (p.bytesDone() * 10 / p.bytesTotal());
      if (tenth == lastTenth && p.filesDone() < p.filesTotal()) {
        return;
      }
      lastTenth = tenth;
      err.println(String.format(Locale.ROOT, "%s: %3d%%  %d/%d files, %s of %s (uploaded %s, %s)",
          p.snapshot(), p.bytesTotal() == 0 ? 100 : p.bytesDone() * 100 / p.bytesTotal(), p.filesDone(),
          p.filesTotal(), Formats.bytes(p.bytesDone()), Formats.bytes(p.bytesTotal()),
          Formats.plural(p.filesUploaded(), "file"), Formats.bytes(p.bytesUploaded())));
      err.flush();
    }

    SnapshotProgress last() {
      return last;
    }
  }
}
