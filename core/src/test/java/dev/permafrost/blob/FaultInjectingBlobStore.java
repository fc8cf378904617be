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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A store that misbehaves on purpose, for tests: on reads of the blobs it targets it fails requests with a
 * retryable error, cuts response streams part way with a connection reset, hangs (until closed or released), or
 * flips a byte of the response, each with its own probability, drawn from a seeded random. It counts what it did,
 * and the requests and streams in flight.
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

  public final AtomicLong reads = new AtomicLong();
  public final AtomicLong failures = new AtomicLong();
  public final AtomicLong cuts = new AtomicLong();
  public final AtomicLong hangs = new AtomicLong();
  /** Requests that never answered (their read call blocked). */
  public final AtomicLong stalls = new AtomicLong();
  /** Responses of which a byte was flipped. */
  public final AtomicLong flips = new AtomicLong();
  /** Streams opened and not closed yet. */
  public final AtomicInteger openStreams = new AtomicInteger();
  public final AtomicInteger maxOpenStreams = new AtomicInteger();

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

  public FaultInjectingBlobStore flipRate(double p) {
    this.flipRate = p;
    return this;
  }

  /** No more faults; hung streams are released. */
  public void heal() {
    failRate = cutRate = hangRate = flipRate = stallRate = 0;
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

  private InputStream faulty(String blobName, long length, Open open) throws IOException {
    reads.incrementAndGet();
    if (!targets.test(blobName)) {
      return tracked(open.open(), -1, -1, false);
    }
    if (next() < failRate) {
      failures.incrementAndGet();
      throw new BlobStoreException(describe(), blobName, "injected failure (like an HTTP 503)", null, true);
    }
    if (next() < stallRate) {
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
    CountDownLatch latch = hangUntil;
    return new FilterBlobInputStream(stream) {
      private long position;
      private volatile boolean closed;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (hang) {
          try {
            while (!closed && !latch.await(10, java.util.concurrent.TimeUnit.MILLISECONDS)) {
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
        }
        return n;
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          openStreams.decrementAndGet();
        }
        super.close();
      }
    };
  }
}
