/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A blob store in a local (or mounted network) directory: each blob is a file below the root, named by the
 * blob's path. The embedded default, used with {@code file:///path/to/repository}.
 *
 * <p>Writes go to a temporary file in the reserved {@value #TEMP_DIR} folder under the root, are synced, then
 * moved into place atomically, so a reader never sees a partial blob. Names whose first segment is
 * {@value #TEMP_DIR} are reserved and rejected.
 */
public final class FileSystemBlobStore extends AbstractBlobStore {
  /** The folder below the root that holds writes in progress; never listed. */
  public static final String TEMP_DIR = ".permafrost-tmp";

  private final Path root;
  private final Path tempDir;
  private final boolean fsync;
  private final String description;

  private FileSystemBlobStore(Path root, boolean fsync) throws IOException {
    this.root = root.toAbsolutePath().normalize();
    this.fsync = fsync;
    this.description = "file://" + this.root;
    if (Files.exists(this.root) && !Files.isDirectory(this.root)) {
      throw new BlobStoreException(description, null, "repository path exists but is not a directory");
    }
    try {
      Files.createDirectories(this.root);
      this.tempDir = Files.createDirectories(this.root.resolve(TEMP_DIR));
    } catch (IOException e) {
      throw new BlobStoreException(description, null, "cannot create the repository directory: " + e, e);
    }
  }

  /** Opens (creating if needed) a store rooted at {@code root}, syncing every write to disk. */
  public static FileSystemBlobStore open(Path root) throws IOException {
    return new FileSystemBlobStore(root, true);
  }

  /**
   * Opens a store rooted at {@code root}.
   *
   * @param fsync whether writes are synced to disk before they become visible (turn off only for tests)
   */
  public static FileSystemBlobStore open(Path root, boolean fsync) throws IOException {
    return new FileSystemBlobStore(root, fsync);
  }

  /** The root directory. */
  public Path root() {
    return root;
  }

  @Override
  public String describe() {
    return description;
  }

  private Path resolve(String blobName) {
    BlobNames.validate(blobName);
    if (blobName.equals(TEMP_DIR) || blobName.startsWith(TEMP_DIR + "/")) {
      throw new IllegalArgumentException(
          "invalid blob name '" + blobName + "': '" + TEMP_DIR + "' is reserved by the filesystem store");
    }
    Path path = root.resolve(blobName).normalize();
    // Validation already excludes '..', absolute names and empty segments; this is a second line of defence.
    if (!path.startsWith(root) || path.equals(root)) {
      throw new IllegalArgumentException("invalid blob name '" + blobName + "': it resolves outside the store");
    }
    return path;
  }

  @Override
  protected InputStream openBlob(String blobName) throws IOException {
    Path path = resolve(blobName);
    FileChannel channel = openForRead(path, blobName);
    return new ChannelRangeInputStream(channel, blobName, 0, channel.size());
  }

  @Override
  protected InputStream openRange(String blobName, long offset, long length) throws IOException {
    Path path = resolve(blobName);
    FileChannel channel = openForRead(path, blobName);
    long size;
    try {
      size = channel.size();
    } catch (IOException e) {
      channel.close();
      throw new BlobStoreException(description, blobName, "cannot read blob length", e);
    }
    if (offset + length > size) {
      channel.close();
      throw pastEnd(blobName, offset, length, size, null);
    }
    return new ChannelRangeInputStream(channel, blobName, offset, length);
  }

  private FileChannel openForRead(Path path, String blobName) throws IOException {
    try {
      if (Files.isDirectory(path)) {
        throw new BlobNotFoundException(description, blobName);
      }
      return FileChannel.open(path, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      throw new BlobNotFoundException(description, blobName, e);
    } catch (BlobStoreException e) {
      throw e;
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "cannot open blob: " + e, e);
    }
  }

  @Override
  protected void putBlob(String blobName, InputStream data, long length) throws IOException {
    Path target = resolve(blobName);
    Path temp = tempDir.resolve(UUID.randomUUID() + ".tmp");
    boolean success = false;
    try {
      try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        byte[] buffer = new byte[(int) Math.min(64 * 1024, Math.max(length, 1))];
        long remaining = length;
        while (remaining > 0) {
          int n = data.read(buffer, 0, (int) Math.min(buffer.length, remaining));
          if (n < 0) {
            throw new EOFException(
                "the data ended after " + (length - remaining) + " of the " + length + " bytes announced");
          }
          ByteBuffer bb = ByteBuffer.wrap(buffer, 0, n);
          while (bb.hasRemaining()) {
            out.write(bb);
          }
          remaining -= n;
        }
        if (fsync) {
          out.force(true);
        }
      }
      Files.createDirectories(target.getParent());
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new BlobStoreException(description, blobName, "the filesystem cannot rename atomically", e);
      }
      success = true;
    } catch (BlobStoreException e) {
      throw e;
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "write failed: " + e, e);
    } finally {
      if (!success) {
        Files.deleteIfExists(temp);
      }
    }
  }

  @Override
  protected List<BlobMetadata> listBlobs(String prefix) throws IOException {
    int slash = prefix.lastIndexOf('/');
    Path start = slash < 0 ? root : root.resolve(prefix.substring(0, slash));
    List<BlobMetadata> result = new ArrayList<>();
    if (!Files.isDirectory(start)) {
      return result;
    }
    try {
      collect(start, prefix, result);
    } catch (UncheckedIOException e) {
      throw new BlobStoreException(description, null, "listing prefix '" + prefix + "' failed: " + e.getCause(), e.getCause());
    } catch (IOException e) {
      throw new BlobStoreException(description, null, "listing prefix '" + prefix + "' failed: " + e, e);
    }
    result.sort(Comparator.comparing(BlobMetadata::name));
    return result;
  }

  private void collect(Path dir, String prefix, List<BlobMetadata> result) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        if (entry.equals(tempDir)) {
          continue;
        }
        String name = root.relativize(entry).toString().replace(entry.getFileSystem().getSeparator(), "/");
        BasicFileAttributes attrs;
        try {
          attrs = Files.readAttributes(entry, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue; // deleted while listing
        }
        if (attrs.isDirectory()) {
          String asPrefix = name + "/";
          if (asPrefix.startsWith(prefix) || prefix.startsWith(asPrefix)) {
            collect(entry, prefix, result);
          }
        } else if (name.startsWith(prefix)) {
          result.add(new BlobMetadata(name, attrs.size()));
        }
      }
    } catch (NoSuchFileException e) {
      // the directory was removed while listing: nothing below it
    }
  }

  @Override
  protected long blobLength(String blobName) throws IOException {
    Path path = resolve(blobName);
    try {
      BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
      if (attrs.isDirectory()) {
        throw new BlobNotFoundException(description, blobName);
      }
      return attrs.size();
    } catch (NoSuchFileException e) {
      throw new BlobNotFoundException(description, blobName, e);
    } catch (BlobStoreException e) {
      throw e;
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "cannot read blob length: " + e, e);
    }
  }

  @Override
  protected void deleteBlob(String blobName) throws IOException {
    Path path = resolve(blobName);
    try {
      if (!Files.isDirectory(path)) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new BlobStoreException(description, blobName, "delete failed: " + e, e);
    }
  }

  @Override
  protected void closeStore() {
    // nothing is held open between calls
  }

  @Override
  public String toString() {
    return "FileSystemBlobStore(" + description + ")";
  }

  /** A bounded stream over a range of a file, read with positional reads. */
  private final class ChannelRangeInputStream extends InputStream {
    private final FileChannel channel;
    private final String blobName;
    private final long end;
    private long position;

    ChannelRangeInputStream(FileChannel channel, String blobName, long offset, long length) {
      this.channel = channel;
      this.blobName = blobName;
      this.position = offset;
      this.end = offset + length;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      if (position >= end) {
        return -1;
      }
      int want = (int) Math.min(len, end - position);
      int n;
      try {
        n = channel.read(ByteBuffer.wrap(b, off, want), position);
      } catch (IOException e) {
        throw new BlobStoreException(description, blobName, "read failed at offset " + position + ": " + e, e);
      }
      if (n < 0) {
        throw new BlobStoreException(
            description, blobName, "blob ended at offset " + position + " before the end of the requested range at " + end);
      }
      position += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, end - position));
      position += skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, end - position);
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
