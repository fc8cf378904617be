/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLException;
import org.apache.lucene.index.CorruptIndexException;

/**
 * Retries what may pass: failures that are {@linkplain BlobStoreException#isRetryable() retryable} or are plain
 * network errors (reset or refused connections, socket time-outs, responses cut short), with exponential back-off
 * and full jitter, at most {@link StorePolicy#maxRetries()} times and only while the call has run less than
 * {@link StorePolicy#retryTimeLimit()}. A read stream that breaks part way resumes where it stopped, with a new
 * ranged request for the rest. Writes are retried only when their data can be replayed ({@code mark/reset}).
 * Giving up reports the last failure, with the attempts and the time they took.
 *
 * <p>Retries draw from the store's {@link RetryBudget} ({@link StorePolicy#retryBudget()} tokens, refilled by calls
 * that succeed): once it is spent, a call fails at its first failure with an error saying since when the store has
 * been failing, so that a broken store costs each read one attempt, not the whole back-off schedule.
 */
final class RetryingBlobStore extends FilterBlobStore {
  private final PolicySettings policy;
  /** Attempts after the first, over the store's life. */
  final LongAdder retries = new LongAdder();
  /** Null when the policy has no budget. */
  private final RetryBudget budget;

  RetryingBlobStore(BlobStore in, PolicySettings policy) {
    super(in);
    this.policy = policy;
    this.budget = policy.retryBudget() > 0 ? new RetryBudget(in.describe(), policy.retryBudget()) : null;
  }

  PolicySettings policy() {
    return policy;
  }

  StoreHealth health() {
    if (budget == null) {
      return new StoreHealth(retries.sum(), 0, 0, 0, null);
    }
    return new StoreHealth(retries.sum(), budget.refused(), budget.tokens(), budget.capacity(), budget.failingSince());
  }

