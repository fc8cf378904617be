/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.workload;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.IOUtils;

/**
 * Open readers over a list of directories (one per daily index), with a searcher each. Searchers run on the
 * calling thread and have no query cache, so that every run does the same work. Closing closes the readers and
 * the directories.
 */
public final class IndexSet implements Closeable {
  private final List<Directory> directories;
  private final List<DirectoryReader> readers;
  private final List<IndexSearcher> searchers;

  private IndexSet(List<Directory> directories, List<DirectoryReader> readers) {
    this.directories = directories;
    this.readers = readers;
    this.searchers = readers.stream().map(IndexSet::searcher).toList();
  }

  private static IndexSearcher searcher(DirectoryReader reader) {
    IndexSearcher searcher = new IndexSearcher(reader);
    searcher.setQueryCache(null);
    return searcher;
  }

  /** Opens a reader on each directory; takes ownership of the directories, closing them if anything fails. */
  public static IndexSet open(List<? extends Directory> directories) throws IOException {
    List<DirectoryReader> readers = new ArrayList<>(directories.size());
    boolean success = false;
    try {
      for (Directory dir : directories) {
        readers.add(DirectoryReader.open(dir));
      }
      success = true;
      return new IndexSet(List.copyOf(directories), readers);
    } finally {
      if (!success) {
        IOUtils.closeWhileHandlingException(readers);
        IOUtils.closeWhileHandlingException(directories);
      }
    }
  }

  public List<IndexSearcher> searchers() {
    return searchers;
  }

  public List<DirectoryReader> readers() {
    return readers;
  }

  public List<Directory> directories() {
    return directories;
  }

  /** Runs the workload over these indices. */
  public Workload.Result run(Workload workload) throws IOException {
    return workload.run(searchers);
  }

  @Override
  public void close() throws IOException {
    List<Closeable> all = new ArrayList<>(readers);
    all.addAll(directories);
    IOUtils.close(all);
  }
}
