/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;

/**
 * A search's hold on a mounted index's reader: while any lease is open the reader stays open. Close it when the
 * search is done (try-with-resources); closing twice is harmless. Not for sharing between searches: take one each.
 */
public final class Lease implements AutoCloseable {
  private final String name;
  /** Gives the reader back to its index. */
  private final Runnable release;
  private final DirectoryReader reader;
  private final IndexSearcher searcher;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Whether the acquire that gave this lease opened the reader. */
  final boolean opened;

  /**
   * @param name the name the index is mounted under
   * @param release gives the reader back to the index, once
   * @param opened whether the acquire that gives this lease opened the reader
   */
  Lease(String name, DirectoryReader reader, boolean opened, Runnable release) {
    this.opened = opened;
    this.name = name;
    this.release = release;
    this.reader = reader;
    this.searcher = new IndexSearcher(reader);
  }

  /** The name the index is mounted under. */
  public String name() {
    return name;
  }

  /** The open reader. */
  public DirectoryReader reader() {
    return reader;
  }

  /** A searcher over the reader, this lease's own. */
  public IndexSearcher searcher() {
    return searcher;
  }

  /** Gives the reader back; it may close once no lease holds it and it has been idle long enough. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      release.run();
    }
  }

  @Override
  public String toString() {
    return "Lease(" + name + (closed.get() ? ", closed" : "") + ")";
  }
}
