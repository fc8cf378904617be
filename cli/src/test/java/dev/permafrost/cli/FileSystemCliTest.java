/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every command, run in process against a repository on the local filesystem ({@code file:}). */
class FileSystemCliTest {
  @TempDir Path tmp;
  private Path day1;
  private Path day2;
  private Path repoDir;
  private String repo;

  @BeforeEach
  void setUp() throws IOException {
    day1 = tmp.resolve("day1");
    day2 = tmp.resolve("day2");
    LogIndexes.write(day1, 0, 3000, 1);
    LogIndexes.write(day2, 1, 2000, 2);
    repoDir = tmp.resolve("repo");
    repo = repoDir.toUri().toString();
  }

  private Cli.Run ok(String... args) {
    Cli.Run run = Cli.run(args);
    assertEquals(0, run.code(), run.toString());
    return run;
  }

  private void snapshotBoth() {
    ok("snapshot", "-p", "@timestamp", day1.toString(), repo, "logs-2024.02.15");
    ok("snapshot", "--quiet", "-p", "@timestamp", day2.toString(), repo, "logs-2024.02.16");
  }

  @Test
  void aSnapshotsWarmQueriesAreKeptInItsManifestWithinTheirLimit() throws IOException {
    ok("snapshot", "-q", day1.toString(), repo, "plain");
    Cli.Run warm = ok("snapshot", "-q", "-w", "message:error", "-w", "host.name:web-01", day1.toString(), repo, "warm");
    assertTrue(warm.out().contains("warm set of 2 queries: the manifest holds "), warm.toString());
    ok("snapshot", "-q", "-w", "message:error", "--warm-bytes", "0", day1.toString(), repo, "none");
    try (var store = FileSystemBlobStore.open(repoDir, false)) {
      SnapshotRepository snapshots = SnapshotRepository.open(store);
      long plain = snapshots.readManifest("plain").heapBytes();
      assertTrue(snapshots.readManifest("warm").heapBytes() > plain, "the warm queries' reads are kept");
      assertEquals(plain, snapshots.readManifest("none").heapBytes(), "a limit of 0 keeps nothing more");
    }
    Cli.Run badQuery = Cli.run("snapshot", "-q", "-w", "message:(error", day1.toString(), repo, "bad-query");
    assertEquals(2, badQuery.code(), badQuery.toString());
    assertTrue(badQuery.err().contains("--warm-query: cannot parse query 'message:(error'"), badQuery.toString());
    Cli.Run badSize = Cli.run("snapshot", "-q", "-w", "error", "--warm-bytes", "lots", day1.toString(), repo, "bad-size");
    assertEquals(2, badSize.code(), badSize.toString());
    assertTrue(badSize.err().contains("--warm-bytes") && badSize.err().contains("'lots'"), badSize.toString());
  }

  @Test
  void aSnapshotBasedOnAnEarlierOneTakesItsChecksumsAndVerifies() {
    ok("snapshot", "-q", day1.toString(), repo, "base");
    Cli.Run again = ok("snapshot", "-q", "--based-on", "base", day1.toString(), repo, "again");
    assertTrue(again.out().contains("uploaded 0 files"), again.toString());
    Cli.Run verified = ok("verify", repo, "again");
    assertTrue(verified.out().contains("snapshot 'again': ok") && verified.out().contains("no damage found"),
        verified.toString()); // every chunk read back against the checksums taken from 'base'
    Cli.Run missing = Cli.run("snapshot", "-q", "--based-on", "nope", day1.toString(), repo, "other");
    assertEquals(1, missing.code(), missing.toString());
    assertTrue(missing.err().contains("cannot take snapshot 'other' based on 'nope'"), missing.toString());
    assertUsage(Cli.run("snapshot", "-q", "--based-on", "-bad", day1.toString(), repo, "other"), "-bad");
  }

