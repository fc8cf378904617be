/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A store that misbehaves on purpose, for tests: on reads of the blobs it targets it fails requests with a
 * retryable error, cuts response streams part way with a connection reset, hangs (until closed or released), or
 * flips a byte of the response, each with its own probability, drawn from a seeded random; or fails or stalls the
 * next requests on purpose ({@link #failNext}, {@link #stallNext}), for a test whose verdict must not rest on chance or
 * timing. It counts what it did, and the requests and streams in flight.
 */
public final class FaultInjectingBlobStore extends FilterBlobStore {
  private final Random random;
  private volatile Predicate<String> targets = name -> true;
  private volatile double failRate;
  private volatile double cutRate;
  private volatile double hangRate;
  private volatile double flipRate;
  private volatile double stallRate;
  private volatile CountDownLatch hangUntil = new CountDownLatch(1);
  private final AtomicInteger failsToCome = new AtomicInteger();
  private final AtomicInteger stallsToCome = new AtomicInteger();

  public final AtomicLong reads = new AtomicLong();
  public final AtomicLong failures = new AtomicLong();
  public final AtomicLong cuts = new AtomicLong();
  public final AtomicLong hangs = new AtomicLong();
  /** Requests that never answered (their read call blocked). */
  public final AtomicLong stalls = new AtomicLong();
  /** Responses of which a byte was flipped. */
  public final AtomicLong flips = new AtomicLong();
  /** Read calls that have not returned yet (a stalled one, for one, until {@link #heal}). */
  public final AtomicInteger pendingCalls = new AtomicInteger();
  /**
   * Streams opened and not closed yet. A stream counts until its close has closed the stream below it too, so once
   * this is 0 (and no call is pending) no stream of this store holds a file.
   */
  public final AtomicInteger openStreams = new AtomicInteger();
  public final AtomicInteger maxOpenStreams = new AtomicInteger();
  /** Streams opened in all. */
  public final AtomicLong streamsOpened = new AtomicLong();
  /**
   * Requests in flight as a request limit sees them: from the call until it fails, or its stream is read to the end
   * or closed.
   */
  public final AtomicInteger requestsInFlight = new AtomicInteger();
  public final AtomicInteger maxRequestsInFlight = new AtomicInteger();

  public FaultInjectingBlobStore(BlobStore in, long seed) {
    super(in);
    this.random = new Random(seed);
  }

  /** Which blobs the faults apply to (all by default). */
  public FaultInjectingBlobStore targets(Predicate<String> blobs) {
    this.targets = blobs;
    return this;
  }

  public FaultInjectingBlobStore failRate(double p) {
    this.failRate = p;
    return this;
  }

  public FaultInjectingBlobStore cutRate(double p) {
    this.cutRate = p;
    return this;
  }

  public FaultInjectingBlobStore hangRate(double p) {
    this.hangRate = p;
    return this;
  }

  /** Requests whose read call itself blocks (no response at all) until {@link #heal}. */
  public FaultInjectingBlobStore stallRate(double p) {
    this.stallRate = p;
    return this;
  }

  /** The next {@code n} requests for targeted blobs fail with a retryable error, whatever the rates. */
  public FaultInjectingBlobStore failNext(int n) {
    failsToCome.set(n);
    return this;
  }

  /** The next {@code n} requests for targeted blobs stall until {@link #heal}, whatever the rates. */
  public FaultInjectingBlobStore stallNext(int n) {
    stallsToCome.set(n);
    return this;
  }

  public FaultInjectingBlobStore flipRate(double p) {
    this.flipRate = p;
    return this;
  }

  /** No more faults; hung streams are released. */
  public void heal() {
    failRate = cutRate = hangRate = flipRate = stallRate = 0;
    failsToCome.set(0);
    stallsToCome.set(0);
    hangUntil.countDown();
  }

  /** Hung requests from now on block until closed or {@link #heal}. */
  public void rearmHangs() {
    hangUntil = new CountDownLatch(1);
  }

  private double next() {
    synchronized (random) {
      return random.nextDouble();
    }
  }

  private int nextInt(int bound) {
    synchronized (random) {
      return random.nextInt(bound);
    }
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    return faulty(blobName, -1, () -> super.read(blobName));
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    return faulty(blobName, length, () -> super.read(blobName, offset, length));
  }

  private interface Open {
    InputStream open() throws IOException;
  }

  /** Takes one of the faults placed on purpose, if any is left. */
  private static boolean takeOne(AtomicInteger toCome) {
    return toCome.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  private InputStream faulty(String blobName, long length, Open open) throws IOException {
    reads.incrementAndGet();
    pendingCalls.incrementAndGet();
    maxRequestsInFlight.accumulateAndGet(requestsInFlight.incrementAndGet(), Math::max);
    boolean answered = false;
    try {
      InputStream stream = faultyCall(blobName, length, open);
      answered = true;
      return stream;
    } finally {
      if (!answered) {
        requestsInFlight.decrementAndGet();
      }
      pendingCalls.decrementAndGet();
    }
  }

  private InputStream faultyCall(String blobName, long length, Open open) throws IOException {
    if (!targets.test(blobName)) {
      return tracked(open.open(), -1, -1, false);
    }
    if (takeOne(failsToCome) || next() < failRate) {
      failures.incrementAndGet();
      throw new BlobStoreException(describe(), blobName, "injected failure (like an HTTP 503)", null, true);
    }
    if (takeOne(stallsToCome) || next() < stallRate) {
      stalls.incrementAndGet();
      CountDownLatch latch = hangUntil;
      try {
        latch.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException();
      }
    }
    boolean hang = next() < hangRate;
    long cutAt = -1;
    if (!hang && length > 1 && next() < cutRate) {
      cutAt = nextInt((int) Math.min(Integer.MAX_VALUE, length - 1));
      cuts.incrementAndGet();
    }
    long flipAt = -1;
    if (!hang && cutAt < 0 && length > 0 && next() < flipRate) {
      flipAt = nextInt((int) Math.min(Integer.MAX_VALUE, length));
      flips.incrementAndGet();
    }
    if (hang) {
      hangs.incrementAndGet();
    }
    return tracked(open.open(), cutAt, flipAt, hang);
  }

  private InputStream tracked(InputStream stream, long cutAt, long flipAt, boolean hang) {
    int open = openStreams.incrementAndGet();
    maxOpenStreams.accumulateAndGet(open, Math::max);
    streamsOpened.incrementAndGet();
    CountDownLatch latch = hangUntil;
    return new FilterBlobInputStream(stream) {
      private long position;
      private final AtomicBoolean closing = new AtomicBoolean();
      private final AtomicBoolean answered = new AtomicBoolean();
      private volatile boolean closed;

      /** The request is over (read to its end, or closed): no longer in flight. */
      private void answered() {
        if (answered.compareAndSet(false, true)) {
          requestsInFlight.decrementAndGet();
        }
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (hang) {
          try {
            while (!closed && !latch.await(10, TimeUnit.MILLISECONDS)) {
              // a server that stopped answering
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
          }
          if (closed) {
            throw new SocketException("injected hang: the stream was closed while blocked");
          }
        }
        if (cutAt >= 0 && position >= cutAt) {
          throw new SocketException("injected connection reset after " + position + " bytes");
        }
        int want = cutAt >= 0 ? (int) Math.min(len, cutAt - position) : len;
        int n = in.read(b, off, Math.max(1, want));
        if (n > 0 && flipAt >= position && flipAt < position + n) {
          b[off + (int) (flipAt - position)] ^= (byte) 0x5A;
        }
        if (n > 0) {
          position += n;
        } else if (n < 0) {
          answered();
        }
        return n;
      }

      @Override
      public void close() throws IOException {
        if (!closing.compareAndSet(false, true)) {
          return;
        }
        // in this order, so that whoever sees the stream closed (a read blocked in a hang) or the count drop sees
        // the stream below closed as well
        try {
          super.close();
        } finally {
          answered();
          openStreams.decrementAndGet();
          closed = true;
        }
      }
    };
  }
}
