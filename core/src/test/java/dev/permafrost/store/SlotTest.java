/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreTimeoutException;
import dev.permafrost.snapshot.FileEntry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.RandomAccessInput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Slot} alone, driven through fakes of what it calls up through: a {@link RegionOwner} per blob that records
 * what it is told, a {@link WindowTarget} that records the window it is pointed at and reads through it as an input
 * does, a {@link FetchOrigin} whose store lets each read go only when the test says, and a hand-stepped filler for
 * the fills a prefetch registers (the test plays the {@link Filler}'s side of {@link Fillable}). Each test is one row
 * or arrow of the state table in the package description (free, handed out, owned, filling), or a refusal of one;
 * the generation tests check what lock-free readers rely on. Interleavings are made on purpose (a reader is seen
 * waiting before the test goes on), so no verdict depends on the machine's speed.
 */
class SlotTest {
  private static final int PAGE = CacheFile.PAGE_SIZE;
  private static final int REGION = 16 * PAGE;
  /** Every fake blob: three full regions and a short one, so that a fill never fetches a whole blob. */
  private static final long BLOB_LENGTH = 3L * REGION + 1000;
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final GatedStore store = new GatedStore();
  private final Origin origin = new Origin();
  private final List<Thread> readers = new CopyOnWriteArrayList<>();
  private CacheFile cacheFile;
  private Filler filler;
  private CacheSpace cacheSpace;
  private int slotsCut;

  @BeforeEach
  void setUp() throws IOException {
    cacheFile = CacheFile.open(tmp, 4L * REGION, false);
    filler = new Filler(cacheFile, 2, 1, new CacheStatsCounter());
    cacheSpace = new CacheSpace(cacheFile, filler, HOUR); // no reader gives up on the cache's bound in these tests
  }

  @AfterEach
  void tearDown() throws Exception {
    store.failAll();
    for (Thread t : readers) {
      t.interrupt();
      t.join(TimeUnit.MINUTES.toMillis(1));
    }
    filler.close(10);
    cacheFile.close();
  }

  // ---- fakes ----

  /** The byte at file position {@code p} of blob {@code id}: owners below 256 differ at every position. */
  private static byte patternAt(int id, long p) {
    return (byte) (id * 37 + p * 13 + (p >>> 8));
  }

  private static byte[] pattern(int id, long from, int n) {
    byte[] bytes = new byte[n];
    for (int i = 0; i < n; i++) {
      bytes[i] = patternAt(id, from + i);
    }
    return bytes;
  }

  /** A blob as a slot sees it: regions of {@link #REGION} bytes, and what it was told of them. */
  private static final class Owner implements RegionOwner {
    final int id;
    final BlobChecksums checksums;
    /** The regions it was told a slot no longer holds, in order. */
    final List<Integer> released = Collections.synchronizedList(new ArrayList<>());
    /** The slot's generation whenever the slot asked where a region starts while holding its monitor (in assign). */
    final List<Integer> generationsInAssign = Collections.synchronizedList(new ArrayList<>());
    /** Whether it was ever told of a release while the slot's monitor was held. */
    volatile boolean toldUnderMonitor;
    /** The slot the test lent it, watched by the records above. */
    volatile Slot slot;

    Owner(int id) {
      assert id > 0 && id < 256 : id;
      this.id = id;
      this.checksums = new BlobChecksums(FileEntry.ofBlob("file-" + id, BLOB_LENGTH, 0, "blob-" + id), 0);
    }

    @Override
    public long regionStart(int index) {
      Slot s = slot;
      if (s != null && Thread.holdsLock(s)) {
        generationsInAssign.add(s.generation);
      }
      return (long) index * REGION;
    }

    @Override
    public int regionLength(int index) {
      return (int) Math.min(REGION, BLOB_LENGTH - (long) index * REGION);
    }

    @Override
    public int slotSize(int index) {
      return REGION;
    }

    @Override
    public long regionKey(int index) {
      return (long) id << 32 | index;
    }

    @Override
    public BlobChecksums checksums() {
      return checksums;
    }

    @Override
    public void regionReleased(int index) {
      Slot s = slot;
      toldUnderMonitor |= s != null && Thread.holdsLock(s);
      released.add(index);
    }

    byte[] bytes(long from, int n) {
      return pattern(id, from, n);
    }

    byte[] regionBytes(int index) {
      return bytes(regionStart(index), regionLength(index));
    }

    @Override
    public String toString() {
      return "owner " + id;
    }
  }

  /** A read of the store, held until the test lets it go or fails it. */
  private static final class Request {
    final String blob;
    final long offset;
    final long length;
    final CompletableFuture<Void> gate = new CompletableFuture<>();
    /** Counted down if the reading thread was interrupted while held (its fetch was called off). */
    final CountDownLatch interrupted = new CountDownLatch(1);

    Request(String blob, long offset, long length) {
      this.blob = blob;
      this.offset = offset;
      this.length = length;
    }

    void release() {
      gate.complete(null);
    }

    void fail(IOException e) {
      gate.completeExceptionally(e);
    }

    @Override
    public String toString() {
      return blob + " [" + offset + ", +" + length + ")";
    }
  }

  /** A store of pattern blobs whose range reads each wait for the test: a fill ends when the test says. */
  private static final class GatedStore implements BlobStore {
    final BlockingQueue<Request> pending = new LinkedBlockingQueue<>();
    final List<Request> sent = new CopyOnWriteArrayList<>();

    @Override
    public String describe() {
      return "gated test store";
    }

    @Override
    public InputStream read(String blobName) {
      throw new UnsupportedOperationException("a slot's fills read ranges");
    }

    @Override
    public InputStream read(String blobName, long offset, long length) throws IOException {
      Request r = new Request(blobName, offset, length);
      sent.add(r);
      pending.add(r);
      try {
        r.gate.get();
      } catch (InterruptedException e) {
        r.interrupted.countDown();
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("the read of " + r + " was interrupted");
      } catch (ExecutionException e) {
        throw (IOException) e.getCause();
      }
      int id = Integer.parseInt(blobName.substring("blob-".length()));
      return new ByteArrayInputStream(pattern(id, offset, Math.toIntExact(length)));
    }

    @Override
    public void write(String blobName, InputStream data, long length) {
      throw new UnsupportedOperationException("read only");
    }

    @Override
    public List<BlobMetadata> list(String prefix) {
      throw new UnsupportedOperationException("not listed");
    }

    @Override
    public long length(String blobName) {
      return BLOB_LENGTH;
    }

    @Override
    public void delete(String blobName) {
      throw new UnsupportedOperationException("read only");
    }

    @Override
    public void close() {}

    /** The next read that reached the store. */
    Request next() throws InterruptedException {
      Request r = pending.poll(1, TimeUnit.MINUTES);
      assertNotNull(r, "no read reached the store within a minute");
      return r;
    }

    void failAll() {
      for (Request r : sent) {
        r.fail(new IOException("the test is over"));
      }
    }
  }

  /** The file fetches are for: the gated store, no deadlines. */
  private final class Origin implements FetchOrigin {
    final CacheStatsCounter counter = new CacheStatsCounter();

    @Override
    public BlobStore store() {
      return store;
    }

    @Override
    public String storeDescription() {
      return store.describe();
    }

    @Override
    public CacheStatsCounter counter() {
      return counter;
    }

    @Override
    public long deadlineAfter(long now, long bytes) {
      return Long.MAX_VALUE;
    }

    @Override
    public String deadlineExplained() {
      return "no store policy";
    }

    @Override
    public long bridgedGap() {
      return 0; // no store model: fetches read no gap
    }

    @Override
    public String toString() {
      return "test file";
    }
  }

  /** An input's window: where the slot pointed it last, read and validated as {@link BlobIndexInput} does. */
  private static final class Target implements WindowTarget {
    int windows;
    long start = -1;
    long end = -1;
    long cacheDelta;
    RandomAccessInput mapping;
    SlotGeneration slot;
    int generation;

    @Override
    public void setCacheWindow(long start, long end, long cacheDelta, RandomAccessInput mapping, SlotGeneration slot,
        int generation) {
      windows++;
      this.start = start;
      this.end = end;
      this.cacheDelta = cacheDelta;
      this.mapping = mapping;
      this.slot = slot;
      this.generation = generation;
    }

    @Override
    public void setHeapWindow(long start, long end, RandomAccessInput bytes) {
      throw new AssertionError("a slot points inputs at the cache file only");
    }

    /** The bytes at file positions [from, from + n) through the window, without any check. */
    byte[] read(long from, int n) throws IOException {
      byte[] bytes = new byte[n];
      mapping.readBytes(from + cacheDelta, bytes, 0, n);
      return bytes;
    }

    /** Whether bytes read before this call were the window's: the slot's generation is the window's still. */
    boolean stillValid() {
      VarHandle.acquireFence(); // the reads before happen before the check
      return slot.generation == generation;
    }
  }

  /** The fetch of a fill the test lands by hand: running it only notes where (a reader's promotion runs it). */
  private static final class HandTask extends FetchTask {
    final Slot slot;
    final Fill fill;
    final CountDownLatch ran = new CountDownLatch(1);
    volatile String ranOn;
    volatile boolean cancelledWhileQueued;
    /** What the slot said when the task was queued. */
    Fill.Start start;

    HandTask(Slot slot, Fill fill) {
      super(slot, fill.start, fill.end);
      this.slot = slot;
      this.fill = fill;
    }

    @Override
    void fetch() {
      ranOn = Thread.currentThread().getName();
      ran.countDown();
    }

    @Override
    void cancelledWhileQueued() {
      cancelledWhileQueued = true;
      slot.finish(fill, new FetchTask.Cancelled("the test's fetch was called off before it ran"));
    }
  }

  /** What the pool asks when it must evict: a newcomer is worth 2, a resident 1; records whose worth it was asked. */
  private static final class Values implements EvictionPolicy {
    final List<Long> valued = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void recordAccess(long key) {}

    @Override
    public int candidateValue(long key, boolean reader) {
      return 2;
    }

    @Override
    public int residentValue(long key, boolean readerFetched) {
      valued.add(key);
      return 1;
    }

    @Override
    public int frequency(long key) {
      return 0;
    }

    @Override
    public void restoreFrequency(long key, int frequency) {}
  }

  /** A reader on a thread of its own: the test sees it wait, interrupts it, and takes its answer. */
  private record Reader(Thread thread, CompletableFuture<Slot.PageResult> result) {
    Slot.PageResult get() throws Exception {
      return result.get(1, TimeUnit.MINUTES);
    }

    Throwable failure() {
      ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(1, TimeUnit.MINUTES));
      return e.getCause();
    }
  }

  // ---- helpers ----

  /**
   * A slot handed out to the test (as the pool hands one out): each of a test's slots has bytes of its own, from the
   * file's end down, so that a window's cache offset differs from its file offset.
   */
  private Slot newSlot() {
    assert slotsCut < 3 : "the file holds three test slots beside the pool's";
    return new Slot(cacheSpace, (3L - slotsCut++) * REGION, REGION, PAGE);
  }

  private static Slot own(Slot slot, Owner owner, int index) {
    owner.slot = slot;
    slot.assign(owner, index);
    return slot;
  }

  /** A slot holding the whole of region {@code index} of {@code owner}, offered in hand (no fetch). */
  private Slot filled(Owner owner, int index) {
    Slot slot = own(newSlot(), owner, index);
    slot.offer(owner, index, owner.regionBytes(index), 0);
    assertTrue(slot.complete);
    return slot;
  }

  private Reader start(String name, Callable<Slot.PageResult> read) {
    CompletableFuture<Slot.PageResult> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        result.complete(read.call());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, name);
    t.setDaemon(true);
    readers.add(t);
    t.start();
    return new Reader(t, result);
  }

  /** A reader of region offset {@code rel} of region {@code index}, on a thread of its own. */
  private Reader awaitPage(Slot slot, Owner owner, int index, long rel, int fillSize, Target target) {
    return start("reader of " + rel, () -> slot.awaitPage(owner, index, rel, fillSize, null, origin, target));
  }

  private static void awaitWaiting(Slot slot, int readers) throws InterruptedException {
    await(readers + " reader(s) waiting in " + slot, () -> slot.waitingReaders() == readers);
  }

  /** Registers a prefetch's fills of [from, to) of the region (outside any work), as a blob does, unqueued. */
  private List<Fill> prefetch(Slot slot, Owner owner, int index, long from, long to) {
    List<Filler.Piece> batch = new ArrayList<>();
    slot.prefetch(owner, index, from, to, origin, batch, true, false);
    return batch.stream().map(Filler.Piece::fill).toList();
  }

  /** Queues a registered fill as the filler does, with a task the test steps by hand; called off if the slot says. */
  private HandTask queue(Slot slot, Fill fill) {
    HandTask task = new HandTask(slot, fill);
    task.start = slot.queued(fill, task);
    if (task.start == Fill.Start.CALLED_OFF) {
      filler.cancel(task);
    }
    return task;
  }

  /** The filler's step: writes the region offsets [from, to) of {@code owner}'s bytes and tells the slot. */
  private void land(Slot slot, Owner owner, Fill fill, long from, long to) throws IOException {
    byte[] bytes = owner.bytes(slot.regionStart() + from, Math.toIntExact(to - from));
    cacheFile.write(bytes, 0, bytes.length, slot.cacheOffset + from);
    slot.progress(fill, from, to, slot.unitCrcs(bytes, 0, from, to));
  }

  private static int[] unitCrcs(byte[] bytes, int unit) {
    int[] crcs = new int[(bytes.length + unit - 1) / unit];
    CRC32C crc = new CRC32C();
    for (int u = 0; u < crcs.length; u++) {
      crc.reset();
      crc.update(bytes, u * unit, Math.min(unit, bytes.length - u * unit));
      crcs[u] = (int) crc.getValue();
    }
    return crcs;
  }

  private static boolean done(Slot slot, Fill fill) {
    synchronized (slot) {
      return fill.done;
    }
  }

  // ---- handed out <-> owned, and the generation ----

  @Test
  void handedOutToOwnedOnAssignWithTheGenerationOddMeanwhile() {
    Owner a = new Owner(1);
    Slot slot = newSlot();
    a.slot = slot;
    int before = slot.generation;
    assertEquals(0, before & 1, "even at rest");
    slot.assign(a, 1);
    assertEquals(before + 2, slot.generation, "two bumps");
    assertEquals(1, a.generationsInAssign.size());
    assertEquals(1, a.generationsInAssign.get(0) & 1, "odd while the region changes hands: " + a.generationsInAssign);
    assertTrue(slot.holds(a, 1));
    assertFalse(slot.holds(a, 0));
    assertEquals(REGION, slot.fileStart);
    assertEquals(REGION, slot.length);
    assertFalse(slot.complete);
    assertEquals(0, slot.filledBytes(), "nothing filled yet");
    assertFalse(slot.isFilling());
    Target t = new Target();
    assertFalse(slot.offerFilled(a, 1, REGION, t), "no page to offer");
    assertEquals(0, t.windows);

    Slot last = own(newSlot(), a, 3);
    assertEquals(1000, last.length, "the blob's last region is short");
  }

  @Test
  void ownedToHandedOutOnTryTakeWhichTellsTheOwnerOnceItsMonitorIsLetGo() {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    Slot slot = filled(a, 1);
    int before = slot.generation;
    assertTrue(slot.tryTake(null));
    assertEquals(before + 2, slot.generation, "two bumps");
    assertEquals(List.of(1), a.released, "the owner is told which region it lost");
    assertFalse(a.toldUnderMonitor, "told after the slot's monitor is let go");
    assertNull(slot.owner);
    assertEquals(-1, slot.index);
    assertFalse(slot.complete);
    assertEquals(0, slot.filledBytes());
    assertFalse(slot.isHeld(System.nanoTime()));

    own(slot, b, 1);
    assertTrue(slot.holds(b, 1));
    assertFalse(slot.hasBytesAt(0), "the last owner's pages are not the new owner's");
    assertFalse(slot.offerFilled(b, 1, REGION, new Target()));
    assertTrue(slot.tryTake(b), "taken from the owner expected");
    assertEquals(List.of(1), b.released);
  }

  @Test
  void tryTakeRefusesASlotNobodyOwnsOrAnotherOwns() throws IOException {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    Slot slot = newSlot();
    int before = slot.generation;
    assertFalse(slot.tryTake(null), "handed out, not owned");
    assertFalse(slot.tryTake(a));
    assertEquals(before, slot.generation);

    own(slot, a, 1);
    slot.offer(a, 1, a.regionBytes(1), 0);
    before = slot.generation;
    assertFalse(slot.tryTake(b), "another owner's");
    assertEquals(before, slot.generation, "a refusal changes nothing");
    assertEquals(List.of(), a.released);
    assertTrue(slot.holds(a, 1));
    Target t = new Target();
    assertTrue(slot.offerFilled(a, 1, REGION + 5, t));
    assertArrayEquals(a.bytes(REGION + 5, 100), t.read(REGION + 5, 100));
  }

  @Test
  void aReaderThatSnapshottedTheGenerationBeforeAnEvictionSeesAMismatchAfterIt() throws IOException {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    Slot slot = filled(a, 1);
    Target t = new Target();
    assertTrue(slot.offerFilled(a, 1, REGION + 100, t));
    assertSame(slot, t.slot);
    assertEquals(0, t.generation & 1);
    assertTrue(t.stillValid());

    assertTrue(slot.tryTake(null));
    assertFalse(t.stillValid(), "evicted: a reader holding the old generation must look again");
    own(slot, b, 1);
    slot.offer(b, 1, b.regionBytes(1), 0);
    assertFalse(t.stillValid(), "lent to another owner: still a mismatch");
    assertFalse(slot.offerFilled(a, 1, REGION + 100, new Target()), "the old owner is not offered the new bytes");
    byte[] read = t.read(REGION + 100, 64);
    assertArrayEquals(b.bytes(REGION + 100, 64), read, "the old window now shows the new owner's bytes");
    assertFalse(t.stillValid(), "which its check rejects");
  }

  @Test
  void aReadValidatedAgainstAnUnchangedGenerationReturnsTheOwnersBytes() throws IOException {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    land(slot, a, fill, 0, PAGE);
    Target first = new Target();
    assertTrue(slot.offerFilled(a, 1, REGION + 10, first));
    assertEquals(REGION, first.start);
    assertEquals(REGION + PAGE, first.end, "the run of filled pages around the position");
    assertEquals(slot.cacheOffset - REGION, first.cacheDelta);
    byte[] read = first.read(REGION, PAGE);
    assertTrue(first.stillValid());
    assertArrayEquals(a.bytes(REGION, PAGE), read);

    land(slot, a, fill, PAGE, REGION);
    assertTrue(first.stillValid(), "pages landing do not change hands: windows stay valid");
    Target whole = new Target();
    assertTrue(slot.offerFilled(a, 1, REGION + 5 * PAGE, whole));
    assertEquals(first.generation, whole.generation);
    assertEquals(REGION, whole.start);
    assertEquals(2L * REGION, whole.end, "complete: the whole region");
    read = whole.read(REGION, REGION);
    assertTrue(whole.stillValid());
    assertArrayEquals(a.regionBytes(1), read);
  }

  /**
   * Readers read through the lock-free path and keep their windows across reads, as inputs do, while another thread
   * evicts the slot and lends it to other blobs again and again (whole or part filled). Whatever the scheduling, a
   * read validated against the generation it was offered at returns the bytes of the owner it was offered for.
   */
  @Test
  void readsValidatedAgainstTheGenerationNeverReturnAnotherOwnersBytes() throws Exception {
    int owners = 12;
    int rounds = 2000;
    int readerCount = 3;
    int reads = 30_000;
    Owner[] lent = new Owner[owners];
    byte[][] regions = new byte[owners][];
    for (int i = 0; i < owners; i++) {
      lent[i] = new Owner(i + 1);
      regions[i] = lent[i].regionBytes(1);
    }
    Slot slot = filled(lent[0], 1);
    CountDownLatch eachValidatedOnce = new CountDownLatch(readerCount);
    AtomicLong validated = new AtomicLong();
    AtomicLong wrongReads = new AtomicLong();
    ConcurrentLinkedQueue<String> firstWrong = new ConcurrentLinkedQueue<>();
    ExecutorService threads = Executors.newFixedThreadPool(readerCount + 1);
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int r = 0; r < readerCount; r++) {
        Random random = new Random(seed + r);
        tasks.add(threads.submit(() -> {
          Target kept = null;
          Owner keptFor = null;
          boolean counted = false;
          for (int i = 0; i < reads; i++) {
            Target t;
            Owner o;
            if (kept != null && random.nextBoolean()) {
              t = kept; // a window kept across reads, perhaps across evictions
              o = keptFor;
            } else {
              RegionOwner current = slot.owner;
              if (current == null) {
                continue;
              }
              o = (Owner) current;
              t = new Target();
              if (!slot.offerFilled(o, 1, REGION + random.nextInt(REGION), t)) {
                continue;
              }
            }
            long from = t.start + random.nextLong(t.end - t.start);
            int n = (int) Math.min(16, t.end - from);
            byte[] read = t.read(from, n);
            if (!t.stillValid()) {
              continue; // changed hands: an input looks the region up again
            }
            validated.incrementAndGet();
            if (!counted) {
              counted = true;
              eachValidatedOnce.countDown();
            }
            if (!Arrays.equals(read, o.bytes(from, n)) && wrongReads.incrementAndGet() <= 3) {
              String whose = "no owner's";
              for (Owner other : lent) {
                if (Arrays.equals(read, other.bytes(from, n))) {
                  whose = other + "'s";
                }
              }
              firstWrong.add("a read of [" + from + ", +" + n + ") validated for " + o + " at generation "
                  + t.generation + " returned " + whose + " bytes");
            }
            kept = t;
            keptFor = o;
          }
          return null;
        }));
      }
      Random random = new Random(seed);
      tasks.add(threads.submit(() -> {
        assertTrue(eachValidatedOnce.await(1, TimeUnit.MINUTES), "every reader read once before the evictions");
        for (int round = 1; round <= rounds; round++) {
          int next = round % owners;
          Owner owner = lent[next];
          assertTrue(slot.tryTake(null), "no fill is left registered between rounds");
          slot.assign(owner, 1);
          if (random.nextBoolean()) {
            slot.offer(owner, 1, regions[next], 0);
          } else {
            Fill fill = prefetch(slot, owner, 1, 0, REGION).get(0);
            land(slot, owner, fill, 0, (long) (1 + random.nextInt(REGION / PAGE - 1)) * PAGE);
            slot.finish(fill, null); // the rest never comes
          }
        }
        return null;
      }));
      for (Future<?> f : tasks) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(0, wrongReads.get(), "seed " + seed + ", the first: " + firstWrong);
    assertTrue(validated.get() >= readerCount, "every reader validated at least its first read");
  }

  // ---- owned -> filling -> owned ----

  @Test
  void ownedToFillingOnAClaimAndBackWhenTheFillsLastByteLands() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Target t = new Target();
    Reader r = awaitPage(slot, a, 1, 100, 2 * PAGE, t);
    Request request = store.next();
    assertEquals("blob-1", request.blob);
    assertEquals(REGION, request.offset, "from the claimed page's unit");
    assertEquals(2 * PAGE, request.length, "as much as the reader asked for");
    awaitWaiting(slot, 1);
    assertTrue(slot.isFilling());
    assertFalse(slot.tryTake(null), "never taken while filling");
    assertFalse(slot.hasBytesAt(100));
    assertFalse(r.result().isDone(), "the bytes have not landed");

    request.release();
    assertEquals(Slot.PageResult.FETCHED, r.get());
    assertFalse(slot.isFilling(), "the fill ended with its last byte, in the same step");
    assertEquals(2 * PAGE, slot.filledBytes());
    assertEquals(1, t.windows);
    assertEquals(REGION, t.start);
    assertEquals(REGION + 2 * PAGE, t.end);
    assertSame(slot, t.slot);
    assertEquals(slot.generation, t.generation);
    byte[] read = t.read(REGION, 2 * PAGE);
    assertTrue(t.stillValid());
    assertArrayEquals(a.bytes(REGION, 2 * PAGE), read);
  }

  @Test
  void aSecondClaimerJoinsTheFillUnderWayInsteadOfFetchingAgain() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Target first = new Target();
    Target second = new Target();
    Reader r1 = awaitPage(slot, a, 1, 100, 2 * PAGE, first);
    Request request = store.next();
    awaitWaiting(slot, 1);
    Reader r2 = awaitPage(slot, a, 1, PAGE + 5, 2 * PAGE, second); // another page of the same fill
    awaitWaiting(slot, 2);
    assertEquals(1, filler.inFlight(), "one fetch for both readers");

    request.release();
    assertEquals(Slot.PageResult.FETCHED, r1.get());
    assertEquals(Slot.PageResult.FETCHED, r2.get());
    await("the fetch to end", () -> filler.inFlight() == 0);
    assertEquals(List.of(request), store.sent, "the store was asked once");
    assertEquals(REGION, second.start);
    assertEquals(REGION + 2 * PAGE, second.end);
    assertArrayEquals(a.bytes(REGION + PAGE + 5, 10), second.read(REGION + PAGE + 5, 10));
  }

  @Test
  void aFilledPageIsAHitWithoutAWaitOrAFetch() throws IOException {
    Owner a = new Owner(1);
    Slot slot = filled(a, 1);
    Target t = new Target();
    assertEquals(Slot.PageResult.CACHED, slot.awaitPage(a, 1, 300, PAGE, null, origin, t));
    assertEquals(REGION, t.start);
    assertEquals(2L * REGION, t.end, "the whole region");
    assertEquals(0, filler.inFlight());
    assertEquals(List.of(), store.sent);
  }

  @Test
  void pagesAreFilledUnitByUnitAsTheyLandAndTheFillEndsWithItsLastByte() throws IOException {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    List<Fill> fills = prefetch(slot, a, 1, 0, REGION);
    assertEquals(1, fills.size(), "one fill for the missing region");
    Fill fill = fills.get(0);
    assertEquals(0, fill.start);
    assertEquals(REGION, fill.end);
    assertTrue(slot.isFilling());
    assertEquals(Fill.Start.PREFETCH, queue(slot, fill).start, "nobody waits for it: the prefetch lane");

    land(slot, a, fill, 0, PAGE);
    assertTrue(slot.hasBytesAt(0));
    assertTrue(slot.hasBytesAt(PAGE - 1));
    assertFalse(slot.hasBytesAt(PAGE), "only what landed");
    assertTrue(slot.isFilling(), "the fill goes on");
    assertFalse(slot.complete);
    Target t = new Target();
    assertTrue(slot.offerFilled(a, 1, REGION + 10, t));
    assertEquals(REGION + PAGE, t.end);
    assertFalse(slot.offerFilled(a, 1, REGION + PAGE, new Target()), "the next page has not landed");

    land(slot, a, fill, PAGE, REGION - PAGE);
    assertTrue(slot.isFilling(), "a page short of its end: still filling");
    assertFalse(slot.complete);
    assertFalse(done(slot, fill));
    assertFalse(slot.offerFilled(a, 1, 2L * REGION - 1, new Target()), "its last byte has not landed");

    land(slot, a, fill, REGION - PAGE, REGION);
    assertTrue(done(slot, fill));
    assertNull(fill.error);
    assertFalse(slot.isFilling());
    assertTrue(slot.complete);
    assertEquals(REGION, slot.filledBytes());
    Target whole = new Target();
    assertTrue(slot.offerFilled(a, 1, 2L * REGION - 1, whole));
    assertEquals(REGION, whole.start);
    assertEquals(2L * REGION, whole.end);
    assertArrayEquals(a.regionBytes(1), whole.read(REGION, REGION));
  }

  @Test
  void bytesInHandFillARangeOnlyWhereNoPageIsFilledOrBeingFetched() throws IOException {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    byte[] region = a.regionBytes(1);
    Fill first = prefetch(slot, a, 1, 0, PAGE).get(0);
    queue(slot, first);
    land(slot, a, first, 0, PAGE);
    Fill third = prefetch(slot, a, 1, 2 * PAGE, 3 * PAGE).get(0);

    slot.offer(a, 1, region, PAGE, PAGE, 2 * PAGE); // the second page: missing, nobody fetches it
    assertTrue(slot.hasBytesAt(PAGE) && slot.hasBytesAt(2 * PAGE - 1));
    slot.offer(a, 1, region, 0, 0, 2 * PAGE);
    slot.offer(a, 1, region, 2 * PAGE, 2 * PAGE, 4 * PAGE);
    assertFalse(slot.hasBytesAt(2 * PAGE), "a page being fetched is left to its fill");
    assertFalse(slot.hasBytesAt(3 * PAGE), "a range with such a page is refused whole");
    assertFalse(done(slot, third));
    slot.offer(new Owner(2), 1, region, 3 * PAGE, 3 * PAGE, REGION);
    slot.offer(a, 2, region, 3 * PAGE, 3 * PAGE, REGION);
    assertFalse(slot.hasBytesAt(3 * PAGE), "offered for another blob's region, or another region: refused");

    slot.offer(a, 1, region, 3 * PAGE, 3 * PAGE, REGION);
    assertTrue(slot.hasBytesAt(3 * PAGE) && slot.hasBytesAt(REGION - 1));
    assertFalse(slot.complete, "the third page is still on its way");
    queue(slot, third);
    land(slot, a, third, 2 * PAGE, 3 * PAGE);
    assertTrue(slot.complete);
    Target whole = new Target();
    assertTrue(slot.offerFilled(a, 1, REGION, whole));
    assertArrayEquals(region, whole.read(REGION, REGION), "every page holds its own bytes");
    assertEquals(List.of(), store.sent, "the hand-stepped fills aside, nothing was fetched");
  }

  @Test
  void theShortLastRegionIsCompleteWhenItsLastByteLands() throws IOException {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 3);
    Fill fill = prefetch(slot, a, 3, 0, REGION).get(0);
    assertEquals(1000, fill.end, "up to the blob's end");
    land(slot, a, fill, 0, 1000);
    assertTrue(slot.complete);
    assertFalse(slot.isFilling());
    assertEquals(1000, slot.filledBytes());
    assertFalse(slot.hasBytesAt(1000), "nothing past the region");
    Target t = new Target();
    assertTrue(slot.offerFilled(a, 3, 3L * REGION + 999, t));
    assertEquals(3L * REGION + 1000, t.end);
    assertArrayEquals(a.regionBytes(3), t.read(3L * REGION, 1000));
  }

  @Test
  void aSlotBeingFilledIsNeverTakenUntilItsLastFillEnds() throws IOException {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    land(slot, a, fill, 0, PAGE);
    int before = slot.generation;
    assertFalse(slot.tryTake(null), "filling: not evicted");
    assertFalse(slot.tryTake(a), "filling: not freed by its owner either");
    assertEquals(before, slot.generation);
    assertEquals(List.of(), a.released);
    assertTrue(slot.holds(a, 1));
    assertTrue(slot.hasBytesAt(0), "what landed stays");

    land(slot, a, fill, PAGE, REGION);
    assertTrue(slot.tryTake(a), "the fill ended: the slot can change hands");
    assertEquals(List.of(1), a.released);
  }

  @Test
  void aFailedFillWakesEveryWaiterWithItsFailureAndLeavesThePagesMissing() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Reader r1 = awaitPage(slot, a, 1, 100, 2 * PAGE, new Target());
    Request request = store.next();
    awaitWaiting(slot, 1);
    Reader r2 = awaitPage(slot, a, 1, PAGE, 2 * PAGE, new Target());
    awaitWaiting(slot, 2);

    IOException down = new IOException("the store is down");
    request.fail(down);
    Throwable e1 = r1.failure();
    Throwable e2 = r2.failure();
    assertInstanceOf(IOException.class, e1);
    assertTrue(e1.getMessage().contains("the store is down"), e1.getMessage());
    assertSame(down, e1.getCause());
    assertSame(e1, e2, "both waiters see the fill's one failure");
    assertFalse(slot.isFilling());
    assertFalse(slot.hasBytesAt(100), "nothing of a failed fill is readable");
    assertEquals(0, slot.filledBytes());

    Reader again = awaitPage(slot, a, 1, 100, PAGE, new Target());
    Request retry = store.next();
    assertEquals(REGION, retry.offset, "the next reader fetches again");
    retry.release();
    assertEquals(Slot.PageResult.FETCHED, again.get());
    assertTrue(slot.tryTake(a), "and the slot can change hands");
    assertEquals(List.of(1), a.released);
  }

  @Test
  void theLastWaiterGivingUpCallsTheFillOffBeforeItIsQueued() throws IOException {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    try (ReadDeadline.Scope passed = ReadDeadline.at(System.nanoTime() - 1, "a deadline already passed")) {
      BlobStoreTimeoutException e = assertThrows(BlobStoreTimeoutException.class,
          () -> slot.awaitPage(a, 1, 100, PAGE, null, origin, new Target()));
      assertTrue(e.getMessage().contains("a deadline already passed") && e.getMessage().contains("called off"),
          e.getMessage());
    }
    synchronized (slot) {
      assertTrue(fill.demand, "a reader asked for it");
      assertEquals(0, fill.waiters);
      assertTrue(fill.calledOff, "called off for when it is queued");
      assertNull(fill.task);
    }
    HandTask task = queue(slot, fill);
    assertEquals(Fill.Start.CALLED_OFF, task.start);
    assertTrue(task.cancelledWhileQueued, "never runs");
    assertTrue(done(slot, fill));
    assertInstanceOf(FetchTask.Cancelled.class, fill.error);
    assertFalse(slot.isFilling());
    assertEquals(0, slot.filledBytes());
  }

  @Test
  void theLastWaiterGivingUpCallsItsOwnFetchOff() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    try (ReadDeadline.Scope passed = ReadDeadline.at(System.nanoTime() - 1, "a deadline already passed")) {
      assertThrows(BlobStoreTimeoutException.class, () -> slot.awaitPage(a, 1, 100, PAGE, null, origin, new Target()));
    }
    await("the fill called off to end", () -> !slot.isFilling());
    assertEquals(0, slot.filledBytes());
    store.pending.clear(); // the called-off fetch's read, if it was sent, ended with the fill

    Reader next = awaitPage(slot, a, 1, 100, PAGE, new Target());
    Request request = store.next();
    request.release();
    assertEquals(Slot.PageResult.FETCHED, next.get(), "the next reader fetches for itself");
  }

  @Test
  void aWaiterGivingUpLeavesTheFillToTheOthersWaiting() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    Reader staying = awaitPage(slot, a, 1, 100, PAGE, new Target());
    awaitWaiting(slot, 1);
    try (ReadDeadline.Scope passed = ReadDeadline.at(System.nanoTime() - 1, "a deadline already passed")) {
      BlobStoreTimeoutException e = assertThrows(BlobStoreTimeoutException.class,
          () -> slot.awaitPage(a, 1, 200, PAGE, null, origin, new Target()));
      assertTrue(e.getMessage().contains("goes on for the other readers"), e.getMessage());
    }
    synchronized (slot) {
      assertEquals(1, fill.waiters);
      assertFalse(fill.calledOff);
    }
    land(slot, a, fill, 0, REGION);
    assertEquals(Slot.PageResult.FETCHED, staying.get());
  }

  @Test
  void anInterruptedReaderCallsOffTheFetchItAloneWaitedFor() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Reader r = awaitPage(slot, a, 1, 100, PAGE, new Target());
    Request request = store.next();
    awaitWaiting(slot, 1);
    r.thread().interrupt();
    assertInstanceOf(InterruptedIOException.class, r.failure());
    assertTrue(request.interrupted.await(1, TimeUnit.MINUTES), "the running fetch was interrupted");
    await("the fill called off to end", () -> !slot.isFilling());
    assertEquals(0, slot.filledBytes());
    assertTrue(slot.tryTake(a));
  }

  @Test
  void aReaderWhoseFillWasCalledOffFetchesThePageItself() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    Reader r = awaitPage(slot, a, 1, 100, PAGE, new Target());
    awaitWaiting(slot, 1);
    slot.finish(fill, new FetchTask.Cancelled("called off by the test"));
    Request own = store.next();
    assertEquals(REGION, own.offset);
    assertEquals(PAGE, own.length, "its own fill, as large as it asks");
    own.release();
    assertEquals(Slot.PageResult.FETCHED, r.get(), "a fill called off is not the reader's failure");
  }

  @Test
  void aReaderWhoComesToWaitForAPrefetchMovesItToTheDemandLane() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill queuedFirst = prefetch(slot, a, 1, 0, REGION).get(0);
    HandTask task = queue(slot, queuedFirst);
    assertEquals(Fill.Start.PREFETCH, task.start);
    Reader r = awaitPage(slot, a, 1, 100, PAGE, new Target());
    assertTrue(task.ran.await(1, TimeUnit.MINUTES), "promoted: run on the demand lane");
    assertTrue(task.ranOn.startsWith("permafrost-cache-fetch"), task.ranOn);
    synchronized (slot) {
      assertTrue(queuedFirst.demand);
    }
    land(slot, a, queuedFirst, 0, REGION);
    assertEquals(Slot.PageResult.FETCHED, r.get());

    Slot other = own(newSlot(), a, 2);
    Fill queuedLater = prefetch(other, a, 2, 0, REGION).get(0);
    Reader early = awaitPage(other, a, 2, 100, PAGE, new Target());
    awaitWaiting(other, 1);
    synchronized (other) {
      assertTrue(queuedLater.demand, "a reader waits for it before it has a task");
      assertNull(queuedLater.task);
    }
    assertEquals(Fill.Start.DEMAND, queue(other, queuedLater).start, "queued on the demand lane");
    land(other, a, queuedLater, 0, REGION);
    assertEquals(Slot.PageResult.FETCHED, early.get());
  }

  @Test
  void fillingToOwnedOnWithdrawAndItsWaiterFetchesThePageItself() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    slot.withdraw(fill);
    assertTrue(done(slot, fill));
    assertFalse(slot.isFilling(), "its bytes come another way");
    assertEquals(0, slot.filledBytes());

    fill = prefetch(slot, a, 1, 0, REGION).get(0);
    Reader r = awaitPage(slot, a, 1, 100, PAGE, new Target());
    awaitWaiting(slot, 1);
    slot.withdraw(fill);
    Request own = store.next();
    assertEquals(REGION, own.offset, "the waiter looked again and fetched");
    own.release();
    assertEquals(Slot.PageResult.FETCHED, r.get());
  }

  @Test
  void aFillCutShortByTheRegionEndIsReportedWithoutWaiting() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Target t = new Target();
    long rel = REGION - PAGE + 10; // the last page, for a reader that wants two
    List<Filler.Piece> cut = new ArrayList<>();
    assertEquals(Slot.PageResult.CUT_AT_REGION_END, slot.awaitPage(a, 1, rel, 2 * PAGE, cut, origin, t));
    assertEquals(0, t.windows, "not waited for");
    assertTrue(slot.isFilling(), "but registered");
    assertEquals(1, cut.size(), "handed to the caller, which queues it with what carries it on");
    assertEquals(REGION - PAGE, cut.get(0).fill().start);
    filler.start(cut, a.checksums, origin);
    Request request = store.next();
    assertEquals(REGION + REGION - PAGE, request.offset);
    assertEquals(PAGE, request.length, "up to the region's end");

    Reader back = awaitPage(slot, a, 1, rel, 2 * PAGE, t); // the caller comes back to wait for it
    awaitWaiting(slot, 1);
    request.release();
    assertEquals(Slot.PageResult.FETCHED, back.get());
    assertEquals(2L * REGION, t.end);

    Slot last = own(newSlot(), a, 3);
    Reader atTheEnd = start("reader of the last region",
        () -> last.awaitPage(a, 3, 10, 2 * PAGE, new ArrayList<>(), origin, new Target()));
    store.next().release();
    assertEquals(Slot.PageResult.FETCHED, atTheEnd.get(), "the blob's last region: nothing to carry on into, so it waits");
  }

  @Test
  void aReaderWakesStaleWhenTheSlotChangedHandsWhileItWaited() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    Target t = new Target();
    Reader r = awaitPage(slot, a, 1, 100, PAGE, t);
    awaitWaiting(slot, 1);
    synchronized (slot) { // the reader wakes only once both are done
      slot.withdraw(fill);
      assertTrue(slot.tryTake(null));
    }
    assertEquals(Slot.PageResult.STALE, r.get());
    assertEquals(0, t.windows);
    assertEquals(List.of(1), a.released);
  }

  @Test
  void aReaderOfARegionTheSlotDoesNotHoldIsStaleAndStartsNothing() throws IOException {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    Slot slot = own(newSlot(), a, 1);
    assertEquals(Slot.PageResult.STALE, slot.awaitPage(a, 0, 100, PAGE, null, origin, new Target()));
    assertEquals(Slot.PageResult.STALE, slot.awaitPage(b, 1, 100, PAGE, null, origin, new Target()));
    assertFalse(slot.isFilling());
    assertFalse(slot.offerFilled(b, 1, REGION, new Target()));
    assertEquals(List.of(), prefetch(slot, b, 1, 0, REGION), "nor does a prefetch for another region");
    assertEquals(List.of(), store.sent);
  }

  @Test
  void aWaitingReaderNoticesTheCacheClosed() throws Exception {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    Fill fill = prefetch(slot, a, 1, 0, REGION).get(0);
    Reader r = awaitPage(slot, a, 1, 100, PAGE, new Target());
    awaitWaiting(slot, 1);
    cacheSpace.markClosed();
    assertInstanceOf(AlreadyClosedException.class, r.failure());
    synchronized (slot) {
      assertEquals(0, fill.waiters);
      assertTrue(fill.calledOff, "nobody waits for it any more");
    }
  }

  @Test
  void offerWritesBytesInHandOnlyIntoItsOwnersEmptyRegion() throws IOException {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    Slot slot = own(newSlot(), a, 1);
    byte[] twoRegions = a.bytes(0, 2 * REGION);
    slot.offer(b, 1, b.bytes(0, 2 * REGION), REGION);
    slot.offer(a, 0, twoRegions, 0);
    assertEquals(0, slot.filledBytes(), "not its region: nothing written");

    slot.offer(a, 1, twoRegions, REGION);
    assertTrue(slot.complete);
    assertFalse(slot.isFilling());
    assertEquals(List.of(), store.sent, "no fetch");
    slot.offer(a, 1, b.bytes(0, 2 * REGION), REGION);
    Target t = new Target();
    assertTrue(slot.offerFilled(a, 1, REGION, t));
    assertArrayEquals(a.regionBytes(1), t.read(REGION, REGION), "filled pages are never written over");

    Slot filling = own(newSlot(), a, 2);
    Fill fill = prefetch(filling, a, 2, 0, REGION).get(0);
    filling.offer(a, 2, a.regionBytes(2), 0);
    assertEquals(0, filling.filledBytes(), "a fill is under way: it brings the bytes");
    land(filling, a, fill, 0, REGION);
    assertTrue(filling.complete);
  }

  @Test
  void carryOnHoldsItsFillsForItsReaderUntilItLetsGo() throws IOException {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    List<Fill> held = new ArrayList<>();
    List<Filler.Piece> batch = new ArrayList<>();
    slot.carryOn(a, 1, 0, REGION, origin, held, batch);
    assertEquals(1, held.size());
    Fill fill = held.get(0);
    assertSame(fill, batch.get(0).fill());
    synchronized (slot) {
      assertEquals(1, fill.waiters, "counted as its reader's");
      assertFalse(fill.demand, "the prefetch lane, until a reader comes to wait");
    }
    assertTrue(slot.readerFetched, "worth a reader's fetch");
    assertTrue(slot.fetchedAhead);
    HandTask task = queue(slot, fill);
    assertEquals(Fill.Start.PREFETCH, task.start);
    slot.letGo(fill, false);
    assertFalse(task.cancelledWhileQueued, "the reader did not give up: it runs on");
    assertTrue(slot.isFilling());
    land(slot, a, fill, 0, REGION);
    assertTrue(slot.complete);

    Slot other = own(newSlot(), a, 2);
    List<Fill> heldToo = new ArrayList<>();
    other.carryOn(a, 2, 0, REGION, origin, heldToo, new ArrayList<>());
    Fill abandoned = heldToo.get(0);
    other.letGo(abandoned, true);
    HandTask never = queue(other, abandoned);
    assertEquals(Fill.Start.CALLED_OFF, never.start, "its reader gave up before it was queued");
    assertTrue(done(other, abandoned));
    assertFalse(other.isFilling());

    List<Fill> none = new ArrayList<>();
    other.carryOn(new Owner(2), 2, 0, REGION, origin, none, new ArrayList<>());
    assertEquals(List.of(), none, "not the slot's region: nothing carried on");
  }

  /**
   * The filler's side of a slot that is handed on to another region the instant its fill ends, as a real slot may be
   * (evicted and assigned again) before the fetch is through the rest of its run: it records each write reported.
   */
  private static final class HandedOn implements Fillable {
    final long cacheOffset;
    final long nextRegionStart;
    volatile long regionStart;
    final List<String> writes = new CopyOnWriteArrayList<>();
    final CompletableFuture<IOException> ended = new CompletableFuture<>();

    HandedOn(long cacheOffset, long regionStart, long nextRegionStart) {
      this.cacheOffset = cacheOffset;
      this.regionStart = regionStart;
      this.nextRegionStart = nextRegionStart;
    }

    @Override
    public long cacheOffset() {
      return cacheOffset;
    }

    @Override
    public long regionStart() {
      return regionStart;
    }

    @Override
    public int[] unitCrcs(byte[] bytes, int offset, long from, long to) {
      return new int[(int) ((to - from + PAGE - 1) / PAGE)];
    }

    @Override
    public Fill.Start queued(Fill fill, FetchTask task) {
      fill.task = task;
      return Fill.Start.DEMAND;
    }

    @Override
    public void progress(Fill fill, long from, long to, int[] crcs) {
      writes.add("[" + from + ", " + to + ")" + (fill.done ? " after its fill ended" : ""));
      if (to >= fill.end && !fill.done) {
        fill.done = true;
        regionStart = nextRegionStart; // taken and given to another region at once
        ended.complete(null);
      }
    }

    @Override
    public List<Fill> fillGap(Fill before, long from, long to, FetchOrigin file) {
      throw new AssertionError("its pieces are in regions of their own: no gap inside one");
    }

    @Override
    public void finish(Fill fill, IOException error) {
      if (!fill.done) {
        fill.done = true;
        ended.complete(error);
      }
    }
  }

  @Test
  void oneFetchOfAdjacentRegionsWritesEachOnlyIntoItsOwnRegionThoughASlotDoneWithIsHandedOn() throws Exception {
    Owner a = new Owner(1);
    // the first region's slot is handed on to a region that starts where the second does: a position read from the
    // slot after its fill ended would take the second region's bytes for the first's
    HandedOn first = new HandedOn(0, 0, REGION);
    HandedOn second = new HandedOn(REGION, REGION, 3L * REGION);
    long now = System.nanoTime();
    List<Filler.Piece> run = List.of(new Filler.Piece(first, new Fill(0, REGION, true, now, Long.MAX_VALUE)),
        new Filler.Piece(second, new Fill(0, REGION, true, now, Long.MAX_VALUE)));
    filler.start(run, a.checksums, origin);
    Request request = store.next();
    assertEquals(0, request.offset);
    assertEquals(2L * REGION, request.length, "adjacent regions: one request");
    request.release(); // the response comes in two pieces of a region each (VerifiedFetch's unverified pieces)
    assertNull(first.ended.get(1, TimeUnit.MINUTES));
    assertNull(second.ended.get(1, TimeUnit.MINUTES));
    await("the fetch to end", () -> filler.inFlight() == 0);
    assertEquals(List.of("[0, " + REGION + ")"), first.writes, "written once, with its own bytes");
    assertEquals(List.of("[0, " + REGION + ")"), second.writes);
    byte[] cached = new byte[2 * REGION];
    cacheFile.mapped().readBytes(0, cached, 0, cached.length);
    assertArrayEquals(a.bytes(0, 2 * REGION), cached, "each region's bytes where its slot is");
  }

  // ---- handed out -> owned from the record of a clean close ----

  @Test
  void handedOutToOwnedOnRestoreWithRecordedUnitsVerifiedOnTheirFirstRead() throws IOException {
    Owner a = new Owner(1);
    Slot slot = newSlot();
    a.slot = slot;
    byte[] region = a.regionBytes(1);
    cacheFile.write(region, 0, REGION, slot.cacheOffset);
    int[] crcs = unitCrcs(region, PAGE);
    int before = slot.generation;
    assertTrue(slot.restore(a, 1, PAGE, new long[] {0b1011}, crcs)); // units 0, 1 and 3
    assertEquals(before + 2, slot.generation, "two bumps, as for an assign");
    assertTrue(slot.holds(a, 1));
    assertTrue(slot.hasBytesAt(0));
    assertTrue(slot.hasBytesAt(PAGE));
    assertFalse(slot.hasBytesAt(2 * PAGE));
    assertTrue(slot.hasBytesAt(3 * PAGE));
    assertEquals(0, slot.filledBytes(), "restored, not verified yet");
    assertFalse(slot.offerFilled(a, 1, REGION, new Target()), "the lock-free path offers verified pages only");

    Target t = new Target();
    assertEquals(Slot.PageResult.CACHED, slot.awaitPage(a, 1, 10, PAGE, null, origin, t));
    assertEquals(REGION, t.start);
    assertEquals(REGION + PAGE, t.end, "its unit, verified");
    assertEquals(Slot.PageResult.CACHED, slot.awaitPage(a, 1, PAGE + 10, PAGE, null, origin, t));
    assertEquals(REGION + 2 * PAGE, t.end);
    assertArrayEquals(a.bytes(REGION, 2 * PAGE), t.read(REGION, 2 * PAGE));
    assertEquals(2 * PAGE, slot.filledBytes());
    assertEquals(0, origin.counter.checksumMismatches.sum());
    assertEquals(List.of(), store.sent, "no fetch");

    CacheRecord.SlotState state = slot.recordState(a, 7, 3);
    assertNotNull(state);
    assertEquals(0b1011, state.units()[0], "filled or restored, as a clean close writes them down");
    assertEquals(crcs[3], state.crcs()[3]);
    assertNull(slot.recordState(new Owner(2), 8, 0), "another owner's slot is not its to record");
  }

  @Test
  void aRestoredUnitThatNoLongerMatchesIsDroppedWithItsRegionsOthersAndFetched() throws Exception {
    Owner a = new Owner(1);
    Slot slot = newSlot();
    a.slot = slot;
    byte[] region = a.regionBytes(1);
    int[] crcs = unitCrcs(region, PAGE);
    region[PAGE + 7] ^= 1; // changed while the cache was closed
    cacheFile.write(region, 0, REGION, slot.cacheOffset);
    assertTrue(slot.restore(a, 1, PAGE, new long[] {0b11}, crcs));
    Target t = new Target();
    Reader r = awaitPage(slot, a, 1, PAGE + 10, PAGE, t);
    Request request = store.next();
    assertEquals(REGION + PAGE, request.offset, "the unit that did not match is fetched again");
    assertEquals(1, origin.counter.checksumMismatches.sum());
    assertFalse(slot.hasBytesAt(0), "the region's other unverified units are dropped too");
    request.release();
    assertEquals(Slot.PageResult.FETCHED, r.get());
    assertArrayEquals(a.bytes(REGION + PAGE, PAGE), t.read(REGION + PAGE, PAGE));
  }

  @Test
  void restoreRefusesARecordThatDoesNotFitTheRegionAndLeavesTheSlotHandedOut() {
    Owner a = new Owner(1);
    Slot slot = newSlot();
    int[] crcs = new int[REGION / PAGE];
    int before = slot.generation;
    assertFalse(slot.restore(a, 1, 2 * PAGE, new long[] {1}, crcs), "another unit");
    assertFalse(slot.restore(a, 1, PAGE, new long[] {1}, new int[3]), "another length");
    assertFalse(slot.restore(a, 1, PAGE, new long[] {1, 0}, crcs), "a bitmap of another size");
    assertNull(slot.owner);
    assertEquals(before, slot.generation);
    assertTrue(slot.restore(a, 1, PAGE, new long[] {1}, crcs), "the slot is still the caller's to give");
  }

  // ---- holds, and the pool's side: free <-> handed out, eviction ----

  @Test
  void aRegionAnnouncedByWorkIsHeldAgainstEvictionUntilTheWorkSettles() {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    Values values = new Values();
    SlotPool pool = new SlotPool(REGION, REGION, REGION, PAGE, "slot test", values, cacheSpace);
    Slot slot = pool.take(a, 1, true);
    own(slot, a, 1);
    slot.offer(a, 1, a.regionBytes(1), 0);
    assertFalse(slot.isHeld(System.nanoTime()));
    ReadCost work = new ReadCost();
    List<Filler.Piece> batch = new ArrayList<>();
    try (ReadCost.Scope s = ReadCost.attach(work)) {
      slot.prefetch(a, 1, 0, REGION, origin, batch, true, false);
      slot.prefetch(a, 1, 0, REGION, origin, batch, true, false);
    }
    assertEquals(List.of(), batch, "cached: nothing to fetch");
    assertTrue(slot.isHeld(System.nanoTime()), "held all the same");
    assertTrue(slot.offerFilled(a, 1, REGION, new Target()), "readers come and go");
    assertTrue(slot.isHeld(System.nanoTime()), "held until the work settles, not until its reader comes");
    assertNull(pool.take(b, 0, true), "the only slot is held: the newcomer is not admitted");
    assertEquals(List.of(), values.valued, "skipped as held, not outvalued");
    assertEquals(0, pool.evictions.sum());
    assertEquals(List.of(), a.released);

    work.settle();
    assertFalse(slot.isHeld(System.nanoTime()), "one hold per work, released once");
    assertSame(slot, pool.take(b, 0, true), "evicted for the newcomer");
    assertEquals(1, pool.evictions.sum());
    assertEquals(List.of(1), a.released, "its owner was told");
    assertNull(slot.owner);
  }

  @Test
  void aRegionTwoWorksAnnouncedStaysHeldUntilBothSettle() {
    Owner a = new Owner(1);
    Slot slot = filled(a, 1);
    ReadCost first = new ReadCost();
    ReadCost second = new ReadCost();
    for (ReadCost work : List.of(first, second)) {
      try (ReadCost.Scope s = ReadCost.attach(work)) {
        slot.prefetch(a, 1, 0, REGION, origin, new ArrayList<>(), true, false);
      }
    }
    first.settle();
    assertTrue(slot.isHeld(System.nanoTime()), "the second work still holds it");
    second.settle();
    assertFalse(slot.isHeld(System.nanoTime()));
  }

  @Test
  void aWorkHoldFromBeforeTheSlotChangedHandsDoesNotReleaseTheNextOwnersHold() {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    Slot slot = filled(a, 1);
    ReadCost before = new ReadCost();
    try (ReadCost.Scope s = ReadCost.attach(before)) {
      slot.prefetch(a, 1, 0, REGION, origin, new ArrayList<>(), true, false);
    }
    assertTrue(slot.tryTake(a), "a holder may clear the cache: tryTake does not look at holds");
    assertFalse(slot.isHeld(System.nanoTime()), "the hold went with the region");
    own(slot, b, 1);
    slot.offer(b, 1, b.regionBytes(1), 0);
    ReadCost after = new ReadCost();
    try (ReadCost.Scope s = ReadCost.attach(after)) {
      slot.prefetch(b, 1, 0, REGION, origin, new ArrayList<>(), true, false);
    }
    before.settle();
    assertTrue(slot.isHeld(System.nanoTime()), "the old work's release is for a region the slot no longer holds");
    after.settle();
    assertFalse(slot.isHeld(System.nanoTime()));
  }

  @Test
  void aRegionAnnouncedOutsideWorkIsHeldUntilItsReaderArrivesThenForTheGrace() {
    Owner a = new Owner(1);
    Slot slot = filled(a, 1);
    slot.prefetch(a, 1, 0, REGION, origin, new ArrayList<>(), true, false);
    long announced = System.nanoTime();
    assertTrue(slot.isHeld(announced), "announced: held");
    assertTrue(slot.isHeld(announced + HOUR / 2), "no reader yet: held up to the cache's maxReadWait");
    assertFalse(slot.isHeld(announced + HOUR), "and no longer");

    long arriving = System.nanoTime();
    assertTrue(slot.offerFilled(a, 1, REGION, new Target()));
    long arrived = System.nanoTime();
    assertTrue(slot.isHeld(arriving + Slot.READ_GRACE_NANOS - 1), "its reader is in: held for the grace");
    assertFalse(slot.isHeld(arrived + Slot.READ_GRACE_NANOS), "and no longer");
  }

  /**
   * A hint finds nothing to do (no lock, no write: {@link Slot#filledAndHeld}) only where every page it names is filled
   * and the region is held for its reader already: outside any work, by a reader's grace with at least half of it
   * left; inside one, by that work's own hold.
   */
  @Test
  void aHintNeedsNothingOnlyWhereEveryPageIsFilledAndTheRegionHeldForItsReader() {
    Owner a = new Owner(1);
    Slot slot = own(newSlot(), a, 1);
    int unit = a.checksums.fillUnit(REGION);
    int filledTo = Math.max(unit, 8 * PAGE); // pages [0, filledTo) filled, the rest missing
    assertTrue(filledTo < REGION && filledTo % PAGE == 0, filledTo + " in units of " + unit);
    slot.offer(a, 1, a.regionBytes(1), 0, 0, filledTo);
    assertFalse(slot.complete);
    assertFalse(slot.filledAndHeld(a, 1, 0, PAGE, System.nanoTime()), "filled, but not held");

    slot.prefetch(a, 1, 0, PAGE, origin, new ArrayList<>(), true, false); // announced outside work: held
    long arriving = System.nanoTime();
    assertTrue(slot.offerFilled(a, 1, REGION, new Target()), "its reader arrives: held for the grace");
    long arrived = System.nanoTime();
    long now = arriving; // the grace runs to at least arriving + READ_GRACE_NANOS
    assertFalse(slot.filledAndHeld(a, 1, 0, PAGE, arrived + Slot.READ_GRACE_NANOS / 2 + 1), "less than half the grace left");
    assertTrue(slot.filledAndHeld(a, 1, 0, PAGE, now));
    assertTrue(slot.filledAndHeld(a, 1, 0, filledTo, now), "every filled page");
    assertTrue(slot.filledAndHeld(a, 1, filledTo - 1, filledTo, now), "the last filled byte");
    assertFalse(slot.filledAndHeld(a, 1, 0, filledTo + 1, now), "a missing page's first byte");
    assertFalse(slot.filledAndHeld(a, 1, filledTo - 1, filledTo + PAGE, now), "from the last filled page into a missing one");
    assertFalse(slot.filledAndHeld(a, 1, filledTo, REGION, now), "missing pages");
    assertFalse(slot.filledAndHeld(a, 2, 0, PAGE, now), "another region");
    assertFalse(slot.filledAndHeld(new Owner(2), 1, 0, PAGE, now), "another blob");

    ReadCost work = new ReadCost();
    try (ReadCost.Scope s = ReadCost.attach(work)) {
      assertFalse(slot.filledAndHeld(a, 1, 0, PAGE, now), "a reader's grace is not this work's hold");
      List<Filler.Piece> batch = new ArrayList<>();
      slot.prefetch(a, 1, 0, PAGE, origin, batch, true, false);
      assertEquals(List.of(), batch);
      assertTrue(slot.filledAndHeld(a, 1, 0, PAGE, now), "held by this work now");
    }
    work.settle();
    try (ReadCost.Scope s = ReadCost.attach(new ReadCost())) {
      assertFalse(slot.filledAndHeld(a, 1, 0, PAGE, now), "another work");
    }

    assertTrue(slot.tryTake(a));
    assertFalse(slot.filledAndHeld(a, 1, 0, PAGE, now), "the region left the slot");
  }

  @Test
  void thePoolSkipsASlotBeingFilledAndEvictsItOnceFilled() throws Exception {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    SlotPool pool = new SlotPool(REGION, REGION, REGION, PAGE, "slot test", new Values(), cacheSpace);
    Slot slot = pool.take(a, 1, true);
    own(slot, a, 1);
    Reader r = awaitPage(slot, a, 1, 100, REGION, new Target());
    Request request = store.next();
    assertNull(pool.take(b, 0, true), "being filled");
    pool.free(slot, a);
    assertTrue(slot.holds(a, 1), "not freed either");
    assertEquals(List.of(), a.released);

    request.release();
    assertEquals(Slot.PageResult.FETCHED, r.get());
    assertSame(slot, pool.take(b, 0, true));
    assertEquals(List.of(1), a.released);
  }

  @Test
  void freeToHandedOutToOwnedAndBackThroughThePool() {
    Owner a = new Owner(1);
    Owner b = new Owner(2);
    SlotPool pool = new SlotPool(REGION, REGION, REGION, PAGE, "slot test", new Values(), cacheSpace);
    Slot slot = pool.slots()[0];
    assertTrue(slot.free);
    assertSame(slot, pool.take(a, 1, true));
    assertFalse(slot.free, "handed out");
    assertNull(slot.owner);
    pool.giveBack(slot);
    assertTrue(slot.free, "given back unassigned");

    assertSame(slot, pool.take(a, 1, true));
    own(slot, a, 1);
    slot.offer(a, 1, a.regionBytes(1), 0);
    pool.free(slot, b);
    assertTrue(slot.holds(a, 1), "freed only for the owner that holds it");
    pool.free(slot, a);
    assertTrue(slot.free);
    assertNull(slot.owner);
    assertEquals(List.of(1), a.released);
    assertFalse(a.toldUnderMonitor);
    assertTrue(pool.checkInvariants());
  }
}