  /** Whether {@code e} may pass if the request is sent again. */
  static boolean isRetryable(Throwable e) {
    if (e instanceof BlobStoreException b) {
      return b.isRetryable();
    }
    if (e instanceof CorruptIndexException) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SocketException || t instanceof SocketTimeoutException || t instanceof EOFException
          || t instanceof SSLException) {
        return true;
      }
      if (t instanceof InterruptedIOException) {
        return false;
      }
    }
    return false;
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    Call call = new Call("reading " + BlobStoreException.range(offset, length) + " of blob " + blobName, blobName);
    InputStream first = call.attempt(() -> in.read(blobName, offset, length));
    return new ResumingStream(call, blobName, offset, length, first);
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    Call call = new Call("reading blob " + blobName, blobName);
    InputStream first = call.attempt(() -> in.read(blobName));
    return new ResumingStream(call, blobName, 0, -1, first);
  }

  @Override
  public void write(String blobName, InputStream data, long length) throws IOException {
    if (!data.markSupported()) {
      in.write(blobName, data, length);
      return;
    }
    data.mark(Integer.MAX_VALUE);
    Call call = new Call("writing blob " + blobName, blobName);
    boolean[] firstAttempt = {true};
    call.run(() -> {
      if (!firstAttempt[0]) {
        data.reset();
      }
      firstAttempt[0] = false;
      in.write(blobName, data, length);
      return null;
    });
  }

  @Override
  public List<BlobMetadata> list(String prefix) throws IOException {
    return new Call("listing prefix '" + prefix + "'", null).run(() -> in.list(prefix));
  }

  @Override
  public long length(String blobName) throws IOException {
    return new Call("asking for the length of blob " + blobName, blobName).run(() -> in.length(blobName));
  }

  @Override
  public boolean exists(String blobName) throws IOException {
    return new Call("checking whether blob " + blobName + " exists", blobName).run(() -> in.exists(blobName));
  }

  @Override
  public void delete(String blobName) throws IOException {
    new Call("deleting blob " + blobName, blobName).run(() -> {
      in.delete(blobName);
      return null;
    });
  }

  @Override
  public void deleteAll(Collection<String> blobNames) throws IOException {
    new Call("deleting " + blobNames.size() + " blobs", null).run(() -> {
      in.deleteAll(blobNames);
      return null;
    });
  }

  /** One logical call and its attempts: decides whether, and when, to try again. */
  private final class Call {
    private final String what;
    private final String blobName;
    private final long start = System.nanoTime();
    private int attempts = 1;
    private Exception firstFailure;

    Call(String what, String blobName) {
      this.what = what;
      this.blobName = blobName;
    }

    /** Runs {@code op} until it succeeds or may not be tried again; a call that is done succeeds here. */
    <T> T run(StoreThreads.IoCall<T> op) throws IOException {
      T result = attempt(op);
      succeeded();
      return result;
    }

    /** Like {@link #run} for a call that goes on after {@code op} (a read, until its stream ends). */
    <T> T attempt(StoreThreads.IoCall<T> op) throws IOException {
      for (;;) {
        try {
          return op.call();
        } catch (IOException e) {
          failed(e);
        }
      }
    }

    /** The call is done and succeeded: it gives a token back to the budget. */
    void succeeded() {
      if (budget != null) {
        budget.succeeded();
      }
    }

    /** Returns after the back-off if {@code e} is worth another attempt; otherwise throws what to report. */
    void failed(IOException e) throws IOException {
      if (!isRetryable(e)) {
        if (firstFailure != null && firstFailure != e) {
          e.addSuppressed(firstFailure);
        }
        throw e;
      }
      if (firstFailure == null) {
        firstFailure = e;
      }
      long elapsed = System.nanoTime() - start;
      long delay = backoffNanos(attempts);
      if (attempts > policy.maxRetries() || elapsed + delay > policy.retryTimeLimit().toNanos()) {
        throw giveUp(e, elapsed);
      }
      if (budget != null && !budget.tryRetry(e instanceof BlobStoreTimeoutException)) {
        Instant since = budget.failingSince();
        throw report(e, " (not retried: " + in.describe() + " has been failing since " + (since == null ? "just now" : since)
            + ", and its retry budget (" + policy.explainRetryBudget() + ") is spent; calls"
            + " fail at their first failure until requests succeed again)");
      }
      StoreThreads.sleepNanos(delay, "waiting to retry " + what);
      attempts++;
      retries.increment();
    }

    private long backoffNanos(int attempt) {
      long base = policy.retryDelay().toNanos();
      long cap = policy.retryMaxDelay().toNanos();
      long ceiling = attempt >= 62 ? cap : Math.min(cap, base << Math.min(attempt - 1, 30));
      return ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1); // exponential, jittered
    }

    private IOException giveUp(IOException last, long elapsedNanos) {
      if (attempts == 1) {
        return last;
      }
      String note = " (gave up after " + attempts + " attempts in " + Durations.formatNanos(elapsedNanos) + "; "
          + policy.explainRetryLimits() + ")";
      return report(last, note);
    }

    /** {@code last}, of the same kind, with {@code note} added to its message. */
    private IOException report(IOException last, String note) {
      IOException report;
      if (last instanceof BlobStoreTimeoutException t) {
        report = new BlobStoreTimeoutException(t.store(), t.blobName(), t.detail() + note, t);
      } else if (last instanceof BlobStoreException b) {
        report = new BlobStoreException(b.store(), b.blobName(), b.detail() + note, b, b.isRetryable());
      } else {
        report = new BlobStoreException(in.describe(), blobName, what + " failed: " + last + note, last, true);
      }
      if (firstFailure != null && firstFailure != last) {
        report.addSuppressed(firstFailure);
      }
      return report;
    }
  }

  /**
   * A response stream that, when it breaks or ends short, asks for the rest of its range again (within its
   * call's retry budget) and carries on, so the reader sees one unbroken stream.
   */
  private final class ResumingStream extends FilterBlobInputStream {
    private final Call call;
    private final String blobName;
    private final long offset;
    /** The requested length, or -1 for a whole blob. */
    private long length;
    private long delivered;
    private boolean ended;
    /** Set by {@link #close()}, maybe from another thread to abort a read: a closed stream never resumes. */
    private volatile boolean closed;

    ResumingStream(Call call, String blobName, long offset, long length, InputStream first) {
      super(first);
      this.call = call;
      this.blobName = blobName;
      this.offset = offset;
      this.length = length;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (ended || (length >= 0 && delivered >= length)) {
        return -1;
      }
      for (;;) {
        IOException failure;
        try {
          int want = length < 0 ? len : (int) Math.min(len, length - delivered);
          int n = in.read(b, off, want);
          if (n > 0) {
            delivered += n;
            if (delivered == length) {
              call.succeeded();
            }
            return n;
          }
          if (n < 0 && length < 0) {
            ended = true;
            call.succeeded();
            return -1;
          }
          if (n == 0) {
            continue;
          }
          failure = new BlobStoreException(store().describe(), blobName, "the response to " + call.what + " ended after "
              + delivered + " of " + length + " bytes", null, true);
        } catch (IOException e) {
          failure = e;
        }
        closeQuietly(in);
        if (closed) {
          throw new IOException(call.what + " was aborted: its stream was closed after " + delivered + " bytes", failure);
        }
        call.failed(failure); // throws when giving up
        in = call.attempt(this::reopen);
        if (closed) {
          closeQuietly(in);
          throw new IOException(call.what + " was aborted: its stream was closed after " + delivered + " bytes");
        }
      }
    }

    @Override
    public void close() throws IOException {
      closed = true;
      super.close();
    }

    /** The store this stream's requests go to ({@code in} is the current response). */
    private BlobStore store() {
      return RetryingBlobStore.this.in;
    }

    private InputStream reopen() throws IOException {
      if (length < 0 && delivered == 0) {
        return store().read(blobName);
      }
      if (length < 0) {
        length = store().length(blobName); // a whole blob broke part way: ask for the rest by range
      }
      return store().read(blobName, offset + delivered, length - delivered);
    }

    private void closeQuietly(InputStream s) {
      try {
        s.close();
      } catch (IOException | RuntimeException ignored) {
        // replaced by a new request
      }
    }
  }
}
