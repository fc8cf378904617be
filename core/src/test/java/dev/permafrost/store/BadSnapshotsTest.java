/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FaultInjectingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.ChunkTable;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input gets a precise error naming what is at fault, and the other mounted indices keep working: a truncated
 * manifest, one from a newer format, a manifest the store will not give, a missing or short blob, a snapshot
 * deleted while mounted.
 */
class BadSnapshotsTest {
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private Directory local;
  private FileSystemBlobStore fs;
  private SnapshotRepository repo;
  private SharedRegionCache cache;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private SearchOracle oracle;
  private List<String> expected;

  @BeforeEach
  void setUp() throws IOException {
    local = FSDirectory.open(tmp.resolve("local"));
    RandomIndexes.build(local, random, 3000, 2);
    fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    repo = SnapshotRepository.open(fs);
    repo.createSnapshot("healthy", local);
    repo.createSnapshot("victim", local); // same blobs: content-addressed
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(1 << 20).regionSize(64 << 10)
        .tailRegionSize(16 << 10).build();
    oracle = new SearchOracle(random, 12);
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      expected = oracle.answers(new IndexSearcher(reader));
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
    cache.close();
    local.close();
  }

  /** Mounts {@code name} and checks that every search gives the local answers. */
  private void assertSearchesRight(String name) throws IOException {
    try (BlobDirectory dir = BlobDirectory.open(repo, name, cache);
        DirectoryReader reader = DirectoryReader.open(dir)) {
      assertEquals(expected, oracle.answers(new IndexSearcher(reader)), "seed " + seed + ": " + name);
    }
  }

  private void writeManifest(String name, byte[] bytes) throws IOException {
    fs.write("snapshots/" + name + ".manifest", new ByteArrayInputStream(bytes), bytes.length);
  }

  private byte[] manifestBytes(String name) throws IOException {
    try (InputStream in = fs.read("snapshots/" + name + ".manifest")) {
      return in.readAllBytes();
    }
  }

  @Test
  void aTruncatedManifestIsNamedAndOthersKeepWorking() throws IOException {
    byte[] bytes = manifestBytes("victim");
    writeManifest("victim", Arrays.copyOf(bytes, bytes.length / 2));
    SnapshotException.CorruptManifest e = assertThrows(SnapshotException.CorruptManifest.class,
        () -> BlobDirectory.open(repo, "victim", cache));
    assertTrue(e.getMessage().contains("snapshots/victim.manifest") && e.getMessage().contains(fs.describe()), e.getMessage());
    assertSearchesRight("healthy");
  }

  @Test
  void aManifestFromANewerFormatSaysSo() throws IOException {
    SnapshotManifest manifest = repo.readManifest("victim");
    writeManifest("victim", TestManifests.manifestBytes(manifest, 99));
    SnapshotException.UnsupportedFormat e = assertThrows(SnapshotException.UnsupportedFormat.class,
        () -> BlobDirectory.open(repo, "victim", cache));
    assertTrue(e.getMessage().contains("format version 99") && e.getMessage().contains("newer")
        && e.getMessage().contains("upgrade") && e.getMessage().contains("snapshots/victim.manifest"), e.getMessage());
    assertSearchesRight("healthy");
  }

  /**
   * Where, in the bytes of {@code name}'s manifest, the chunk table of {@code file} starts (its count of chunks, one
   * byte for fewer than 128), found by its first two checksums as the manifest writes them (little-endian ints).
   */
  private int tableOffset(byte[] manifest, FileEntry file) {
    ChunkTable t = file.chunkTable();
    byte[] pattern = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(t.checksum(0)).putInt(t.checksum(1))
        .array();
    for (int i = 1; i + pattern.length <= manifest.length; i++) {
      if (Arrays.equals(manifest, i, i + pattern.length, pattern, 0, pattern.length)) {
        assertEquals(t.chunkCount(), manifest[i - 1], "the count of chunks precedes the checksums");
        return i - 1;
      }
    }
    throw new AssertionError("the table of " + file + " is not in the manifest");
  }

  /** A file whose chunk table the manifest keeps, of 2 to 126 chunks (its count is one byte). */
  private FileEntry fileWithATable(SnapshotManifest manifest) {
    return manifest.files().stream()
        .filter(f -> f.chunkTable() != null && f.chunkTable().chunkCount() < 127)
        .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
  }

  /** Writes a right Lucene footer checksum over the bytes before it, as a writer with a bug would. */
  private static void restampFooter(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    ByteBuffer.wrap(bytes, bytes.length - Long.BYTES, Long.BYTES).putLong(crc.getValue());
  }

  @Test
  void aManifestWhoseChunkTableIsDamagedIsRefusedAtMountAndOthersKeepWorking() throws IOException {
    SnapshotManifest manifest = repo.readManifest("victim");
    FileEntry file = fileWithATable(manifest);
    byte[] bytes = manifestBytes("victim");
    int at = tableOffset(bytes, file) + 1 + 4 + random.nextInt(4); // a byte of the second checksum
    bytes[at] ^= (byte) (1 << random.nextInt(8));
    writeManifest("victim", bytes);
    SnapshotException.CorruptManifest e = assertThrows(SnapshotException.CorruptManifest.class,
        () -> BlobDirectory.open(repo, "victim", cache));
    assertTrue(e.getMessage().contains("snapshots/victim.manifest") && e.getMessage().contains(fs.describe())
        && e.getMessage().contains("checksum failed"), e.getMessage());
    assertSearchesRight("healthy");
  }

