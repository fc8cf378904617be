/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.ReadRecordingDirectory;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What opening an engine's shard reads is kept with its mount ({@link KeptOpening}), verified: a mounted shard whose
 * cache is emptied opens its reader with no request at all; a byte to keep that is not what it must be refuses the
 * mount, naming the shard and the file; and unmounting and mounting again under the same name, while searches run,
 * keeps no byte of the mount before. Over the engine fixtures' real snapshots; requests are counted, never timed.
 */
class KeptOpeningTest {
  @TempDir Path tmp;
  SharedRegionCache cache;

  @BeforeEach
  void openCache() throws IOException {
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(1 << 20).build();
  }

  @AfterEach
  void closeCache() throws IOException {
    cache.close();
  }

  static Stream<EngineFixture> readable() {
    return EngineFixtureSnapshotsTest.readable();
  }

  /**
   * Mounted, its cache emptied (as a cold benchmark empties it, and as eviction may), a shard of each engine opens its
   * reader with zero requests, and reads the same documents as one opened through the cache alone; what it keeps is
   * counted with the mount and bounded. The one exception is by rule: opening reads a segment's soft deletes and
   * primary terms from its doc values, and of a doc-values data file longer than {@link KeptOpening#WHOLE_CHECK_BYTES}
   * (which opening does not fetch whole, so nothing verifies those bytes at mount) only the header and footer are
   * kept: a shard with such a file requests those bytes on an emptied cache (or a fill carrying on from them), and
   * nothing before them.
   */
  @ParameterizedTest
  @MethodSource("readable")
  void aMountedShardOpensWithNoRequestOnAnEmptiedCache(EngineFixture engine) throws Exception {
    Path repo = engine.ensure().resolve("repo");
    RecordedReads store = new RecordedReads(FileSystemBlobStore.open(repo, false));
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(store);
    try (Catalog catalog = Catalog.builder(cache).build()) {
      for (String index : List.of("logs-a", "logs-best", "logs-merged")) {
        String shard = EngineSnapshotRepository.shard("snap-2", index, 0);
        int expected = numDocsThroughTheCache(repository, shard);
        catalog.mount(index, repository, shard);
        MountInfo info = catalog.info(index);
        assertTrue(info.keptHeapBytes() > 0, engine + " " + index + ": nothing kept");
        assertTrue(info.keptHeapBytes() < KeptOpening.LIMIT_BYTES + 64 * 1024, info.toString());
        List<Range> unkept = largeDocValues(repository, shard);
        Waits.awaitNoFetch(cache); // a fill in flight would outlive the clear
        cache.clear();
        store.reads.clear();
        try (Lease lease = catalog.acquire(index)) {
          assertEquals(expected, lease.reader().numDocs(), engine + " " + index);
        }
        Waits.awaitNoFetch(cache);
        List<Range> reads = List.copyOf(store.reads);
        String what = engine + " " + index + ": reads opening on an empty cache " + reads + ", large doc values "
            + unkept;
        if (unkept.isEmpty()) {
          assertEquals(List.of(), reads, what);
        } else { // those bytes, or a fill that carries on from them (never a header, footer or file before them)
          assertTrue(!reads.isEmpty(), what);
          for (Range read : reads) {
            assertTrue(unkept.stream().anyMatch(r -> r.blob().equals(read.blob()) && r.start() < read.end()), what);
          }
        }
      }
    }
  }

  /** A range of a blob. */
  record Range(String blob, long start, long end) {}

  /**
   * The doc-values data files ({@code .dvd}, or entries of a compound file) longer than
   * {@link KeptOpening#WHOLE_CHECK_BYTES} of the shard's segments, as ranges of their blobs: where opening reads the
   * soft deletes' and the primary terms' values.
   */
  private static List<Range> largeDocValues(EngineSnapshotRepository repository, String shard) throws IOException {
    SnapshotManifest manifest = repository.parseManifest(shard, repository.readManifestBytes(shard));
    SegmentInfos commit = EngineSnapshotRepository.readCommit(manifest.files(), manifest.segmentsFileName(), shard);
    List<Range> out = new ArrayList<>();
    for (SegmentCommitInfo segment : commit) {
      for (FileEntry f : manifest.files()) {
        if (!f.name().startsWith(segment.info.name + "_") && !f.name().startsWith(segment.info.name + ".")) {
          continue;
        }
        if (f.name().endsWith(".dvd") && f.length() > KeptOpening.WHOLE_CHECK_BYTES) {
          out.add(new Range(f.blobName(), 0, f.length()));
        }
        if (f.name().endsWith(".cfs")) {
          FileEntry table = manifest.file(segment.info.name + ".cfe");
          byte[] bytes = table.isKeptWhole() ? table.wholeBytes()
              : repository.store().read(table.blobName()).readAllBytes();
          for (CompoundEntries.Entry e : CompoundEntries.parse(bytes)) {
            if (e.suffix().endsWith(".dvd") && e.length() > KeptOpening.WHOLE_CHECK_BYTES) {
              out.add(new Range(f.blobName(), e.start(), e.start() + e.length()));
            }
          }
        }
      }
    }
    return out;
  }