  @Test
  void snapshotListInfoSearchAndDelete() throws IOException {
    Cli.Run taken = ok("snapshot", "-p", "@timestamp", day1.toString(), repo, "logs-2024.02.15");
    assertTrue(taken.out().startsWith("snapshot 'logs-2024.02.15' taken in " + repo), taken.toString());
    assertTrue(taken.out().contains("3,000 documents"), taken.toString());
    assertTrue(taken.out().contains("@timestamp: min 17079"), "the point range, as epoch millis: " + taken);
    assertTrue(taken.err().contains("logs-2024.02.15: 100%"), "progress on stderr: " + taken);
    Cli.Run quiet = ok("snapshot", "--quiet", "-p", "@timestamp", day2.toString(), repo, "logs-2024.02.16");
    assertEquals("", quiet.err());

    assertEquals("logs-2024.02.15\nlogs-2024.02.16\n", ok("list", repo).out().replace("\r\n", "\n"));
    Cli.Run longList = ok("list", "-l", repo);
    assertTrue(longList.out().contains("2,000 docs"), longList.toString());

    Cli.Run info = ok("info", repo, "logs-2024.02.15");
    assertTrue(info.out().contains("PermafrostSnapshot version 3, every file's chunks of 32.0 KiB checksummed (crc32c),"
        + " in the manifest"), info.toString());
    assertTrue(info.out().contains("3,000 live, 0 deleted"), info.toString());
    assertTrue(info.out().contains("@timestamp: min 1707955"), info.toString());
    for (String file : indexFiles(day1)) {
      String line = info.out().lines().filter(l -> l.startsWith(file + " ")).findFirst().orElseThrow(
          () -> new AssertionError(file + " is not listed: " + info));
      assertTrue(line.contains(String.format(Locale.ROOT, "%,d", Files.size(day1.resolve(file)))), line);
    }
    assertTrue(info.out().contains("(chunk table in the manifest)"), "some file has a chunk table: " + info);
    assertFalse(info.out().contains("+ chunk table"), "no table blob: " + info);
    assertTrue(info.out().contains("manifest (kept whole)"), "some file is kept whole: " + info);

    TermQuery error = new TermQuery(new Term("message", "error"));
    TermQuery web1 = new TermQuery(new Term("host.name", "web-01"));
    BooleanQuery both = new BooleanQuery.Builder().add(error, BooleanClause.Occur.MUST)
        .add(web1, BooleanClause.Occur.MUST).build();
    int expected = LogIndexes.count(day1, both) + LogIndexes.count(day2, both);
    Cli.Run search = ok("search", "--exact-total", "-n", "3", "-f", "host.name", repo, "logs-2024.02.*",
        "error AND host.name:web-01");
    assertTrue(search.out().contains("total: " + String.format(Locale.ROOT, "%,d", expected) + " hits in 2 indices"),
        search.toString());
    List<String> hits = search.out().lines().filter(l -> l.startsWith("logs-")).toList();
    assertEquals(3, hits.size(), search.toString());
    hits.forEach(h -> assertTrue(h.contains("host.name=web-01"), h));
    Cli.Run timed = ok("search", "--exact-total", "--timeout", "1m", "-n", "3", repo, "logs-2024.02.*",
        "error AND host.name:web-01");
    assertTrue(timed.out().contains("total: " + String.format(Locale.ROOT, "%,d", expected) + " hits"),
        "a timeout the search does not reach changes nothing: " + timed);
    // --from/--to on the timestamp's points: [6:00 on the 15th, 1:00 on the 16th), with and without a declared mapping
    long from = LogIndexes.FIRST_DAY + 6 * 3_600_000L;
    long to = LogIndexes.FIRST_DAY + LogIndexes.DAY + 3_600_000L;
    BooleanQuery inRange = new BooleanQuery.Builder().add(both, BooleanClause.Occur.MUST)
        .add(LongPoint.newRangeQuery("@timestamp", from, to - 1), BooleanClause.Occur.FILTER).build();
    int expectedInRange = LogIndexes.count(day1, inRange) + LogIndexes.count(day2, inRange);
    assertTrue(expectedInRange > 0 && expectedInRange < expected, "a range that keeps some: " + expectedInRange);
    Path mapping = tmp.resolve("mapping.json");
    Files.writeString(mapping, "{\"mappings\": {\"properties\": {\"message\": {\"type\": \"text\"},"
        + " \"host.name\": {\"type\": \"keyword\"}, \"@timestamp\": {\"type\": \"date\"}}}}");
    for (List<String> declared : List.of(List.<String>of(), List.of("--mapping", mapping.toString()))) {
      List<String> args = new ArrayList<>(List.of("search", "--exact-total", "--from", Instant.ofEpochMilli(from).toString(),
          "--to", Long.toString(to)));
      args.addAll(declared);
      args.addAll(List.of(repo, "logs-2024.02.*", "error AND host.name:web-01"));
      Cli.Run ranged = ok(args.toArray(String[]::new));
      assertTrue(ranged.out().contains("total: " + String.format(Locale.ROOT, "%,d", expectedInRange) + " hits in 2"),
          declared + ": " + ranged);
    }
    Cli.Run lowerBound = ok("search", repo, "logs-2024.02.15", "*");
    assertTrue(lowerBound.out().contains("total: at least ") && lowerBound.out().contains(" hits (a lower bound"),
        lowerBound.toString());
    assertEquals(10, lowerBound.out().lines().filter(l -> l.startsWith("logs-2024.02.15\tdoc=")).count(), "10 hits by default");

    Cli.Run deleted = ok("delete", repo, "logs-2024.02.15");
    assertTrue(deleted.out().startsWith("snapshot 'logs-2024.02.15' deleted from " + repo + "; removed "), deleted.toString());
    assertFalse(deleted.out().contains("removed 0 blobs"), deleted.toString());
    assertEquals("logs-2024.02.16\n", ok("list", repo).out().replace("\r\n", "\n"));
    int left = LogIndexes.count(day2, error);
    Cli.Run after = ok("search", "--exact-total", repo, "logs-*", "error");
    assertTrue(after.out().contains("total: " + String.format(Locale.ROOT, "%,d", left) + " hits in 1 index"),
        after.toString());
    ok("verify", repo);
  }