  @Test
  void aChunkTableWhoseCountDoesNotMatchItsFileIsRefusedAtMountNamingSnapshotAndFile() throws IOException {
    SnapshotManifest manifest = repo.readManifest("victim");
    FileEntry file = fileWithATable(manifest);
    for (int delta : new int[] {-1, 1}) {
      byte[] bytes = manifestBytes("victim");
      int at = tableOffset(bytes, file);
      bytes[at] = (byte) (bytes[at] + delta);
      restampFooter(bytes); // the footer is right: only the check of the count can tell
      writeManifest("victim", bytes);
      SnapshotException.CorruptManifest e = assertThrows(SnapshotException.CorruptManifest.class,
          () -> BlobDirectory.open(repo, "victim", cache));
      assertTrue(e.getMessage().contains("the chunk table of file " + file.name() + " of snapshot 'victim' has "
          + (file.chunkTable().chunkCount() + delta) + " chunks, but a file of " + file.length() + " bytes has "
          + file.chunkTable().chunkCount() + " chunks") && e.getMessage().contains("snapshots/victim.manifest"),
          e.getMessage());
      byte[] fixed = manifestBytes("victim");
      fixed[at] = (byte) file.chunkTable().chunkCount();
      restampFooter(fixed);
      writeManifest("victim", fixed);
      assertSearchesRight("victim"); // the same bytes with the right count are the manifest again
    }
    assertSearchesRight("healthy");
  }

  @Test
  void aManifestTheStoreWillNotGiveIsNamedWithItsSnapshot() throws IOException {
    FaultInjectingBlobStore failing = new FaultInjectingBlobStore(fs, seed).targets(n -> n.startsWith("snapshots/")).failRate(1);
    SnapshotRepository broken = SnapshotRepository.open(failing,
        StorePolicy.builder().maxRetries(1).retryDelay(Duration.ofMillis(1)).build());
    SnapshotException e = assertThrows(SnapshotException.class, () -> BlobDirectory.open(broken, "victim", cache));
    assertTrue(e.getMessage().contains("snapshot 'victim'") && e.getMessage().contains("snapshots/victim.manifest")
        && e.getMessage().contains("injected failure") && e.getMessage().contains("gave up after 2 attempts"), e.getMessage());
  }

  private FileEntry biggestFile(String snapshot) throws IOException {
    return repo.readManifest(snapshot).files().stream().filter(f -> f.blobName() != null)
        .max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
  }

  @Test
  void aMissingBlobFailsReadsOfItsFileOnly() throws IOException {
    FileEntry victim = biggestFile("victim");
    try (BlobDirectory healthy = BlobDirectory.open(repo, "healthy", cache);
        DirectoryReader reader = DirectoryReader.open(healthy)) {
      MountedIndexTest.readAll(healthy, victim.name()); // cached before the blob goes
      Files.delete(fs.root().resolve(victim.blobName()));
      try (BlobDirectory dir = BlobDirectory.open(repo, "victim", cache)) {
        cache.clear();
        IOException e = assertThrows(IOException.class, () -> MountedIndexTest.readAll(dir, victim.name()));
        assertTrue(e.getMessage().contains(victim.blobName()) && e.getMessage().contains("not found")
            && e.getMessage().contains(victim.name() + " of snapshot 'victim'"), e.getMessage());
        for (FileEntry f : repo.readManifest("victim").files()) {
          if (!f.name().equals(victim.name())) {
            assertArrayEquals(MountedIndexTest.readAll(local, f.name()), MountedIndexTest.readAll(dir, f.name()), f.name());
          }
        }
      }
    }
  }

  @Test
  void aBlobShorterThanTheManifestSaysIsNamedAndNeverServed() throws IOException {
    FileEntry victim = biggestFile("victim");
    try (FileChannel ch = FileChannel.open(fs.root().resolve(victim.blobName()), StandardOpenOption.WRITE)) {
      ch.truncate(victim.length() - 1000);
    }
    try (BlobDirectory dir = BlobDirectory.open(repo, "victim", cache)) {
      IOException e = assertThrows(IOException.class, () -> MountedIndexTest.readAll(dir, victim.name()));
      assertTrue(e.getMessage().contains(victim.blobName()) && e.getMessage().contains("past the end"), e.getMessage());
    }
  }

  @Test
  void aSnapshotDeletedWhileMountedFailsWhatIsNotCachedNamingTheBlob() throws IOException {
    SnapshotRepository other = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo2"), false));
    other.createSnapshot("alone", local);
    try (SharedRegionCache roomy = SharedRegionCache.builder().path(tmp.resolve("roomy")).size(32 << 20)
            .regionSize(64 << 10).build();
        BlobDirectory dir = BlobDirectory.open(other, "alone", roomy);
        DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      String first = oracle.answer(searcher, 0);
      assertEquals(expected.get(0), first);
      other.deleteSnapshot("alone");
      assertEquals(expected.get(0), oracle.answer(searcher, 0), "what is cached is still served");
      roomy.clear();
      IOException e = assertThrows(IOException.class, () -> oracle.answers(searcher));
      assertTrue(e.getMessage().contains("not found") && e.getMessage().contains("blobs/")
          && e.getMessage().contains("snapshot 'alone'"), e.getMessage());
      assertSearchesRight("healthy");
    }
  }
}
