/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.snapshot.SnapshotManifest;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.ByteArrayDataInput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code permafrost info [--format FORMAT] <repository-uri> <name>}: what one snapshot is, from its manifest; or an
 * OpenSearch or Elasticsearch snapshot's indices, or one index's shards and mapping ({@link EngineInfo}).
 */
@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "Show what a snapshot is: files, sizes, documents, point ranges, format.",
    description = {
      "Prints what a snapshot is, from its manifest (one read): its format, commit, documents, point ranges, user data"
          + " and every file with its length, where its bytes are (kept whole in the manifest, or a blob with its chunk"
          + " table) and the Lucene checksum.",
      "With --format opensearch or elasticsearch, NAME is SNAPSHOT or SNAPSHOT/INDEX of a cluster's repository: a"
          + " snapshot's indices with their shards, uuids and creation times (a request per index), or one index's"
          + " uuid, shards (when taken, files, bytes, segments and Lucene version: a request per shard) and every"
          + " mapped field with its type."
    })
final class InfoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin RepositoryFormat format;

  @Parameters(index = "0", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Parameters(index = "1", paramLabel = "NAME",
      description = "the snapshot; with --format opensearch or elasticsearch, SNAPSHOT or SNAPSHOT/INDEX")
  String name;

  @Override
  public Integer call() throws Exception {
    format.checkPermafrostOptions();
    PrintWriter out = spec.commandLine().getOut();
    if (format.isEngine()) {
      try (EngineRepository repository = EngineRepository.open(repositoryUri, format)) {
        EngineInfo.print(out, repository, name);
      }
      return ExitCodes.OK;
    }
    Names.validateSnapshot(name);
    try (Repository repository = Repository.open(repositoryUri)) {
      byte[] bytes;
      try {
        bytes = repository.snapshots().readManifestBytes(name);
      } catch (SnapshotException.NotFound e) {
        String hint = repository.engineHint();
        if (hint.isEmpty()) {
          throw e;
        }
        throw new SnapshotException.NotFound(e.getMessage() + hint, e);
      }
      SnapshotManifest manifest = repository.snapshots().parseManifest(name, bytes);
      SnapshotInfo info = manifest.info();
      row(out, "snapshot", info.name());
      row(out, "repository", repository.redactedUri());
      row(out, "created", info.createdAt().toString());
      row(out, "format", format(bytes, manifest));
      row(out, "lucene", "commit written by Lucene " + (info.luceneVersion().isEmpty() ? "(unknown)" : info.luceneVersion()));
      row(out, "commit", manifest.segmentsFileName() + " (generation " + info.generation() + "), "
          + Formats.plural(info.segmentCount(), "segment"));
      row(out, "documents", Formats.count(info.numDocs()) + " live, " + Formats.count(info.maxDoc() - info.numDocs())
          + " deleted (maxDoc " + Formats.count(info.maxDoc()) + ")");
      long keptWhole = manifest.files().stream().filter(FileEntry::isKeptWhole).count();
      row(out, "size", Formats.plural(info.fileCount(), "file") + ", " + Formats.bytes(info.totalBytes()) + " ("
          + Formats.count(info.totalBytes()) + " bytes); " + keptWhole + " kept whole in the manifest ("
          + Formats.bytes(bytes.length) + ")");
      if (info.pointRanges().isEmpty()) {
        row(out, "point ranges", "none recorded (take the snapshot with --point-field to record some)");
      }
      for (PointRange range : info.pointRanges().values()) {
        row(out, "point range", range.field() + ": " + Formats.pointRange(range));
      }
      for (Map.Entry<String, String> e : info.userData().entrySet()) {
        row(out, "user data", e.getKey() + "=" + e.getValue());
      }
      out.println();
      out.println(String.format(Locale.ROOT, "%-24s %14s  %-16s  %s", "FILE", "BYTES", "CHECKSUM", "WHERE"));
      for (FileEntry f : manifest.files()) {
        out.println(String.format(Locale.ROOT, "%-24s %14s  %016x  %s", f.name(), Formats.count(f.length()),
            f.checksum(), where(manifest, f)));
      }
    }
    return ExitCodes.OK;
  }

  private static void row(PrintWriter out, String key, String value) {
    out.println(String.format(Locale.ROOT, "%-13s %s", key + ":", value));
  }

  private static String where(SnapshotManifest manifest, FileEntry f) {
    if (f.isKeptWhole()) {
      return "manifest (kept whole)";
    }
    long warm = f.warmRanges().stream().mapToLong(r -> r.bytes().length).sum();
    String table = manifest.chunkTableBlob(f);
    return f.blobName() + (table != null ? " + chunk table" : f.chunkTable() != null ? " (chunk table in the manifest)"
        : manifest.chunkSize() > 0 ? " (whole-file crc32c)" : "")
        + "; " + Formats.bytes(warm) + " in the manifest";
  }

  /** The manifest's codec and format version from its header, and what the version means. */
  static String format(byte[] manifestBytes, SnapshotManifest manifest) throws IOException {
    ByteArrayDataInput in = new ByteArrayDataInput(manifestBytes);
    CodecUtil.readBEInt(in); // the magic; parseManifest checked it
    String codec = in.readString();
    int version = CodecUtil.readBEInt(in);
    return codec + " version " + version + (manifest.chunkSize() > 0
        ? ", every file's chunks of " + Formats.bytes(manifest.chunkSize()) + " checksummed (crc32c)"
            + (manifest.tablesInManifest() ? ", in the manifest" : ", in table blobs beside the files'")
        : ", no chunk checksums (files are verified only when read whole)");
  }
}