  @Test
  void deleteKeepsTheBlobsAnotherSnapshotUses() throws IOException {
    ok("snapshot", "-q", day1.toString(), repo, "a");
    ok("snapshot", "-q", day1.toString(), repo, "b"); // the same commit: every blob shared
    Cli.Run deleted = ok("delete", repo, "a");
    assertTrue(deleted.out().contains("removed 0 blobs (0 B)"), deleted.toString());
    Cli.Run verify = ok("verify", repo, "b");
    assertTrue(verify.out().contains("snapshot 'b': ok"), verify.toString());
    ok("delete", repo, "b");
    try (var blobs = Files.list(repoDir.resolve("blobs"))) {
      assertEquals(0, blobs.count(), "the last snapshot's delete removes every blob");
    }
  }

  @Test
  void verifyFindsADamagedChunkAndExitsWithOne() throws IOException {
    snapshotBoth();
    Cli.Run clean = ok("verify", repo);
    assertTrue(clean.out().startsWith("store " ), clean.toString());
    assertTrue(clean.out().contains(": ok (write, read, range read, list, delete)"), clean.toString());
    assertTrue(clean.out().contains("checked 2 snapshots"), clean.toString());
    assertTrue(clean.out().contains("no damage found"), clean.toString());

    SnapshotManifest manifest = manifest("logs-2024.02.16");
    FileEntry largest = manifest.files().stream().filter(f -> f.blobName() != null)
        .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    assertTrue(largest.chunkTable() != null, "the largest file has a chunk table: " + largest);
    long offset = largest.length() / 2;
    flipByte(repoDir.resolve(largest.blobName()), offset);

    Cli.Run damaged = Cli.run("verify", repo);
    assertEquals(1, damaged.code(), damaged.toString());
    assertTrue(damaged.out().contains("snapshot 'logs-2024.02.15': ok"), damaged.toString());
    assertTrue(damaged.out().contains("snapshot 'logs-2024.02.16': DAMAGED"), damaged.toString());
    int chunk = (int) (offset / manifest.chunkSize());
    String expected = "snapshot 'logs-2024.02.16' file " + largest.name() + ": blob " + largest.blobName() + ": chunk "
        + chunk + " (bytes [" + (long) chunk * manifest.chunkSize();
    assertTrue(damaged.out().contains(expected), "names the snapshot, file, blob and chunk: " + damaged);
    assertTrue(damaged.out().contains("has Lucene checksum"), "the whole-file checksum fails too: " + damaged);
    assertTrue(damaged.err().contains("1 snapshot of " + repo + " damaged"), damaged.toString());
    assertEquals(0, Cli.run("verify", "--no-store-check", repo, "logs-2024.02.15").code(), "the other snapshot is fine");
  }

