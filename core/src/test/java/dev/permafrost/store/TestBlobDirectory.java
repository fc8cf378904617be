/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.TestManifests;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;

/**
 * Lucene's own conformance suite for directories, run against {@link BlobIndexInput}: every file the suite
 * writes (to a local directory) is, when opened for reading, uploaded to a filesystem blob store and read back
 * through a {@link BlobDirectory} over a cache far too small for the suite's files, so that reads go through
 * fills and evictions.
 */
public class TestBlobDirectory extends BaseDirectoryTestCase {

  @Override
  protected Directory getDirectory(Path path) throws IOException {
    // NIOFSDirectory, not MMapDirectory: the suite unwraps filter directories and would expect mmap's isLoaded()
    return new SnapshottingDirectory(new NIOFSDirectory(path), path);
  }

  /** Writes locally; reads through a fresh single-file snapshot of what was written. */
  private static final class SnapshottingDirectory extends FilterDirectory {
    private final FileSystemBlobStore store;
    private final SharedRegionCache cache;
    private final int keepWholeLimit;
    private final List<BlobDirectory> mounted = new ArrayList<>();

    SnapshottingDirectory(Directory local, Path path) throws IOException {
      super(local);
      Path root = path.resolveSibling(path.getFileName() + "-blobs");
      this.store = FileSystemBlobStore.open(root.resolve("store"), false);
      this.cache = SharedRegionCache.builder().path(root.resolve("cache")).size(64 << 10).regionSize(8 << 10)
          .tailRegionSize(1 << 10).fetchThreads(2).build();
      this.keepWholeLimit = random().nextBoolean() ? 0 : 32;
    }

    @Override
    public IndexInput openInput(String name, IOContext context) throws IOException {
      long length = in.fileLength(name); // NoSuchFileException for a missing file, as the suite expects
      byte[] bytes = new byte[(int) length];
      try (IndexInput local = in.openInput(name, IOContext.READONCE)) {
        local.readBytes(bytes, 0, bytes.length);
      }
      String snapshot = "s-" + UUID.randomUUID();
      SnapshotManifest manifest = TestManifests.upload(store, snapshot, snapshot + "/", Map.of(name, bytes), keepWholeLimit);
      BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "conformance");
      synchronized (mounted) {
        mounted.add(dir);
      }
      return dir.openInput(name, context);
    }

    @Override
    public void close() throws IOException {
      try {
        synchronized (mounted) {
          for (BlobDirectory d : mounted) {
            d.close();
          }
        }
        cache.close();
        store.close();
      } finally {
        super.close();
      }
    }
  }
}
