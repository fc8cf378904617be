/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends a ranged read a second time when the first has not answered after {@link StorePolicy#hedgeAfter()} (for
 * example the store's 95th percentile time to first byte): the first response wins and the other request's
 * stream is closed, which cancels it. Tail latency of object stores is mostly a slow first byte, so one hedge
 * cuts it at the cost of a few percent more requests. Only fails when both requests fail.
 */
final class HedgingBlobStore extends FilterBlobStore {
  private final long hedgeAfterNanos;
  /** Reads that sent a second request. */
  final LongAdder hedged = new LongAdder();

  HedgingBlobStore(BlobStore in, Duration hedgeAfter) {
    super(in);
    this.hedgeAfterNanos = hedgeAfter.toNanos();
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    CompletableFuture<InputStream> first = StoreThreads.start(() -> in.read(blobName, offset, length));
    try {
      return StoreThreads.await(first, hedgeAfterNanos);
    } catch (TimeoutException e) {
      // no answer yet: hedge
    }
    hedged.increment();
    CompletableFuture<InputStream> second = StoreThreads.start(() -> in.read(blobName, offset, length));
    CompletableFuture<InputStream> winner = new CompletableFuture<>();
    AtomicInteger failures = new AtomicInteger();
    for (CompletableFuture<InputStream> request : List.of(first, second)) {
      request.whenComplete((stream, error) -> {
        if (error == null) {
          if (!winner.complete(stream)) {
            closeQuietly(stream); // the loser
          }
        } else if (failures.incrementAndGet() == 2) {
          winner.completeExceptionally(error);
        }
      });
    }
    try {
      return StoreThreads.await(winner, Long.MAX_VALUE); // each request has its own deadline below this layer
    } catch (TimeoutException e) {
      throw new AssertionError(e);
    } catch (IOException e) {
      StoreThreads.discardLater(winner, InputStream::close);
      throw e;
    }
  }

  private static void closeQuietly(InputStream stream) {
    try {
      stream.close();
    } catch (IOException | RuntimeException ignored) {
      // cancelling the loser
    }
  }
}