  @Test
  void verifyFindsMissingAndShortBlobsAndADamagedChunkTableBlobOfAFormat2Snapshot() throws IOException {
    ok("snapshot", "-q", day1.toString(), repo, "snap");
    try (BlobStore store = FileSystemBlobStore.open(repoDir, false)) {
      TestManifests.rewriteAsFormat2(store, "snap"); // as the writer before format 3 left it: tables in blobs
    }
    SnapshotManifest manifest = manifest("snap");
    ok("verify", "--no-store-check", repo, "snap");
    Cli.Run info = ok("info", repo, "snap");
    assertTrue(info.out().contains("version 2") && info.out().contains("in table blobs")
        && info.out().contains("+ chunk table"), info.toString());
    List<FileEntry> blobs = manifest.files().stream().filter(f -> manifest.chunkTableBlob(f) != null)
        .sorted(Comparator.comparing(FileEntry::name)).toList();
    assertTrue(blobs.size() >= 3, "three files with chunk tables: " + manifest.files());
    Files.delete(repoDir.resolve(blobs.get(0).blobName()));
    Path shortened = repoDir.resolve(blobs.get(1).blobName());
    byte[] bytes = Files.readAllBytes(shortened);
    Files.write(shortened, Arrays.copyOf(bytes, bytes.length - 10));
    flipByte(repoDir.resolve(manifest.chunkTableBlob(blobs.get(2))), 40);

    Cli.Run run = Cli.run("verify", "--no-store-check", repo, "snap");
    assertEquals(1, run.code(), run.toString());
    assertFalse(run.out().contains("store "), "no store check: " + run);
    assertTrue(run.out().contains("file " + blobs.get(0).name() + ": blob " + blobs.get(0).blobName() + " is missing"), run.toString());
    assertTrue(run.out().contains("file " + blobs.get(1).name() + ": blob " + blobs.get(1).blobName() + " is "
        + (bytes.length - 10) + " bytes long, the manifest records " + bytes.length), run.toString());
    assertTrue(run.out().contains("file " + blobs.get(2).name() + ": chunk table blob "
        + manifest.chunkTableBlob(blobs.get(2)) + " is damaged"), run.toString());
    assertTrue(run.out().contains("DAMAGED, 3 problems"), run.toString());
  }

  @Test
  void verifyChecksABlobOfOneChunkAgainstItsWholeFileCrc32c() throws IOException {
    // nothing kept whole in the manifest: small files become blobs of one chunk, with no chunk table
    try (BlobStore store = FileSystemBlobStore.open(repoDir, false);
        FSDirectory local = FSDirectory.open(day2)) {
      SnapshotRepository.open(store).createSnapshot("small", local, SnapshotOptions.DEFAULTS.withKeepWholeLimits(0, 0));
    }
    SnapshotManifest manifest = manifest("small");
    FileEntry small = manifest.files().stream()
        .filter(f -> f.blobName() != null && f.chunkTable() == null && f.length() > 100)
        .min(Comparator.comparing(FileEntry::name)).orElseThrow();
    ok("verify", "--no-store-check", repo, "small");
    flipByte(repoDir.resolve(small.blobName()), 20);

    Cli.Run run = Cli.run("verify", "--no-store-check", repo, "small");
    assertEquals(1, run.code(), run.toString());
    assertTrue(run.out().contains("file " + small.name() + ": blob " + small.blobName() + ": chunk 0 (bytes [0, "
        + small.length() + ")) has crc32c "), run.toString());
    assertTrue(run.out().contains(", the manifest records " + String.format(Locale.ROOT, "%08x",
        small.wholeCrc32c())), run.toString());
  }

  @Test
  void cacheInfoReadsTheRecordOfACacheClosedCleanlyWithoutTakingItsLock() throws IOException {
    ok("snapshot", "-q", day1.toString(), repo, "snap");
    Path cacheDir = tmp.resolve("cache");
    SnapshotManifest manifest;
    String described;
    try (BlobStore store = FileSystemBlobStore.open(repoDir, false);
        SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir).size("64mb").regionSize(1 << 20).build()) {
      SnapshotRepository repository = SnapshotRepository.open(store);
      described = repository.store().describe();
      manifest = CachedManifests.read(repository, "snap", cache);
      try (BlobDirectory dir = BlobDirectory.open(repository, manifest, cache, "snap");
          DirectoryReader reader = DirectoryReader.open(dir)) {
        new IndexSearcher(reader).count(new TermQuery(new Term("message", "error")));
        for (FileEntry f : manifest.files()) {
          try (IndexInput in = dir.openInput(f.name(), IOContext.READONCE)) {
            in.readBytes(new byte[(int) f.length()], 0, (int) f.length());
          }
        }
      }
    }
    Path record = cacheDir.resolve("permafrost-regions.record");
    byte[] recordBytes = Files.readAllBytes(record);

