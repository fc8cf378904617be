/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.store.CacheSummary;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code permafrost cache-info <dir>}: what a cache directory holds, from the record of its last clean close. */
@Command(
    name = "cache-info",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    header = "Show what a cache directory holds, without opening it.",
    description = {
      "Prints what a cache directory holds, read from the record its last clean close wrote"
          + " (permafrost-regions.record): the cache's size and regions, and every blob it keeps regions of, with"
          + " the store it came from. Only reads: the cache is not opened, its lock not taken, nothing is changed.",
      "A cache deletes the record when it starts, so a directory whose cache is open now, or whose last run did not"
          + " close it (its next start is cold), has no record: that is said, and is not a failure."
    })
final class CacheInfoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "a cache directory (SharedRegionCache's path)")
  Path dir;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (!Files.isDirectory(dir)) {
      throw new UsageException("the cache directory " + dir.toAbsolutePath() + (Files.exists(dir)
          ? " is not a directory" : " does not exist"));
    }
    CacheSummary summary = CacheSummary.read(dir);
    out.println("cache directory: " + summary.directory());
    out.println("cache file:      " + (summary.cacheFileBytes() < 0 ? "none"
        : Formats.bytes(summary.cacheFileBytes()) + " (" + Formats.count(summary.cacheFileBytes()) + " bytes)"));
    if (!summary.recorded()) {
      out.println("record:          none usable: " + summary.coldReason());
      out.println("the next cache started on this directory starts cold");
      return ExitCodes.OK;
    }
    out.println("record:          of a clean close; the next start on this directory with the same sizes keeps it");
    out.println("layout:          " + Formats.bytes(summary.sizeInBytes()) + ", regions of "
        + Formats.bytes(summary.regionSize()) + ", tail regions of " + Formats.bytes(summary.tailRegionSize()));
    out.println("holds:           " + Formats.plural(summary.regions(), "region") + " of "
        + Formats.plural(summary.blobs().size(), "blob") + ", " + Formats.bytes(summary.slotBytes()) + " of slots, "
        + Formats.bytes(summary.filledBytes()) + " filled");
    String store = null;
    for (CacheSummary.Blob b : summary.blobs()) {
      if (!b.store().equals(store)) {
        store = b.store();
        out.println();
        out.println("store " + store + ":");
        out.println(String.format(Locale.ROOT, "  %-52s %-24s %8s %12s %12s", "BLOB", "FILE", "REGIONS",
            "FILLED", "LENGTH"));
      }
      out.println(String.format(Locale.ROOT, "  %-52s %-24s %8d %12s %12s", b.blobName(), b.fileName(),
          b.regions(), Formats.bytes(b.filledBytes()), Formats.bytes(b.length())));
    }
    return ExitCodes.OK;
  }
}
