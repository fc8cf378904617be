/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.List;

/**
 * What a snapshot repository needs from object storage: immutable-ish named blobs that can be read whole or by
 * byte range, written atomically, listed by prefix and deleted.
 *
 * <p>Blob names are '/'-separated paths relative to the store's root (its bucket and prefix); every method
 * validates them with {@link BlobNames#validate(String)} before touching storage. Implementations are
 * thread-safe.
 *
 * <p>Errors are {@link BlobStoreException}s that name the store, the blob and the range; a blob that does not
 * exist is reported as {@link BlobNotFoundException}, so that "not there" can be told from "store unreachable".
 * No method ever puts a credential in an exception message or in {@code toString()}.
 */
public interface BlobStore extends Closeable {

  /**
   * A short description of where this store keeps its blobs, safe to print: scheme, bucket or directory,
   * prefix and endpoint, never credentials. Used in every error message.
   */
  String describe();

  /**
   * Opens a stream over the whole blob.
   *
   * @throws BlobNotFoundException if there is no such blob
   */
  InputStream read(String blobName) throws IOException;

  /**
   * Opens a stream over {@code length} bytes of the blob starting at {@code offset}. The range must lie within
   * the blob: a range that goes past its end fails with a {@link BlobStoreException} naming the range and the
   * blob's length, either here or, at the latest, when the stream would come up short. A zero-length range
   * within the blob (including at its very end) gives an empty stream.
   *
   * @throws BlobNotFoundException if there is no such blob
   * @throws IllegalArgumentException if offset or length is negative
   */
  InputStream read(String blobName, long offset, long length) throws IOException;

  /**
   * Writes a blob of exactly {@code length} bytes from {@code data}, replacing any blob of the same name.
   * The write is atomic for readers: they see the old blob, the new blob, or no blob, never a partial one. If
   * {@code data} throws, or ends before {@code length} bytes, nothing is written and the exception is rethrown
   * (wrapped only to add the store and blob). The stream is not closed by this method.
   */
  void write(String blobName, InputStream data, long length) throws IOException;

  /**
   * Lists the blobs whose names start with {@code prefix} (a plain string prefix, not necessarily ending in
   * '/'; the empty string lists everything), in lexicographic order of name, following every page the
   * underlying store returns.
   */
  List<BlobMetadata> list(String prefix) throws IOException;

  /** The length of the blob in bytes. @throws BlobNotFoundException if there is no such blob */
  long length(String blobName) throws IOException;

  /** Whether the blob exists. */
  default boolean exists(String blobName) throws IOException {
    try {
      length(blobName);
      return true;
    } catch (BlobNotFoundException e) {
      return false;
    }
  }

  /** Deletes the blob; deleting a blob that does not exist is not an error. */
  void delete(String blobName) throws IOException;

  /** Deletes all the named blobs; stores with a batch delete override this. */
  default void deleteAll(Collection<String> blobNames) throws IOException {
    for (String name : blobNames) {
      delete(name);
    }
  }

  /** Releases the store's clients and connections; the store is unusable afterwards. */
  @Override
  void close() throws IOException;
}