  /**
   * The kept bytes alone open the shard: a directory over the kept manifest whose store refuses every read opens it,
   * and nothing else of a file is kept than headers, footers, and files (or compound entries) read whole.
   */
  @Test
  void theKeptBytesAloneOpenTheShard() throws Exception {
    Path repo = EngineFixture.ELASTICSEARCH_93.ensure().resolve("repo");
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(repo, false));
    String shard = EngineSnapshotRepository.shard("snap-2", "logs-a", 0);
    SnapshotManifest manifest = repository.parseManifest(shard, repository.readManifestBytes(shard));
    SnapshotManifest kept = keep(repository, manifest, repository);
    long keptBytes = 0;
    for (FileEntry f : kept.files()) {
      for (FileEntry.WarmRange r : f.warmRanges()) {
        keptBytes += r.bytes().length;
      }
    }
    assertTrue(keptBytes > 0 && keptBytes <= KeptOpening.LIMIT_BYTES, "kept " + keptBytes);
    RefusingReads store = new RefusingReads(FileSystemBlobStore.open(repo, false));
    EngineSnapshotRepository refusing = EngineSnapshotRepository.open(store);
    refusing.parseManifest(shard, refusing.readManifestBytes(shard)); // what it reads of the repository once
    store.refuse = true;
    try (SharedRegionCache empty = SharedRegionCache.builder().path(tmp.resolve("empty")).size(16 << 20)
            .regionSize(1 << 20).build();
        Directory dir = BlobDirectory.open(refusing, kept, empty, "kept-only");
        DirectoryReader reader = refusing.openReader(dir)) {
      assertEquals(numDocsThroughTheCache(repository, shard), reader.numDocs());
    }
  }

  /**
   * A byte to keep that differs from what the open checked (the cache was emptied and the store's bytes changed, or
   * the store serves a damaged copy) is refused, naming the shard, the file and the blob: in the compound file's
   * footer (its checksum, against the snapshot's), in an entry read whole (its CRC32, against its own footer), and in
   * an entry's header (Lucene's magic).
   */
  @Test
  void aChangedByteToKeepIsRefusedNamingTheShardAndFile() throws Exception {
    Path repo = EngineFixture.ELASTICSEARCH_93.ensure().resolve("repo");
    EngineSnapshotRepository clean = EngineSnapshotRepository.open(FileSystemBlobStore.open(repo, false));
    String shard = EngineSnapshotRepository.shard("snap-2", "logs-merged", 0);
    SnapshotManifest manifest = clean.parseManifest(shard, clean.readManifestBytes(shard));
    record Damage(String suffix, LongUnaryOperator at, String file, String why) {}
    List<Damage> damages = List.of(
        new Damage(".cfs", length -> length - 1, ".cfs", "the snapshot recorded"),
        new Damage(".fnm", length -> length / 2, ".fnm", "its CRC32 is"),
        new Damage(".tim", length -> 0, ".tim", "not Lucene's magic"));
    int n = 0;
    for (Damage d : damages) {
      DamagedFile flipped = DamagedFile.flip(repo, tmp.resolve("damaged-" + n++), "snap-2", "logs-merged", d.suffix(),
          0x01, d.at());
      SnapshotManifest damagedManifest = flipped.repository().parseManifest(shard,
          flipped.repository().readManifestBytes(shard));
      SnapshotException.CorruptManifest e = assertThrows(SnapshotException.CorruptManifest.class,
          () -> keep(clean, damagedManifest, flipped.repository()), d.toString());
      String message = e.getMessage();
      assertTrue(message.contains("index 'logs-merged' in snapshot 'snap-2'") && message.contains(d.file())
          && message.contains(flipped.shortBlobName()) && message.contains(d.why()), message);
    }
  }

  /**
   * End to end: a shard whose compound file's footer checksum is damaged (which Lucene's open does not compare with
   * anything) is refused at mount, naming the shard and the file, and nothing of it is mounted.
   */
  @Test
  void aDamagedFooterIsRefusedAtMount() throws Exception {
    Path repo = EngineFixture.ELASTICSEARCH_93.ensure().resolve("repo");
    DamagedFile flipped = DamagedFile.flip(repo, tmp.resolve("damaged"), "snap-2", "logs-merged", ".cfs", 0x01,
        length -> length - 1);
    try (Catalog catalog = Catalog.builder(cache).build()) {
      SnapshotException.CorruptManifest e = assertThrows(SnapshotException.CorruptManifest.class,
          () -> flipped.repository().mount(catalog, "damaged", "snap-2", "logs-merged"));
      assertTrue(e.getMessage().contains("index 'logs-merged' in snapshot 'snap-2'") && e.getMessage().contains(".cfs")
          && e.getMessage().contains(flipped.shortBlobName()), e.getMessage());
      assertTrue(catalog.list("damaged*").isEmpty(), "nothing of a refused shard is mounted");
    }
  }

  /**
   * Unmounted and mounted again under the same name, as another snapshot of the index, while searches run: every
   * search answers from one of the two snapshots, never from a mix, and once the second is mounted its reader opens
   * on an emptied cache with no request and reads the second snapshot's documents: nothing of the first mount's kept
   * bytes is left.
   */
  @Test
  void remountingUnderSearchesKeepsNothingStale() throws Exception {
    Path repo = EngineFixture.ELASTICSEARCH_93.ensure().resolve("repo");
    CountingBlobStore counted = new CountingBlobStore(FileSystemBlobStore.open(repo, false));
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(counted);
    String first = EngineSnapshotRepository.shard("snap-1", "logs-a", 0);
    String second = EngineSnapshotRepository.shard("snap-2", "logs-a", 0);
    int firstDocs = numDocsThroughTheCache(repository, first);
    int secondDocs = numDocsThroughTheCache(repository, second);
    assertNotEquals(firstDocs, secondDocs, "the fixture's two snapshots of logs-a differ");
    try (Catalog catalog = Catalog.builder(cache).build()) {
      catalog.mount("logs", repository, first);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Set<Integer> answers = ConcurrentHashMap.newKeySet();
      List<Thread> searchers = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        searchers.add(Thread.ofPlatform().start(() -> {
          while (!stop.get()) {
            try (Lease lease = catalog.acquire("logs")) {
              answers.add(lease.reader().numDocs());
            } catch (IllegalArgumentException e) {
              // between the unmount and the mount: no such index
            } catch (IllegalStateException e) {
              if (!String.valueOf(e.getMessage()).endsWith("was unmounted")) {
                failure.compareAndSet(null, e);
              }
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            }
          }
        }));
      }
      for (int round = 0; round < 3; round++) {
        catalog.unmount("logs");
        catalog.mount("logs", repository, round % 2 == 0 ? second : first);
      }
      stop.set(true);
      for (Thread t : searchers) {
        t.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("a search failed", failure.get());
      }
      assertTrue(Set.of(firstDocs, secondDocs).containsAll(answers), answers + " of " + firstDocs + ", " + secondDocs);
      // the last round mounted `second`
      Waits.awaitNoFetch(cache); // a fill in flight would outlive the clear
      cache.clear();
      long before = counted.requests();
      try (Lease lease = catalog.acquire("logs")) {
        assertEquals(secondDocs, lease.reader().numDocs());
      }
      Waits.awaitNoFetch(cache);
      assertEquals(0, counted.requests() - before, "requests opening the mount made last on an empty cache");
    }
  }

  /** The live documents of a shard opened through a directory over the cache, as the engine's searches see them. */
  private int numDocsThroughTheCache(EngineSnapshotRepository repository, String shard) throws IOException {
    SnapshotManifest manifest = repository.parseManifest(shard, repository.readManifestBytes(shard));
    try (Directory dir = BlobDirectory.open(repository, manifest, cache, "reference");
        DirectoryReader reader = repository.openReader(dir)) {
      return reader.numDocs();
    }
  }

  /**
   * What a mount keeps of {@code manifest}: its commit opened through {@code opened}'s files, recorded, then the bytes
   * read back through {@code readBack}'s (the same, or a store whose bytes changed since).
   */
  private SnapshotManifest keep(EngineSnapshotRepository opened, SnapshotManifest manifest,
      EngineSnapshotRepository readBack) throws IOException {
    ReadRecordingDirectory.Reads reads;
    try (Directory dir = BlobDirectory.open(opened, manifest, cache, "opened")) {
      ReadRecordingDirectory recording = new ReadRecordingDirectory(dir);
      try (DirectoryReader reader = EngineReader.openEngineView(recording)) {
        assertTrue(reader.maxDoc() > 0);
      }
      reads = recording.stopRecording();
    }
    try (Directory dir = BlobDirectory.open(readBack, manifest, cache, "read-back")) {
      EngineSnapshotRepository.ShardName name = EngineSnapshotRepository.ShardName.parse(manifest.name());
      return KeptOpening.keep(manifest, reads, dir, "index '" + name.index() + "' in snapshot '" + name.snapshot() + "'");
    }
  }

  /** A store that records every read of a range of a blob. */
  private static final class RecordedReads extends FilterBlobStore {
    final List<Range> reads = java.util.Collections.synchronizedList(new ArrayList<>());

    RecordedReads(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String name, long offset, long length) throws IOException {
      reads.add(new Range(name, offset, offset + length));
      return super.read(name, offset, length);
    }
  }

  /** A store that refuses every read of a blob's bytes: opening through it must need none. */
  private static final class RefusingReads extends FilterBlobStore {
    volatile boolean refuse;

    RefusingReads(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String name) throws IOException {
      if (refuse) {
        throw new IOException("no read of " + name + " expected");
      }
      return super.read(name);
    }

    @Override
    public InputStream read(String name, long offset, long length) throws IOException {
      if (refuse) {
        throw new IOException("no read of " + name + " [" + offset + ", +" + length + ") expected");
      }
      return super.read(name, offset, length);
    }
  }
}
