/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.io.IOException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * A full-copy mount's directory: a file whose local copy is complete and verified is read from it; any other, from
 * the snapshot through the shared cache. The snapshot decides what files there are and how long they are.
 */
final class FullCopyDirectory extends FilterDirectory {
  private final FullCopy copy;

  FullCopyDirectory(Directory snapshot, FullCopy copy) {
    super(snapshot);
    this.copy = copy;
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    return copy.isLocal(name) ? copy.openLocal(name, context) : in.openInput(name, context);
  }
}
