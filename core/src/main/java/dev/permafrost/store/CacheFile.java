/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NativeFSLockFactory;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.IOUtils;

/**
 * The cache file on disk: one file of fixed size holding every slot, created, locked, sized and mapped here, and
 * written only through {@link #write}. Reads go through a memory mapping made by Lucene's {@link MMapDirectory}
 * (on Java 21 its {@code MemorySegment} access is the fastest portable way to map a file), as one mapping whatever
 * the file's size ({@link #ONE_MAPPING}).
 *
 * <p>One cache per directory: a native lock is taken on a separate file ({@value #LOCK_NAME}) before the cache
 * file is touched, and held until {@link #close()}. The lock file is never mapped or opened elsewhere, because
 * closing any channel of a file drops the process's lock on it (and Lucene's mapping opens and closes one on the
 * cache file). A second cache on the same directory, in this process or another, fails before it can resize or
 * write the file.
 */
final class CacheFile implements Closeable {
  static final String FILE_NAME = "permafrost-regions.cache";
  static final String LOCK_NAME = "permafrost-regions.lock";
  /** The cache file's page: the unit of its slots' fill bitmaps, and the smallest slot. */
  static final int PAGE_SIZE = 4096;
  /**
   * The chunk size the cache file is mapped with: larger than any file, so that it is one mapping. Lucene maps a file
   * past its default chunk (16 GiB) as several, and reads it through another, larger class; every read of a cached
   * byte goes through this mapping, and a hot path that sees one class at small caches and another at large ones is
   * compiled differently by size (issue 56: the warm dashboard at scale {@code medium}, a 22 GB cache, ran up to 1.2x
   * slower than with a local copy in some builds only).
   */
  static final long ONE_MAPPING = 1L << 62;

  private final Path file;
  private final long size;
  private final MMapDirectory directory;
  private final Lock lock;
  private final FileChannel channel;
  private final IndexInput mapped;
  private final RandomAccessInput mappedAccess;

  private CacheFile(Path dir, long size, boolean preallocate) throws IOException {
    this.file = dir.resolve(FILE_NAME);
    this.size = size;
    this.directory = new MMapDirectory(dir, NativeFSLockFactory.INSTANCE, ONE_MAPPING);
    Lock obtained = null;
    FileChannel ch = null;
    IndexInput map = null;
    boolean success = false;
    try {
      try {
        obtained = directory.obtainLock(LOCK_NAME);
      } catch (LockObtainFailedException e) {
        throw new IllegalStateException("the cache directory " + dir + " is in use by another SharedRegionCache, in"
            + " this process or another (it holds the lock on " + dir.resolve(LOCK_NAME) + "); give each cache its"
            + " own directory, or close the other cache first", e);
      }
      ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      resize(ch, size, preallocate);
      map = directory.openInput(FILE_NAME, IOContext.DEFAULT);
      success = true;
    } finally {
      if (!success) {
        IOUtils.closeWhileHandlingException(map, ch, obtained, directory);
      }
    }
    this.lock = obtained;
    this.channel = ch;
    this.mapped = map;
    this.mappedAccess = (RandomAccessInput) map;
  }

  /**
   * Locks {@code dir}, then creates or resizes its cache file to exactly {@code size} bytes and maps it.
   *
   * @param preallocate write zeros over new space, so that the disk space is really taken now
   * @throws IllegalStateException if another cache holds the directory
   */
  static CacheFile open(Path dir, long size, boolean preallocate) throws IOException {
    return new CacheFile(dir, size, preallocate);
  }

  private void resize(FileChannel ch, long bytes, boolean preallocate) throws IOException {
    long current = ch.size();
    if (current > bytes) {
      ch.truncate(bytes);
      return;
    }
    if (current == bytes) {
      return;
    }
    FileStore store = Files.getFileStore(file);
    if (store.getUsableSpace() < bytes - current) {
      throw new IOException("not enough disk space for a cache file of " + bytes + " bytes at " + file
          + " (usable: " + store.getUsableSpace() + " bytes); give a smaller size");
    }
    try {
      if (preallocate) {
        ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
        for (long pos = current; pos < bytes; ) {
          zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - pos));
          pos += ch.write(zeros, pos);
        }
        ch.force(false);
      } else {
        ch.write(ByteBuffer.wrap(new byte[1]), bytes - 1);
      }
    } catch (IOException e) {
      ch.truncate(current);
      throw new IOException("cannot allocate the cache file " + file + " of " + bytes + " bytes: " + e.getMessage(), e);
    }
  }

  /** Writes {@code length} bytes of {@code bytes} at {@code position} of the file. */
  void write(byte[] bytes, int offset, int length, long position) throws IOException {
    assert position >= 0 && position + length <= size : "write of " + length + " at " + position + " past " + size;
    ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
    while (buffer.hasRemaining()) {
      position += channel.write(buffer, position);
    }
  }

  /** Syncs the file's written bytes to the disk. */
  void force() throws IOException {
    channel.force(false);
  }

  /** The mapping of the whole file, for positional reads from any thread. */
  RandomAccessInput mapped() {
    return mappedAccess;
  }

  Path path() {
    return file;
  }

  long size() {
    return size;
  }

  /** Unmaps, closes and unlocks, the lock last. */
  @Override
  public void close() throws IOException {
    IOUtils.close(mapped, channel, directory, lock);
  }
}
