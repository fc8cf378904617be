/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bounds on open readers: at most {@code maxOpen} open (or opening) at once and, as far as their estimated heap
 * goes, {@code maxHeapBytes}. Making room closes the least recently used idle readers first; when every open reader
 * is leased, an opening waits for one to come back. A timer closes readers idle for longer than
 * {@code idleTimeoutNanos}.
 *
 * <p>Each opening holds a {@link Ticket} from {@link #reserve} until its reader closes: the pool counts tickets, not
 * indices, so an index closed and reopened at once by two threads is never counted twice or not at all.
 *
 * <p>Lock order: the pool's monitor is never held while an index's monitor is taken (indices are closed outside it).
 */
final class ReaderPool implements AutoCloseable {
  /** What the pool needs of an index whose reader it counts: implemented by the mounted index. */
  interface Member {
    /** The name the index is mounted under, for messages. */
    String name();

    /** When its reader was last given back (System.nanoTime()). */
    long lastUsedNanos();

    /**
     * Closes its reader if no lease holds it and it was last used before {@code usedBefore}; returns the ticket the
     * reader held (to be given back with {@link #closed}), or null if it did not close. Takes the index's monitor:
     * never called with the pool's held.
     */
    Ticket closeIfIdle(long usedBefore);
  }

  /** Room for one reader, from its reservation until it closes; its heap once it is open. */
  static final class Ticket {
    final Member index;
    /** Guarded by the pool. */
    long heapBytes;
    /** Whether the reader has opened (else it is opening). Guarded by the pool. */
    boolean opened;

    private Ticket(Member index) {
      this.index = index;
    }
  }

  private final int maxOpen;
  private final long maxHeapBytes;
  private final long idleTimeoutNanos;
  /** Open or opening. Guarded by this. */
  private final Set<Ticket> open = new LinkedHashSet<>();
  /** Guarded by this. */
  private long heapBytes;
  private final ScheduledExecutorService reaper;

  final LongAdder opens = new LongAdder();
  final LongAdder closes = new LongAdder();
  final LongAdder closedIdle = new LongAdder();
  final LongAdder closedForRoom = new LongAdder();
  final LongAdder waitNanos = new LongAdder();

  ReaderPool(int maxOpen, long maxHeapBytes, long idleTimeoutNanos) {
    this.maxOpen = maxOpen;
    this.maxHeapBytes = maxHeapBytes;
    this.idleTimeoutNanos = idleTimeoutNanos;
    this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "permafrost-reader-pool");
      t.setDaemon(true);
      return t;
    });
    long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(idleTimeoutNanos / 4, TimeUnit.SECONDS.toNanos(5)));
    reaper.scheduleWithFixedDelay(this::closeIdle, period, period, TimeUnit.NANOSECONDS);
  }

  synchronized int openCount() {
    return open.size();
  }

  /** Of {@link #openCount}, those still opening. */
  synchronized int openingCount() {
    int opening = 0;
    for (Ticket t : open) {
      if (!t.opened) {
        opening++;
      }
    }
    return opening;
  }

  synchronized long heapBytes() {
    return heapBytes;
  }

  /**
   * Makes room for {@code index} to open, closing idle readers (least recently used first) or waiting for a lease to
   * come back.
   *
   * @throws TimeoutException if there is no room by {@code deadlineNanos}, naming the bound
   */
  Ticket reserve(Member index, long deadlineNanos) throws TimeoutException, InterruptedIOException {
    long start = System.nanoTime();
    try {
      for (;;) {
        List<Member> idle = new ArrayList<>();
        synchronized (this) {
          if (open.size() < maxOpen && heapBytes < maxHeapBytes) {
            Ticket ticket = new Ticket(index);
            open.add(ticket);
            return ticket;
          }
          for (Ticket t : open) {
            idle.add(t.index);
          }
        }
        // least recently used first, by a snapshot of each index's last use: the live values move while others search,
        // and a sort whose keys change under it fails ("Comparison method violates its general contract")
        long[] lastUsed = new long[idle.size()];
        Integer[] order = new Integer[idle.size()];
        for (int i = 0; i < order.length; i++) {
          lastUsed[i] = idle.get(i).lastUsedNanos();
          order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(lastUsed[a], lastUsed[b]));
        boolean freed = false;
        for (int i : order) {
          Member candidate = idle.get(i);
          Ticket closedTicket = candidate.closeIfIdle(Long.MAX_VALUE);
          if (closedTicket != null) {
            closed(closedTicket);
            closedForRoom.increment();
            freed = true;
            break;
          }
        }
        if (!freed) {
          synchronized (this) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
              throw new TimeoutException("no room to open index '" + index.name() + "': " + open.size() + " readers are"
                  + " open and in use (max_open_readers " + maxOpen + ", reader heap " + heapBytes + " of "
                  + maxHeapBytes + " bytes); searches did not give them back in time");
            }
            try {
              wait(Math.max(1, Math.min(remaining / 1_000_000, 100)));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new InterruptedIOException("interrupted waiting for room to open index '" + index.name() + "'");
            }
          }
        }
      }
    } finally {
      waitNanos.add(System.nanoTime() - start);
    }
  }

  /** An opening that had room reserved failed. */
  synchronized void unreserve(Ticket ticket) {
    open.remove(ticket);
    notifyAll();
  }

  /** A reader opened on {@code ticket}, holding {@code heap}. */
  synchronized void opened(Ticket ticket, long heap) {
    assert open.contains(ticket);
    ticket.heapBytes = heap;
    ticket.opened = true;
    heapBytes += heap;
    opens.increment();
  }

  /** The reader of {@code ticket} closed. */
  synchronized void closed(Ticket ticket) {
    boolean removed = open.remove(ticket);
    assert removed : "a ticket closes once";
    heapBytes -= ticket.heapBytes;
    closes.increment();
    notifyAll();
  }

  /** A lease came back: an opening waiting for room may find an idle reader now. */
  synchronized void released() {
    notifyAll();
  }

  /** Closes readers idle for longer than the time-out. */
  void closeIdle() {
    List<Member> candidates = new ArrayList<>();
    synchronized (this) {
      for (Ticket t : open) {
        candidates.add(t.index);
      }
    }
    long usedBefore = System.nanoTime() - idleTimeoutNanos;
    for (Member index : candidates) {
      Ticket ticket = index.closeIfIdle(usedBefore);
      if (ticket != null) {
        closed(ticket);
        closedIdle.increment();
      }
    }
  }

  /** Closes every open reader that is not leased, and stops the timer. */
  @Override
  public void close() {
    reaper.shutdownNow();
    List<Member> candidates = new ArrayList<>();
    synchronized (this) {
      for (Ticket t : open) {
        candidates.add(t.index);
      }
    }
    for (Member index : candidates) {
      Ticket ticket = index.closeIfIdle(Long.MAX_VALUE);
      if (ticket != null) {
        closed(ticket);
      }
    }
  }
}
