/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.Durations;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the reads of one piece of work (a search, or one index of it) cost the store, counted for it alone even while
 * other work reads through the same cache: the store requests its reads made (fetches into the cache, reads directly
 * from the store, chunk tables), the bytes those requests asked for, the bytes served from the cache, the time its
 * readers waited for the store, and the waves of dependent requests on its critical path.
 *
 * <p>Attach one to the threads that do the work ({@link #attach}); work that Lucene hands to an executor does not
 * carry it. A request counts for the work whose thread asked for it, when it asked (a prefetch that is sent later
 * counts at once; one called off before it was sent no longer counts), with the whole range it asks for; others that
 * wait for the same fetch count only their wait. A cost can have a parent (the search a per-index cost belongs to):
 * everything counted also counts there. Bytes served from the cache count for the work of the thread that opened,
 * cloned or sliced the input that served them (Lucene makes them per query).
 *
 * <p>A cost is for one piece of work: until it {@linkplain #settle settles}, it keeps the inputs made for it and
 * where each of its requests' bytes are. Attach a new one to each search or task, not one for the life of a program.
 *
 * <p><b>Waves</b> are counted by dependency, not by the clock: a thread of the work has read up to some wave (0 at
 * first); a request it asks for is one wave deeper, and reading the bytes a request of this work brought takes the
 * thread to that request's wave. So a cold {@code DirectoryReader.open} that reads the commit, then every file's
 * header at once, is two waves however fast or busy the machine is. {@link #clockWaves()} counts the other way, as
 * the clock saw them (a request's wave is one more than the deepest of this work's requests completed when it was
 * sent): that one also counts a busy CPU's turn-taking, which makes independent requests follow each other.
 */
public final class ReadCost {
  private static final ThreadLocal<Reading> CURRENT = new ThreadLocal<>();
  /**
   * How many scopes with a cost are open, on all threads: while none is, no thread reads for a cost, and
   * {@link #current} looks nothing up (an input made outside any work, by an application that reads its
   * {@code BlobDirectory} as a plain directory, pays no thread-local lookup per clone). A thread that attached a
   * cost sees its own count.
   */
  private static final AtomicInteger ATTACHED = new AtomicInteger();

  private static final AtomicLong IDS = new AtomicLong();

  /** This work's number, unique in the process and never 0: what the cache notes of it without keeping it. */
  final long id = IDS.incrementAndGet();
  private final ReadCost parent;
  /** The outermost cost: it keeps what every request of the work brought ({@link #fetched}). */
  private final ReadCost root;
  private final LongAdder requests = new LongAdder();
  private final LongAdder bytesFetched = new LongAdder();
  private final LongAdder bytesFromCache = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  /** The deepest wave of this work's requests, by dependency. */
  private final AtomicInteger waves = new AtomicInteger();
  /** The deepest wave whose bytes this work's threads read. */
  private final AtomicInteger readDepth = new AtomicInteger();
  /** The deepest wave among this work's completed requests, by the clock. */
  private final AtomicInteger completed = new AtomicInteger();
  private final AtomicInteger clockWaves = new AtomicInteger();
  /**
   * For the root only: which bytes of which blob this work's requests asked for, and in which wave, so that a thread
   * reading them moves to that wave ({@link Reading#read}). Null until the first request.
   */
  private volatile Map<Object, FetchedRanges> fetched;
  /**
   * The last input made for this work, linked to the ones before it through {@link Input#nextTracked} (no
   * allocation per input): the bytes they served from the cache and have not reported yet count too.
   */
  private volatile Input tracked;
  /** What this work holds until it settles (the heap of its reads directly from the store). */
  private final Queue<Held> held = new ConcurrentLinkedQueue<>();
  /** The costs whose counts count in this one: their inputs' unreported bytes count here too. */
  private final Queue<ReadCost> children = new ConcurrentLinkedQueue<>();

  private static final VarHandle FETCHED;

  static {
    try {
      FETCHED = MethodHandles.lookup().findVarHandle(ReadCost.class, "fetched", Map.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** A cost of its own. */
  public ReadCost() {
    this(null);
  }

  private ReadCost(ReadCost parent) {
    this.parent = parent;
    this.root = parent == null ? this : parent.root;
  }

  /** A cost whose counts also count in this one (an index's, of a search). */
  public ReadCost child() {
    ReadCost child = new ReadCost(this);
    children.add(child);
    return child;
  }

  /** Restores the cost that was attached before. */
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Counts the current thread's reads in {@code cost} (null: in none) until the scope is closed, as work that follows
   * from everything {@code cost} has read so far ({@link #readDepth()}): its first request is one wave deeper.
   */
  public static Scope attach(ReadCost cost) {
    return attach(cost, cost == null ? 0 : cost.readDepth());
  }

  /**
   * Counts the current thread's reads in {@code cost} (null: in none) until the scope is closed, as work that follows
   * from reads of wave {@code readDepth}: its first request is in wave {@code readDepth + 1}. A search's tasks that
   * start together start from the same depth, whatever runs first; a task that starts once others are done (the
   * next indices of a sorted search, the fetch of the winners' fields) starts from the depth they reached.
   */
  public static Scope attach(ReadCost cost, int readDepth) {
    if (readDepth < 0) {
      throw new IllegalArgumentException("readDepth must be >= 0: " + readDepth);
    }
    Reading outer = reading();
    if (outer != null) {
      outer.attached = false; // until this scope closes
    }
    if (cost != null) {
      ATTACHED.incrementAndGet(); // before the thread reads for it: see ATTACHED
    }
    Reading mine = cost == null ? null : new Reading(cost, readDepth);
    CURRENT.set(mine);
    return () -> {
      if (mine != null) {
        mine.attached = false;
      }
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer); // counted by its own scope, still open
        outer.attached = true;
      }
      if (cost != null) {
        ATTACHED.decrementAndGet();
      }
    };
  }

  /** The current thread's cost, or null. */
  static ReadCost current() {
    Reading r = reading();
    return r == null ? null : r.cost;
  }

  /** What the current thread reads for, or null. */
  static Reading reading() {
    return ATTACHED.get() == 0 ? null : CURRENT.get();
  }

  /**
   * What the current thread reads for, or null: {@code known} (a reading some thread had, such as the one an input
   * was made under) if it is this thread's current one, which takes no thread-local lookup; else looked up. An input
   * cloned on the thread and in the work its parent was made in (most of a query's clones and slices) so costs a
   * field read.
   */
  static Reading reading(Reading known) {
    if (known != null && known.isCurrent()) {
      assert known == CURRENT.get() : "a thread's one attached reading is its current one";
      return known;
    }
    return reading();
  }

  /**
   * A thread's reading for a piece of work: the cost, and the deepest wave of the work's requests whose bytes the
   * thread has read. Confined to its thread.
   */
  static final class Reading {
    final ReadCost cost;
    /** The thread's id: a reading is only ever read by its own thread, which {@link #isCurrent} checks first. */
    private final long threadId = Thread.currentThread().threadId();
    /** Whether this is its thread's current reading: its scope is open and no inner scope shadows it. */
    private boolean attached = true;
    int depth;
    /** The stretch of the blob around the last position {@link #read} was asked about with one wave (or none). */
    long stretchStart;
    long stretchEnd;

    private Reading(ReadCost cost, int depth) {
      this.cost = cost;
      this.depth = depth;
    }

    /** Whether this is the current thread's current reading (see {@link ReadCost#reading(Reading)}). */
    boolean isCurrent() {
      return threadId == Thread.currentThread().threadId() && attached;
    }

    /** The wave of a request this thread asks for now. */
    int nextWave() {
      return depth + 1;
    }

    /**
     * The thread reads position {@code p} of {@code blob}: if a request of this work brought it, the thread is now at
     * least at that request's wave. Returns false if this work asked for nothing of the blob (nothing to clip);
     * else sets [{@link #stretchStart}, {@link #stretchEnd}) to the stretch around {@code p} that one request brought
     * (or that none did): a window over more than that would let the thread read bytes of another wave unseen.
     */
    boolean read(Object blob, long p) {
      Map<Object, FetchedRanges> all = cost.root.fetched;
      FetchedRanges ranges = all == null ? null : all.get(blob);
      if (ranges == null) {
        return false;
      }
      int wave = ranges.find(p, this);
      if (wave > depth) {
        depth = wave;
        for (ReadCost c = cost; c != null; c = c.parent) {
          c.readDepth.accumulateAndGet(wave, Math::max);
        }
      }
      return true;
    }

    /** Whether a request of this work brought (or is bringing) position {@code p} of {@code blob}; nothing changes. */
    boolean fetchedAt(Object blob, long p) {
      Map<Object, FetchedRanges> all = cost.root.fetched;
      FetchedRanges ranges = all == null ? null : all.get(blob);
      return ranges != null && ranges.waveAt(p) > 0;
    }

    /** Whether this work asked the store for bytes of {@code blob}. */
    boolean fetched(Object blob) {
      Map<Object, FetchedRanges> all = cost.root.fetched;
      return all != null && all.containsKey(blob);
    }
  }

  /** The ranges of one blob that a work's requests asked for, each with its wave; a later request's range wins. */
  private static final class FetchedRanges {
    /** By start: {end, wave}. Guarded by this. */
    private final TreeMap<Long, long[]> ranges = new TreeMap<>();

    synchronized void add(long from, long to, int wave) {
      Map.Entry<Long, long[]> before = ranges.lowerEntry(from);
      if (before != null && before.getValue()[0] > from) {
        long[] cut = before.getValue();
        if (cut[0] > to) {
          ranges.put(to, new long[] {cut[0], cut[1]});
        }
        cut[0] = from;
      }
      for (Map.Entry<Long, long[]> e = ranges.ceilingEntry(from); e != null && e.getKey() < to;
          e = ranges.ceilingEntry(from)) {
        ranges.remove(e.getKey());
        if (e.getValue()[0] > to) {
          ranges.put(to, e.getValue());
          break;
        }
      }
      ranges.put(from, new long[] {to, wave});
    }

    /** The wave of the request whose range holds {@code p}, or 0. */
    synchronized int waveAt(long p) {
      Map.Entry<Long, long[]> at = ranges.floorEntry(p);
      return at != null && at.getValue()[0] > p ? (int) at.getValue()[1] : 0;
    }

    /** The wave of the request whose range holds {@code p} (0 if none), with the stretch set on {@code reading}. */
    synchronized int find(long p, Reading reading) {
      Map.Entry<Long, long[]> at = ranges.floorEntry(p);
      if (at != null && at.getValue()[0] > p) {
        reading.stretchStart = at.getKey();
        reading.stretchEnd = at.getValue()[0];
        return (int) at.getValue()[1];
      }
      Long next = ranges.higherKey(p);
      reading.stretchStart = at == null ? 0 : at.getValue()[0];
      reading.stretchEnd = next == null ? Long.MAX_VALUE : next;
      return 0;
    }
  }

  /**
   * An input whose bytes served from the cache count for a cost: it reports them as it leaves each window, and the
   * cost adds what it holds in its current one. Inputs are linked through themselves, so tracking allocates nothing.
   */
  interface Input {
    /** Bytes served from the cache in the current window and not yet reported (read racily). */
    long servedFromCacheNotReported();

    /** The input tracked by the same cost before this one, or null. */
    Input nextTracked();

    void nextTracked(Input next);
  }

  // ---- counting, by the store package ----

  /**
   * One request asked for by this work: counted (with its bytes, in this cost and its parents) when it is made, in
   * wave {@link #wave}; {@link #sent} and {@link #end} place it on the clock; {@link #calledOff} takes it back if it
   * was never sent.
   */
  final class Request {
    final int wave;
    private final long bytes;
    private final Object blob;
    /** Its wave by the clock in this cost and in each parent, from when it was sent. */
    private int[] clockWaves;
    private boolean sent;
    private boolean ended;

    private Request(int wave, long bytes, Object blob, long from, long to) {
      this.wave = wave;
      this.bytes = bytes;
      this.blob = blob;
      for (ReadCost c = ReadCost.this; c != null; c = c.parent) {
        c.requests.increment();
        c.bytesFetched.add(bytes);
        c.waves.accumulateAndGet(wave, Math::max);
      }
      if (blob != null) {
        root.rangesOf(blob).add(from, to, wave);
      }
    }

    /** The request is being sent now: its clock wave, in this cost and each parent, counts from here. */
    synchronized void sent() {
      if (!sent) {
        sent = true;
        int levels = 0;
        for (ReadCost c = ReadCost.this; c != null; c = c.parent) {
          levels++;
        }
        clockWaves = new int[levels];
        int i = 0;
        for (ReadCost c = ReadCost.this; c != null; c = c.parent, i++) {
          clockWaves[i] = c.completed.get() + 1;
          c.clockWaves.accumulateAndGet(clockWaves[i], Math::max);
        }
      }
    }

    /** The request's response was read (or abandoned): later requests are a wave deeper by the clock. */
    synchronized void end() {
      if (sent && !ended) {
        ended = true;
        int i = 0;
        for (ReadCost c = ReadCost.this; c != null && clockWaves != null; c = c.parent, i++) {
          c.completed.accumulateAndGet(clockWaves[i], Math::max);
        }
      }
    }

    /** The request was called off before it was sent: it no longer counts. */
    synchronized void calledOff() {
      if (!sent) {
        sent = true;
        ended = true;
        for (ReadCost c = ReadCost.this; c != null; c = c.parent) {
          c.requests.decrement();
          c.bytesFetched.add(-bytes);
        }
      }
    }

    /**
     * A request that follows this one's response (a piece of it that did not match its checksum, asked again): one wave
     * deeper, counted now.
     */
    Request again(long from, long to) {
      return new Request(wave + 1, to - from, blob, from, to);
    }
  }

  /**
   * Counts a request of this work for [from, to) of {@code blob} (null: bytes no reader reads, such as a chunk
   * table), of {@code bytes} bytes, in wave {@code wave}.
   */
  Request request(int wave, long bytes, Object blob, long from, long to) {
    assert wave >= 1 : wave;
    return new Request(wave, bytes, blob, from, to);
  }

  private FetchedRanges rangesOf(Object blob) {
    assert root == this;
    Map<Object, FetchedRanges> all = fetched;
    if (all == null) {
      FETCHED.compareAndSet(this, null, new ConcurrentHashMap<>());
      all = fetched;
    }
    return all.computeIfAbsent(blob, k -> new FetchedRanges());
  }

  /**
   * Whether this work has asked the store for bytes (for its inputs: whether their windows must be looked up against
   * its requests, see {@link Reading#read}). A volatile read.
   */
  boolean asksForBytes() {
    return root.fetched != null;
  }

  void fromCache(long bytes) {
    for (ReadCost c = this; c != null; c = c.parent) {
      c.bytesFromCache.add(bytes);
    }
  }

  /** {@code input} reads for this work (it was opened, cloned or sliced on a thread attached to it). */
  void track(Input input) {
    assert input.nextTracked() == null;
    // a monitor, not a compare-and-set through a VarHandle: this runs in every clone's constructor, deep in Lucene's
    // calls, where the JIT may stop inlining before the VarHandle's own chain and leave it to run as a LambdaForm
    // (seen: 1 fork in 4 of the warm needle 1.3x slower, 6% of it in that call)
    synchronized (trackLock) {
      input.nextTracked(tracked); // published by the volatile write below
      tracked = input;
    }
  }

  /** Guards additions to and the taking of {@link #tracked} (read without it). */
  private final Object trackLock = new Object();

  /** Something a piece of work holds until it is done (a column read directly from the store holds heap). */
  interface Held {
    /** The work is done: let go. Called once by {@link #settle}; must not fail. */
    void release();
  }

  /** {@code h} was taken for this work: it is released when the work settles. */
  void releaseWhenSettled(Held h) {
    held.add(h);
  }

  /**
   * Counts now what this work's inputs served from the cache and have not reported yet, and stops tracking them: for
   * work that is done (an index's part of a search, as its task ends, on the thread that just read through them), so
   * that reading the counts later walks no inputs gone cold. The columns this work read directly from the store
   * ({@code ColumnPrefetch}) give their heap back to the cache's scan budget now, not when the garbage collector
   * finds them unreferenced: the next search has the whole budget. Call it once the work is done: an input it tracked
   * that other work reads later (a reader this work opened) may count its last window here twice, and reads it from
   * the cache rather than from the released column.
   */
  public void settle() {
    for (Held h; (h = held.poll()) != null; ) {
      h.release();
    }
    if (root == this) {
      fetched = null; // where the work's requests' bytes were, kept to count its waves: done with
    }
    long pending = 0;
    Input in;
    synchronized (trackLock) {
      in = tracked;
      tracked = null;
    }
    while (in != null) {
      pending += in.servedFromCacheNotReported();
      Input next = in.nextTracked();
      in.nextTracked(null); // a reader's input outlives the work: it does not keep the work's other inputs alive
      in = next;
    }
    if (pending != 0) {
      fromCache(pending);
    }
  }

  void waited(long nanos) {
    for (ReadCost c = this; c != null; c = c.parent) {
      c.waitNanos.add(nanos);
    }
  }

  // ---- reading ----

  /** Store requests this work asked for (less those called off before they were sent). */
  public long requests() {
    return requests.sum();
  }

  /** The bytes those requests asked for (a request cut short, as when it is called off part way, counts whole). */
  public long bytesFetched() {
    return bytesFetched.sum();
  }

  /**
   * Bytes served from the cache to this work's inputs: those reported as they left a window, plus what each input
   * holds in its current one. Exact once the work is done; while inputs are read, a snapshot.
   */
  public long bytesFromCache() {
    return bytesFromCache.sum() + notReported();
  }

  /** What this work's inputs, and its children's, served from the cache and have not reported yet. */
  private long notReported() {
    long pending = 0;
    for (Input in = tracked; in != null; in = in.nextTracked()) {
      pending += in.servedFromCacheNotReported();
    }
    for (ReadCost child : children) {
      pending += child.notReported();
    }
    return pending;
  }

  /** Time this work's readers spent waiting for the store, summed over its threads. */
  public long waitNanos() {
    return waitNanos.sum();
  }

  /**
   * Waves of dependent requests on this work's critical path, by dependency (see the class description): the same on
   * any machine for the same reads.
   */
  public int waves() {
    return waves.get();
  }

  /** The deepest wave of this work's requests whose bytes its threads have read. */
  public int readDepth() {
    return readDepth.get();
  }

  /**
   * Waves as the clock saw them: a request's wave is one more than the deepest of this work's requests completed when
   * it was sent. At least {@link #waves()}, more where the CPU made independent requests wait for each other.
   */
  public int clockWaves() {
    return clockWaves.get();
  }

  @Override
  public String toString() {
    return requests() + " requests in " + waves() + " waves (" + clockWaves() + " by the clock), " + bytesFetched()
        + " bytes fetched, " + bytesFromCache() + " from the cache, " + Durations.formatNanos(waitNanos()) + " waiting";
  }
}
