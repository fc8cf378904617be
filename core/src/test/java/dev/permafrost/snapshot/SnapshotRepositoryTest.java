/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotRepositoryTest {
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private CountingBlobStore store;
  private SnapshotRepository repo;

  @BeforeEach
  void setUp() throws IOException {
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
  }

  private Directory index(String name, int docs, int commits) throws IOException {
    Directory dir = FSDirectory.open(tmp.resolve(name));
    RandomIndexes.build(dir, random, docs, commits);
    return dir;
  }

  private static byte[] readFile(Directory dir, String file, long offset, int length) throws IOException {
    try (IndexInput in = dir.openInput(file, IOContext.READONCE)) {
      byte[] bytes = new byte[length];
      in.seek(offset);
      in.readBytes(bytes, 0, length);
      return bytes;
    }
  }

  @Test
  void everyFileIsCoveredByChunkChecksumsKeptInTheManifestAndNoTableBlobIsWritten() throws IOException {
    int chunkSize = 8 << 10;
    try (Directory dir = index("chunks", 3000, 2)) {
      repo.createSnapshot("c1", dir, SnapshotOptions.DEFAULTS.withChunkSize(chunkSize));
      SnapshotManifest manifest = repo.readManifest("c1");
      assertEquals(chunkSize, manifest.chunkSize());
      assertTrue(manifest.tablesInManifest());
      int tables = 0;
      long tableHeap = 0;
      for (FileEntry f : manifest.files()) {
        assertNull(manifest.chunkTableBlob(f), "no table blob in format 3: " + f);
        if (f.blobName() == null) {
          assertNull(f.chunkTable(), f.name());
          continue;
        }
        byte[] bytes = readFile(dir, f.name(), 0, (int) f.length());
        ChunkTable t = f.chunkTable();
        if (t == null) {
          assertTrue(f.length() <= chunkSize, f.name());
          assertEquals(ChunkTable.crc32c(bytes, 0, bytes.length), f.wholeCrc32c(), "the manifest keeps the CRC32C of " + f.name());
          continue;
        }
        tables++;
        tableHeap += 4L * t.chunkCount();
        assertEquals(chunkSize, t.chunkSize());
        assertEquals(f.length(), t.fileLength());
        assertEquals((f.length() + chunkSize - 1) / chunkSize, t.chunkCount(), f.name());
        for (int c = 0; c < t.chunkCount(); c++) {
          int from = c * chunkSize;
          assertEquals(ChunkTable.crc32c(bytes, from, (int) Math.min(chunkSize, bytes.length - from)), t.checksum(c));
        }
      }
      assertTrue(tables > 0, "the index must have files of more than one chunk");
      for (BlobMetadata b : store.list("blobs/")) {
        assertFalse(b.name().contains(".crc32c-"), "a table blob was written: " + b.name());
      }
      assertTrue(manifest.heapBytes() > tableHeap, "the tables count in the manifest's heap");
      // a second snapshot of the same files uploads nothing but its manifest, and records the same tables
      store.reset();
      repo.createSnapshot("c2", dir, SnapshotOptions.DEFAULTS.withChunkSize(chunkSize));
      assertEquals(1, store.writeRequests.get(), "only the manifest, no file again");
      assertEquals(0, store.readRequests.get(), "no blob is read back: the tables come from the local files");
      SnapshotManifest second = repo.readManifest("c2");
      for (FileEntry f : manifest.files()) {
        ChunkTable a = f.chunkTable();
        ChunkTable b = second.file(f.name()).chunkTable();
        assertEquals(a == null, b == null, f.name());
        for (int c = 0; a != null && c < a.chunkCount(); c++) {
          assertEquals(a.checksum(c), b.checksum(c), f.name());
        }
        assertEquals(f.wholeCrc32c(), second.file(f.name()).wholeCrc32c(), f.name());
      }
    }
  }

  @Test
  void roundTripOfARandomIndex() throws IOException {
    try (Directory dir = index("idx", 3000, 4)) {
      SnapshotInfo info = repo.createSnapshot("snap-1", dir, SnapshotOptions.DEFAULTS.withPointFields("@timestamp", "status", "nope"));
      assertEquals(List.of("snap-1"), repo.listSnapshots());
      SnapshotManifest manifest = repo.readManifest("snap-1");
      assertEquals(info, manifest.info(), "seed " + seed);
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertEquals(reader.maxDoc(), info.maxDoc());
        assertEquals(reader.numDocs(), info.numDocs());
        assertEquals(reader.getIndexCommit().getSegmentsFileName(), manifest.segmentsFileName());
        assertEquals(new HashSet<>(reader.getIndexCommit().getFileNames()),
            manifest.files().stream().map(FileEntry::name).collect(Collectors.toSet()));
        assertEquals(reader.getIndexCommit().getUserData(), info.userData());
        assertEquals(reader.leaves().size(), info.segmentCount());
      }
      long total = 0;
      for (FileEntry f : manifest.files()) {
        assertEquals(dir.fileLength(f.name()), f.length(), f.name());
        total += f.length();
        if (f.isKeptWhole()) {
          assertArrayEquals(readFile(dir, f.name(), 0, (int) f.length()), f.wholeBytes(), f.name());
        } else {
          try (InputStream in = store.read(f.blobName())) {
            assertArrayEquals(readFile(dir, f.name(), 0, (int) f.length()), in.readAllBytes(), f.name());
          }
          assertFalse(f.warmRanges().isEmpty());
          assertEquals(0, f.warmRanges().getFirst().offset(), "the header is kept: " + f);
          assertEquals(f.length(), f.warmRanges().getLast().end(), "the footer is kept: " + f);
          for (FileEntry.WarmRange r : f.warmRanges()) {
            assertArrayEquals(readFile(dir, f.name(), r.offset(), r.bytes().length), r.bytes(), f.name() + " " + r);
          }
        }
      }
      assertEquals(total, info.totalBytes());
      assertTrue(manifest.files().stream().anyMatch(f -> !f.isKeptWhole()), "the test index is too small");

      PointRange ts = info.pointRanges().get("@timestamp");
      assertNotNull(ts);
      assertEquals(1, ts.numDimensions());
      assertEquals(Long.BYTES, ts.bytesPerDimension());
      long min = LongPoint.decodeDimension(ts.minPackedValue(), 0);
      long max = LongPoint.decodeDimension(ts.maxPackedValue(), 0);
      assertTrue(min >= RandomIndexes.BASE_TIME && min < RandomIndexes.BASE_TIME + 1000, "min " + min);
      assertTrue(max >= RandomIndexes.BASE_TIME + 2999_000L, "max " + max);
      assertTrue(info.pointRanges().containsKey("status"));
      assertFalse(info.pointRanges().containsKey("nope"));
    }
  }

  @Test
  void aCommitCanBeSnapshottedWhileTheWriterGoesOn() throws IOException {
    try (Directory dir = FSDirectory.open(tmp.resolve("live"));
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
      RandomIndexes.append(writer, random, 0, 500, 1);
      IndexCommit commit;
      try (DirectoryReader r = DirectoryReader.open(writer)) {
        commit = DirectoryReader.listCommits(dir).getLast();
      }
      SnapshotInfo info = repo.createSnapshot("from-commit", commit);
      assertEquals(commit.getGeneration(), info.generation());
      RandomIndexes.append(writer, random, 500, 100, 1);
      SnapshotManifest manifest = repo.readManifest("from-commit");
      assertEquals(500, manifest.info().maxDoc());
      assertEquals(commit.getSegmentsFileName(), manifest.segmentsFileName());
      assertEquals(new HashSet<>(commit.getFileNames()),
          manifest.files().stream().map(FileEntry::name).collect(Collectors.toSet()));
    }
  }

  @Test
  void aSecondSnapshotOfAGrownIndexUploadsOnlyNewFiles() throws IOException {
    try (Directory dir = FSDirectory.open(tmp.resolve("grow"))) {
      IndexWriterConfig config = new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE);
      try (IndexWriter writer = new IndexWriter(dir, config)) {
        RandomIndexes.append(writer, random, 0, 2000, 2);
        repo.createSnapshot("day-1", dir);
        SnapshotManifest first = repo.readManifest("day-1");
        RandomIndexes.append(writer, random, 2000, 1500, 1);
      }
      List<SnapshotProgress> reports = new ArrayList<>();
      store.reset();
      SnapshotInfo second = repo.createSnapshot("day-2", dir, SnapshotOptions.DEFAULTS.withListener(reports::add));
      SnapshotManifest firstManifest = repo.readManifest("day-1");
      SnapshotManifest secondManifest = repo.readManifest("day-2");
      Set<String> oldBlobs = blobsOf(firstManifest);
      long expectedUpload = 0;
      long expectedTables = 0;
      int expectedFiles = 0;
      for (FileEntry f : secondManifest.files()) {
        if (f.blobName() != null && !oldBlobs.contains(f.blobName())) {
          expectedUpload += f.length();
          expectedFiles++;
          String table = secondManifest.chunkTableBlob(f);
          if (table != null) {
            expectedTables += store.length(table);
          }
        }
      }
      assertTrue(expectedFiles > 0 && blobsOf(secondManifest).stream().anyMatch(oldBlobs::contains),
          "the second snapshot should share some files and add some");
      long manifestBytes = store.length("snapshots/day-2.manifest");
      assertEquals(expectedUpload + expectedTables + manifestBytes, store.bytesWritten.get(),
          "only new files (and their chunk tables) are uploaded");
      SnapshotProgress last = reports.getLast();
      assertEquals(second.fileCount(), last.filesDone());
      assertEquals(last.filesTotal(), last.filesDone());
      assertEquals(second.totalBytes(), last.bytesDone());
      assertEquals(expectedUpload, last.bytesUploaded());
      assertEquals(expectedFiles, last.filesUploaded());
    }
  }

  /**
   * A snapshot based on an earlier one does not read the files whose blobs that one has: a middle byte of such a file,
   * flipped locally after the first snapshot, fails a snapshot that reads it (Lucene's checksum, checked as a file is
   * read) and passes one based on the first, whose manifest then holds the first's checksums, against which a mount
   * reads the blob's bytes (the file as it was). A base of another chunk size is no help: the file is read.
   */
  @Test
  void aSnapshotBasedOnAnEarlierOneReadsNoneOfTheFilesItHas() throws IOException {
    Path path = tmp.resolve("based");
    byte[] original;
    String shared;
    try (Directory dir = FSDirectory.open(path)) {
      IndexWriterConfig config = new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE).setUseCompoundFile(false);
      try (IndexWriter writer = new IndexWriter(dir, config)) {
        RandomIndexes.append(writer, random, 0, 3000, 1);
        repo.createSnapshot("day-1", dir);
        repo.createSnapshot("day-1-8k", dir, SnapshotOptions.DEFAULTS.withChunkSize(8 << 10));
        RandomIndexes.append(writer, random, 3000, 500, 1);
      }
      // the largest stored-fields data file of day 1: its middle is read by no opening, only by a reading of it all
      shared = repo.readManifest("day-1").files().stream().filter(f -> f.name().endsWith(".fdt") && !f.isKeptWhole())
          .max((a, b) -> Long.compare(a.length(), b.length())).orElseThrow().name();
      long length = dir.fileLength(shared);
      assertTrue(length > 3 * SnapshotOptions.DEFAULT_CHUNK_SIZE, shared + " is " + length + " bytes");
      original = readFile(dir, shared, 0, (int) length);
    }
    byte[] flipped = original.clone();
    flipped[flipped.length / 2] ^= 0x40;
    Files.write(path.resolve(shared), flipped);

    try (Directory dir = FSDirectory.open(path)) {
      assertThrows(CorruptIndexException.class, () -> repo.createSnapshot("day-2-read", dir),
          "without a base, " + shared + " is read and its checksum fails");
      assertThrows(CorruptIndexException.class,
          () -> repo.createSnapshot("day-2-8k", dir, SnapshotOptions.DEFAULTS.withBasedOn("day-1-8k")),
          "a base of another chunk size is no help: " + shared + " is read");
      SnapshotException.NotFound missing = assertThrows(SnapshotException.NotFound.class,
          () -> repo.createSnapshot("day-2-none", dir, SnapshotOptions.DEFAULTS.withBasedOn("day-0")));
      assertTrue(missing.getMessage().contains("'day-2-none' based on 'day-0'"), missing.getMessage());

      repo.createSnapshot("day-2", dir, SnapshotOptions.DEFAULTS.withBasedOn("day-1"));
    }
    SnapshotManifest first = repo.readManifest("day-1");
    SnapshotManifest second = repo.readManifest("day-2");
    FileEntry before = first.files().stream().filter(f -> f.name().equals(shared)).findFirst().orElseThrow();
    FileEntry after = second.files().stream().filter(f -> f.name().equals(shared)).findFirst().orElseThrow();
    assertEquals(before.blobName(), after.blobName());
    assertEquals(before.chunkTable().chunkCount(), after.chunkTable().chunkCount());
    for (int c = 0; c < before.chunkTable().chunkCount(); c++) {
      assertEquals(before.chunkTable().checksum(c), after.chunkTable().checksum(c), "chunk " + c);
    }
    assertTrue(second.files().size() > first.files().size(), "day 2 has day 1's files and new ones");
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20)
            .regionSize(1 << 20).build();
        BlobDirectory mounted = BlobDirectory.open(repo, "day-2", cache)) {
      assertArrayEquals(original, readFile(mounted, shared, 0, original.length), "the blob's bytes, verified");
      try (DirectoryReader reader = DirectoryReader.open(mounted)) {
        assertEquals(3500, reader.maxDoc());
      }
    }
  }

  /** The file blobs of a snapshot and their chunk tables. */
  private static Set<String> blobsOf(SnapshotManifest manifest) {
    Set<String> blobs = new HashSet<>();
    for (FileEntry f : manifest.files()) {
      if (f.blobName() != null) {
        blobs.add(f.blobName());
        if (manifest.chunkTableBlob(f) != null) {
          blobs.add(manifest.chunkTableBlob(f));
        }
      }
    }
    return blobs;
  }

  @Test
  void deleteKeepsBlobsOtherSnapshotsUse() throws IOException {
    try (Directory dir = FSDirectory.open(tmp.resolve("del"))) {
      IndexWriterConfig config = new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE);
      try (IndexWriter writer = new IndexWriter(dir, config)) {
        RandomIndexes.append(writer, random, 0, 2000, 2);
        repo.createSnapshot("a", dir);
        RandomIndexes.append(writer, random, 2000, 2000, 1);
      }
      repo.createSnapshot("b", dir);
      Set<String> a = blobsOf(repo.readManifest("a"));
      Set<String> b = blobsOf(repo.readManifest("b"));
      repo.deleteSnapshot("a");
      assertEquals(List.of("b"), repo.listSnapshots());
      Set<String> present = blobNames();
      assertTrue(present.containsAll(b), "every blob of b survives");
      for (String blob : a) {
        assertEquals(b.contains(blob), present.contains(blob), blob);
      }
      assertThrows(SnapshotException.NotFound.class, () -> repo.deleteSnapshot("a"));
      repo.deleteSnapshot("b");
      assertEquals(Set.of(), blobNames());
      assertEquals(List.of(), repo.listSnapshots());
    }
  }

  private Set<String> blobNames() throws IOException {
    return store.list("blobs/").stream().map(BlobMetadata::name).collect(Collectors.toSet());
  }

  @Test
  void aCorruptIndexFileFailsTheSnapshotAndLeavesNoManifest() throws IOException {
    Path path = tmp.resolve("corrupt");
    try (Directory dir = index("corrupt", 3000, 1)) {
      String victim = null;
      long biggest = 0;
      for (String f : dir.listAll()) {
        if (!f.startsWith("segments") && !f.equals("write.lock") && dir.fileLength(f) > biggest) {
          biggest = dir.fileLength(f);
          victim = f;
        }
      }
      assertTrue(biggest > 20_000, "need a file that is uploaded, not kept whole");
      long at = biggest / 2;
      try (var ch = FileChannel.open(path.resolve(victim), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        ByteBuffer one = ByteBuffer.allocate(1);
        ch.read(one, at);
        one.flip();
        byte flipped = (byte) (one.get(0) ^ 0x5A);
        ch.write(ByteBuffer.wrap(new byte[] {flipped}), at);
      }
      String corruptFile = victim;
      IOException e = assertThrows(IOException.class, () -> repo.createSnapshot("broken", dir));
      Throwable c = e;
      while (c != null && !(c instanceof CorruptIndexException)) {
        c = c.getCause();
      }
      assertNotNull(c, "expected a CorruptIndexException, got " + e);
      assertTrue(c.getMessage().contains(corruptFile), c.getMessage());
      assertEquals(List.of(), repo.listSnapshots());
      assertThrows(SnapshotException.NotFound.class, () -> repo.readManifest("broken"));
      byte[] corruptBytes = readFile(dir, corruptFile, 0, (int) biggest);
      for (String blob : blobNames()) {
        try (InputStream in = store.read(blob)) {
          assertFalse(Arrays.equals(corruptBytes, in.readAllBytes()), "the corrupt file was stored as " + blob);
        }
      }
    }
  }

  @Test
  void aCorruptOrTruncatedManifestIsDetected() throws IOException {
    try (Directory dir = index("m", 500, 1)) {
      repo.createSnapshot("m", dir);
    }
    byte[] bytes;
    try (InputStream in = store.read("snapshots/m.manifest")) {
      bytes = in.readAllBytes();
    }
    // every byte of the header (magic, codec name, format version: a flipped version must not read as "newer"),
    // then random ones
    int headerEnd = Math.min(bytes.length, 64);
    for (int trial = 0; trial < headerEnd + 20; trial++) {
      byte[] bad = bytes.clone();
      int at = trial < headerEnd ? trial : random.nextInt(bad.length);
      bad[at] ^= (byte) (1 + random.nextInt(255));
      store.write("snapshots/m.manifest", new ByteArrayInputStream(bad), bad.length);
      SnapshotException.CorruptManifest e = assertThrows(SnapshotException.CorruptManifest.class, () -> repo.readManifest("m"), "flip at " + at);
      assertTrue(e.getMessage().contains("snapshots/m.manifest") && e.getMessage().contains(store.describe()), e.getMessage());
    }
    for (int length : new int[] {0, 5, bytes.length / 2, bytes.length - 1}) {
      byte[] truncated = Arrays.copyOf(bytes, length);
      store.write("snapshots/m.manifest", new ByteArrayInputStream(truncated), truncated.length);
      assertThrows(SnapshotException.CorruptManifest.class, () -> repo.snapshotInfo("m"), "truncated to " + length);
    }
    store.write("snapshots/m.manifest", new ByteArrayInputStream(bytes), bytes.length);
    assertEquals("m", repo.snapshotInfo("m").name());
    // a manifest copied under another name is caught too
    store.write("snapshots/other.manifest", new ByteArrayInputStream(bytes), bytes.length);
    assertThrows(SnapshotException.CorruptManifest.class, () -> repo.readManifest("other"));
  }

  @Test
  void badInputGetsClearErrors() throws IOException {
    try (Directory dir = index("bad", 200, 1)) {
      repo.createSnapshot("exists", dir);
      SnapshotException.AlreadyExists e = assertThrows(SnapshotException.AlreadyExists.class, () -> repo.createSnapshot("exists", dir));
      assertTrue(e.getMessage().contains("exists"), e.getMessage());
      for (String name : new String[] {"", " x", "a/b", "../x", "-x", ".x", "x".repeat(201), "a b"}) {
        IllegalArgumentException iae = assertThrows(IllegalArgumentException.class, () -> repo.createSnapshot(name, dir), name);
        assertTrue(iae.getMessage().contains("snapshot name"), iae.getMessage());
      }
    }
    try (Directory empty = FSDirectory.open(Files.createDirectories(tmp.resolve("empty")))) {
      IndexNotFoundException e = assertThrows(IndexNotFoundException.class, () -> repo.createSnapshot("nothing", empty));
      assertTrue(e.getMessage().contains("no Lucene index"), e.getMessage());
    }
    SnapshotException.NotFound nf = assertThrows(SnapshotException.NotFound.class, () -> repo.snapshotInfo("missing"));
    assertTrue(nf.getMessage().contains("missing") && nf.getMessage().contains(store.describe()), nf.getMessage());
    assertEquals(List.of("exists"), repo.listSnapshots());
  }

  @Test
  void unreferencedBlobsFromAFailedSnapshotCanBeCleanedUp() throws IOException {
    try (Directory dir = index("orphans", 1500, 2)) {
      repo.createSnapshot("keep", dir);
      store.write("blobs/orphan-1", new ByteArrayInputStream(new byte[10]), 10);
      assertEquals(1, repo.deleteUnreferencedBlobs());
      assertEquals(blobsOf(repo.readManifest("keep")), blobNames());
    }
  }

  @Test
  void smallAndMetadataFilesAreKeptWholeWithoutBlobs() throws IOException {
    try (Directory dir = index("inline", 2000, 2)) {
      repo.createSnapshot("s", dir, SnapshotOptions.DEFAULTS.withKeepWholeLimits(1024, 1 << 20));
      SnapshotManifest manifest = repo.readManifest("s");
      for (FileEntry f : manifest.files()) {
        if (f.name().startsWith("segments_") || f.name().endsWith(".si") || f.name().endsWith(".fnm")) {
          assertTrue(f.isKeptWhole(), f.toString());
          assertNull(f.blobName());
        }
        if (f.length() <= 1024) {
          assertTrue(f.isKeptWhole(), f.toString());
        }
      }
    }
  }
}
