/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.blob.BlobStoreVerifier;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code permafrost verify <repository-uri> [name]}: the store check, and every blob against its checksums. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "Check the store, and every blob of the snapshots against their checksums.",
    description = {
      "Checks a repository. First the store: a probe blob is written, read whole and by range, listed and deleted"
          + " (skip it with --no-store-check, e.g. with read-only credentials). Then every snapshot, or the one named:"
          + " its manifest, and every blob it uses, read through once, against what the manifest recorded: its"
          + " length, its chunk table and every chunk's crc32c (or the whole-file crc32c), the Lucene checksum and"
          + " footer, and the bytes the manifest keeps of it. A blob shared by several snapshots is read once.",
      "Prints one line per snapshot and one per damaged file to stdout; exits with 1 if anything is damaged or"
          + " missing, or a check could not run."
    })
final class VerifyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "REPOSITORY-URI", description = "e.g. file:///var/snapshots, s3://bucket/prefix")
  String repositoryUri;

  @Parameters(index = "1", arity = "0..1", paramLabel = "NAME", description = "the snapshot to check (default: all)")
  String name;

  @Option(names = "--no-store-check", negatable = false,
      description = "skip the store check (which writes and deletes a probe blob)")
  boolean noStoreCheck;

  @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
      description = "blobs read at once (default: ${DEFAULT-VALUE})")
  int threads;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (name != null) {
      Names.validateSnapshot(name);
    }
    if (threads < 1) {
      throw new UsageException("--threads must be at least 1, got " + threads);
    }
    boolean failed = false;
    try (Repository repository = Repository.open(repositoryUri)) {
      if (!noStoreCheck) {
        try {
          BlobStoreVerifier.verify(repository.store(), "");
          out.println("store " + repository.describe() + ": ok (write, read, range read, list, delete)");
        } catch (BlobStoreVerifier.VerificationException e) {
          out.println("store " + repository.describe() + ": FAILED at step " + e.step() + ": " + e.getMessage());
          failed = true;
        }
      }
      List<String> names = name != null ? List.of(name) : repository.snapshots().listSnapshots();
      BlobChecker checker = new BlobChecker(repository.store());
      Map<String, Future<BlobChecker.Result>> byBlob = new HashMap<>();
      int damagedSnapshots = 0;
      long bytes = 0;
      ExecutorService executor = Executors.newFixedThreadPool(threads, r -> {
        Thread t = new Thread(r, "permafrost-verify");
        t.setDaemon(true);
        return t;
      });
      try {
        for (String snapshot : names) {
          List<String> problems = new ArrayList<>();
          SnapshotManifest manifest;
          try {
            manifest = repository.snapshots().readManifest(snapshot);
          } catch (SnapshotException.NotFound e) {
            if (name != null) {
              throw e; // the snapshot asked for is not there: a failure, not damage
            }
            out.println("snapshot '" + snapshot + "': gone (deleted while the repository was being checked)");
            continue;
          } catch (SnapshotException.CorruptManifest | SnapshotException.UnsupportedFormat e) {
            out.println("snapshot '" + snapshot + "': DAMAGED: " + Failures.describe(e));
            damagedSnapshots++;
            continue;
          } catch (SnapshotException e) {
            out.println("snapshot '" + snapshot + "': FAILED, its manifest cannot be read: " + Failures.describe(e));
            damagedSnapshots++;
            continue;
          }
          List<Future<BlobChecker.Result>> results = new ArrayList<>();
          for (FileEntry f : manifest.files()) {
            results.add(f.isKeptWhole() ? executor.submit(() -> checker.check(manifest, f))
                : byBlob.computeIfAbsent(f.blobName() + '\n' + manifest.chunkSize(),
                    k -> executor.submit(() -> checker.check(manifest, f))));
          }
          for (int i = 0; i < results.size(); i++) {
            FileEntry f = manifest.files().get(i);
            BlobChecker.Result r = get(results.get(i));
            bytes += r.bytesRead();
            for (String p : r.problems()) {
              problems.add("snapshot '" + snapshot + "' file " + f.name() + ": " + p);
            }
          }
          if (problems.isEmpty()) {
            out.println("snapshot '" + snapshot + "': ok, " + Formats.plural(manifest.files().size(), "file") + ", "
                + Formats.bytes(manifest.info().totalBytes()));
          } else {
            damagedSnapshots++;
            out.println("snapshot '" + snapshot + "': DAMAGED, " + Formats.plural(problems.size(), "problem") + " in "
                + repository.describe() + ":");
            problems.forEach(p -> out.println("  " + p));
          }
          out.flush();
        }
      } finally {
        executor.shutdownNow();
      }
      failed |= damagedSnapshots > 0;
      out.println("checked " + Formats.plural(names.size(), "snapshot") + " (" + Formats.plural(byBlob.size(), "blob")
          + ", " + Formats.bytes(bytes) + " read): " + (damagedSnapshots == 0 ? "no damage found"
              : Formats.plural(damagedSnapshots, "damaged snapshot")));
      if (failed) {
        spec.commandLine().getErr().println(spec.qualifiedName() + ": " + (damagedSnapshots > 0
            ? Formats.plural(damagedSnapshots, "snapshot") + " of " + repository.redactedUri() + " damaged (see above)"
            : "the store check of " + repository.redactedUri() + " failed (see above)"));
      }
    }
    return failed ? ExitCodes.FAILURE : ExitCodes.OK;
  }

  private static BlobChecker.Result get(Future<BlobChecker.Result> future) throws InterruptedException {
    try {
      return future.get();
    } catch (ExecutionException e) {
      return new BlobChecker.Result(0, List.of("the check failed: " + Failures.describe(e.getCause())));
    }
  }
}