    Cli.Run run = ok("cache-info", cacheDir.toString());
    assertTrue(run.out().contains("record:          of a clean close"), run.toString());
    assertTrue(run.out().contains("layout:          64.0 MiB, regions of 1.0 MiB"), run.toString());
    assertTrue(run.out().contains("store " + described + ":"), "the store, as the cache knew it: " + run);
    for (FileEntry f : manifest.files()) {
      if (f.blobName() != null) {
        assertTrue(run.out().contains(f.blobName()), f.blobName() + " is listed: " + run);
      }
    }
    assertTrue(run.out().contains("snapshots/snap.manifest"), "the manifest too: " + run);
    assertArrayEquals(recordBytes, Files.readAllBytes(record), "cache-info changes nothing");

    try (SharedRegionCache open = SharedRegionCache.builder().path(cacheDir).size("64mb").regionSize(1 << 20).build()) {
      assertTrue(open.stats().regionsInUse() > 0, "the record was still there for the next start");
      Cli.Run inUse = ok("cache-info", cacheDir.toString()); // would fail if it took the lock this JVM holds
      assertTrue(inUse.out().contains("record:          none usable: no record of a clean close"), inUse.toString());
      assertTrue(inUse.out().contains("cache file:      64.0 MiB"), inUse.toString());
    }
    Cli.Run missing = Cli.run("cache-info", tmp.resolve("nothing-here").toString());
    assertEquals(2, missing.code(), missing.toString());
    assertTrue(missing.err().contains("nothing-here does not exist"), missing.toString());
  }

  @Test
  void usageErrorsExitWithTwoAndSayWhatIsWrong() {
    Cli.Run badScheme = Cli.run("list", "nosuch://bucket/prefix?secret_key=TOPSECRET");
    assertEquals(2, badScheme.code(), badScheme.toString());
    assertTrue(badScheme.err().startsWith("permafrost list: bad repository URI: no blob store backend for scheme"
        + " 'nosuch' in 'nosuch://bucket/prefix'"), badScheme.toString());
    assertTrue(badScheme.err().contains("available schemes: [azblob, file, gs, s3]"), badScheme.toString());
    assertTrue(badScheme.err().contains("Try 'permafrost list --help'"), badScheme.toString());
    assertFalse(badScheme.err().contains("TOPSECRET"), badScheme.toString());

    Cli.Run malformed = Cli.run("info", "s3://bucket/a b?secret_key=TOPSECRET", "snap");
    assertEquals(2, malformed.code(), malformed.toString());
    assertTrue(malformed.err().contains("the repository URI is not a valid URI: Illegal character in path at index 13"),
        malformed.toString());
    assertFalse(malformed.err().contains("TOPSECRET"), malformed.toString());

    Cli.Run noScheme = Cli.run("list", "relative/dir");
    assertEquals(2, noScheme.code(), noScheme.toString());
    assertTrue(noScheme.err().contains("has no scheme") && noScheme.err().contains("use file:///absolute/path"),
        noScheme.toString());

    Cli.Run s3NoBucket = Cli.run("list", "s3:///prefix");
    assertEquals(2, s3NoBucket.code(), s3NoBucket.toString());
    assertTrue(s3NoBucket.err().contains("has no bucket"), s3NoBucket.toString());

    assertUsage(Cli.run(), "name a command");
    assertUsage(Cli.run("frobnicate"), "Unmatched argument at index 0: 'frobnicate'");
    assertUsage(Cli.run("list"), "Missing required parameter: 'REPOSITORY-URI'");
    assertUsage(Cli.run("list", "--bogus", repo), "Unknown option: '--bogus'");
    assertUsage(Cli.run("info", repo, "../etc"), "invalid snapshot name '../etc'");
    assertUsage(Cli.run("snapshot", tmp.resolve("none").toString(), repo, "x"), "none does not exist");
    assertUsage(Cli.run("search", repo, "x", "message:(unclosed"), "cannot parse query 'message:(unclosed'");
    assertUsage(Cli.run("search", "--from", "yesterday", repo, "x", "error"), "--from/--to: 'from' must be");
    assertUsage(Cli.run("search", "--timeout", "soon", repo, "x", "error"), "--timeout must be a positive duration");
    assertUsage(Cli.run("verify", "--threads", "0", repo), "--threads must be at least 1");
    Path typo = tmp.resolve("no-such-repo");
    assertUsage(Cli.run("list", typo.toUri().toString()), "no repository at " + typo.toUri() + ": " + typo + " is not a directory");
    assertFalse(Files.exists(typo), "a command that reads creates no repository");
  }

  private static void assertUsage(Cli.Run run, String message) {
    assertEquals(2, run.code(), run.toString());
    assertTrue(run.err().contains(message), "'" + message + "' in " + run);
    assertEquals("", run.out(), run.toString());
  }

  @Test
  void failuresExitWithOneAndNameWhatIsAtFault() throws IOException {
    ok("snapshot", "-q", day1.toString(), repo, "snap");
    Cli.Run missing = Cli.run("info", repo, "nope");
    assertEquals(1, missing.code(), missing.toString());
    assertTrue(missing.err().startsWith("permafrost info: no snapshot 'nope' in "), missing.toString());
    assertTrue(missing.err().contains("snapshots/nope.manifest"), missing.toString());

    assertEquals(1, Cli.run("verify", repo, "nope").code());
    assertEquals(1, Cli.run("delete", repo, "nope").code());
    Cli.Run none = Cli.run("search", repo, "logs-*", "error");
    assertEquals(1, none.code(), none.toString());
    assertTrue(none.err().contains("no snapshot in " + repo + " matches 'logs-*'"), none.toString());

    Cli.Run exists = Cli.run("snapshot", "-q", day1.toString(), repo, "snap");
    assertEquals(1, exists.code(), exists.toString());
    assertTrue(exists.err().contains("snapshot 'snap' already exists"), exists.toString());

    Path empty = Files.createDirectories(tmp.resolve("empty"));
    Cli.Run noIndex = Cli.run("snapshot", empty.toString(), repo, "other");
    assertEquals(1, noIndex.code(), noIndex.toString());
    assertTrue(noIndex.err().contains("holds no Lucene index"), noIndex.toString());

    Path manifest = repoDir.resolve("snapshots/snap.manifest");
    byte[] bytes = Files.readAllBytes(manifest);
    Files.write(manifest, Arrays.copyOf(bytes, bytes.length - 3));
    Cli.Run corrupt = Cli.run("verify", "--no-store-check", repo);
    assertEquals(1, corrupt.code(), corrupt.toString());
    assertTrue(corrupt.out().contains("snapshot 'snap': DAMAGED: snapshot manifest"), corrupt.toString());
  }

  @Test
  void helpAndVersion() {
    Cli.Run help = ok("--help");
    assertTrue(help.out().contains("Usage: permafrost"), help.toString());
    for (String command : List.of("snapshot", "list", "info", "verify", "delete", "search", "cache-info")) {
      assertTrue(help.out().contains("  " + command + " "), command + " in " + help);
      Cli.Run commandHelp = ok(command, "--help");
      assertTrue(commandHelp.out().contains("Usage: permafrost " + command + " "), commandHelp.toString());
    }
    Cli.Run version = ok("--version");
    assertTrue(version.out().startsWith("permafrost " + System.getProperty("permafrost.cli.version") + "\n"), version.toString());
    assertTrue(version.out().contains("Lucene 10."), version.toString());
  }

  private SnapshotManifest manifest(String name) throws IOException {
    try (BlobStore store = FileSystemBlobStore.open(repoDir, false)) {
      return SnapshotRepository.open(store).readManifest(name);
    }
  }

  private static List<String> indexFiles(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> !n.equals("write.lock")).sorted().toList();
    }
  }

  static void flipByte(Path file, long offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[Math.toIntExact(offset)] ^= 0x5A;
    Files.write(file, bytes);
  }
}
