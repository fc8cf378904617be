/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.blob.FaultInjectingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FileTypeHint;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every wait for the store ends by the reader's own deadline (its {@link ReadDeadline}, or the cache's
 * {@code maxReadWait} counted from when it began to wait), whatever the store does; a fetch that every waiting reader
 * gave up on is called off, so that it stops holding a fetch thread; an interrupted reader keeps its interrupt.
 *
 * <p>The store hangs on purpose: its responses to the targeted blob never deliver a byte until closed. The policy's
 * own deadlines are set far longer than any wait here, so only the waits under test can end them.
 */
class ReadWaitTest {
  /** Guards against hangs; far above every deadline in these tests and says nothing about speed. */
  private static final long LIVENESS_NANOS = Duration.ofSeconds(60).toNanos();

  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private FaultInjectingBlobStore faulty;
  private SnapshotRepository repo;
  /** The largest file of the snapshot, kept in blobs of several regions. */
  private FileEntry large;

  @BeforeEach
  void setUp() throws IOException {
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, new Random(seed), 4000, 1);
      FileSystemBlobStore fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
      SnapshotRepository.open(fs).createSnapshot("snap", local);
      faulty = new FaultInjectingBlobStore(fs, seed);
      SnapshotManifest manifest = SnapshotRepository.open(fs).readManifest("snap");
      large = manifest.files().stream().filter(f -> !f.isKeptWhole()).max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    }
    assertTrue(large.length() > 96 << 10, "the test needs a file of several regions, got " + large);
    // hangs hit the large file's data (its chunk table is in the manifest); the policy's deadlines are far away
    faulty.targets(n -> n.equals(large.blobName()));
    repo = SnapshotRepository.open(faulty, StorePolicy.builder().requestTimeout(Duration.ofMinutes(5))
        .retryDelay(Duration.ofMillis(10)).build());
  }

  @AfterEach
  void tearDown() throws Exception {
    faulty.heal();
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  private SharedRegionCache cache(String name, int fetchThreads, Duration maxReadWait) throws IOException {
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve(name)).size(4 << 20).regionSize(32 << 10)
        .tailRegionSize(16 << 10).fetchThreads(fetchThreads).maxReadWait(maxReadWait).build();
    toClose.add(cache);
    return cache;
  }

  private IndexInput openLarge(SharedRegionCache cache) throws IOException {
    return openLarge(cache, IOContext.DEFAULT);
  }

  private IndexInput openLarge(SharedRegionCache cache, IOContext context) throws IOException {
    BlobDirectory dir = BlobDirectory.open(repo, "snap", cache);
    toClose.add(dir);
    IndexInput in = dir.openInput(large.name(), context);
    toClose.add(in);
    return in;
  }

  /** The first position at or after {@code p} that is not kept in the manifest: reading it needs the store. */
  private long cold(long p) {
    for (FileEntry.WarmRange r : large.warmRanges()) {
      if (p >= r.offset() && p < r.end()) {
        p = r.end();
      }
    }
    assertTrue(p < large.length(), "no cold byte after " + p + " in " + large);
    return p;
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long start = System.nanoTime();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - start > LIVENESS_NANOS) {
        fail("still waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  private static void assertNamesTheRead(BlobStoreTimeoutException e, FileEntry file) {
    String m = e.getMessage();
    assertTrue(m.contains(file.name()) && m.contains(file.blobName()) && m.contains("bytes [") && m.contains("'snap'"),
        "the error names the file, snapshot, blob and range: " + m);
  }

  @Test
  void aReaderGivesUpAtItsDeadlineAndTheFetchItAbandonsFreesItsThread() throws Exception {
    faulty.hangRate(1);
    SharedRegionCache cache = cache("deadline", 1, SharedRegionCache.DEFAULT_MAX_READ_WAIT);
    // read as an index structure, whose fill stops at its region's end: a data file's fill carried on into the next
    // region is called off with it, but the one fetch thread may start it the moment the reader's own is called off
    IndexInput in = openLarge(cache, IOContext.DEFAULT.withHints(FileTypeHint.INDEX));
    long middle = cold(large.length() / 2);
    BlobStoreTimeoutException e;
    try (ReadDeadline.Scope s = ReadDeadline.within(Duration.ofMillis(300), "the test's deadline")) {
      in.seek(middle);
      e = assertThrows(BlobStoreTimeoutException.class, in::readByte);
    }
    assertNamesTheRead(e, large);
    assertTrue(e.getMessage().contains("the test's deadline") && e.getMessage().contains("called off"), e.getMessage());
    // the one fetch thread is given back: the hung response was closed, and no retry was sent
    await("the abandoned fetch to end", () -> cache.stats().fillsInFlight() == 0 && faulty.openStreams.get() == 0);
    // whether the fetch reached the store before the reader's 300 ms ran out depends on the machine (if not, it was
    // called off while queued and sent nothing); either way it was sent at most once
    assertTrue(faulty.hangs.get() <= 1, "a called-off fetch sends no retry: " + faulty.hangs.get() + " hung reads");

    faulty.hangRate(0);
    in.seek(middle);
    in.readByte(); // served by the same single fetch thread
    assertTrue(cache.stats().total().bytesFetched() > 0);
  }

  @Test
  void withoutADeadlineAReadWaitsAtMostTheCachesMaxReadWait() throws Exception {
    faulty.hangRate(1);
    SharedRegionCache cache = cache("bound", 2, Duration.ofMillis(400));
    IndexInput in = openLarge(cache);
    in.seek(cold(large.length() / 3));
    BlobStoreTimeoutException e = assertThrows(BlobStoreTimeoutException.class, in::readByte);
    assertNamesTheRead(e, large);
    assertTrue(e.getMessage().contains("maxReadWait"), e.getMessage());
    await("the abandoned fetch to end", () -> cache.stats().fillsInFlight() == 0);
  }

  @Test
  void aReaderOfARegionThatIsNotAdmittedGivesUpToo() throws Exception {
    faulty.hangRate(1);
    // one 32 KiB slot: while a hung fill holds it, a read of another region cannot take it and reads directly from the store
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("tiny")).size(32 << 10).regionSize(32 << 10)
        .tailRegionSize(32 << 10).maxReadWait(Duration.ofMinutes(1)).build();
    toClose.add(cache);
    IndexInput first = openLarge(cache);
    IndexInput second = first.clone();
    Thread holder = Thread.ofPlatform().start(() -> {
      try (ReadDeadline.Scope s = ReadDeadline.within(Duration.ofSeconds(20), "the holder's deadline")) {
        first.seek(cold(0));
        first.readByte();
      } catch (IOException expected) {
        // it gives up too, after the direct read is checked
      }
    });
    await("the first fill to hang", () -> faulty.hangs.get() >= 1);
    try (ReadDeadline.Scope s = ReadDeadline.within(Duration.ofMillis(300), "the second reader's deadline")) {
      second.seek(cold(large.length() - 40_000));
      BlobStoreTimeoutException e = assertThrows(BlobStoreTimeoutException.class, second::readByte);
      assertNamesTheRead(e, large);
      assertTrue(e.getMessage().contains("directly from the store") || e.getMessage().contains("fetched into the cache"),
          e.getMessage());
    }
    faulty.heal();
    holder.join(LIVENESS_NANOS / 1_000_000);
  }

  @Test
  void anInterruptedReaderKeepsItsInterruptAndOthersGoOn() throws Exception {
    faulty.hangRate(1);
    SharedRegionCache cache = cache("interrupt", 4, SharedRegionCache.DEFAULT_MAX_READ_WAIT);
    BlobDirectory dir = BlobDirectory.open(repo, "snap", cache);
    toClose.add(dir);
    IndexInput hung = dir.openInput(large.name(), IOContext.DEFAULT);
    toClose.add(hung);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean keptInterrupt = new AtomicBoolean();
    Thread reader = Thread.ofPlatform().start(() -> {
      try {
        hung.seek(cold(large.length() / 2));
        hung.readByte();
      } catch (Throwable t) {
        failure.set(t);
        keptInterrupt.set(Thread.currentThread().isInterrupted());
      }
    });
    await("the read to hang", () -> faulty.hangs.get() >= 1);
    reader.interrupt();
    reader.join(LIVENESS_NANOS / 1_000_000);
    assertTrue(failure.get() instanceof InterruptedIOException, "got " + failure.get());
    assertTrue(keptInterrupt.get(), "the reader's interrupt status is kept");
    // another file of the same index, on other fetch threads, is unaffected
    String other = dir.listAll()[0].equals(large.name()) ? dir.listAll()[1] : dir.listAll()[0];
    try (IndexInput ok = dir.openInput(other, IOContext.DEFAULT)) {
      ok.seek(ok.length() - 1);
      ok.readByte();
    }
    await("the abandoned fetch to end", () -> cache.stats().fillsInFlight() == 0);
    assertNotNull(failure.get().getMessage());
  }
}
