/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A {@link BlobStore} that forwards every call, the interface's defaults included, to another store. Decorators
 * (retries, deadlines, limits, test fault injection, latency models) extend it and override only what they
 * change, as Lucene's {@code FilterDirectory} does for directories.
 */
public abstract class FilterBlobStore implements BlobStore {
  /** The store calls are forwarded to. */
  protected final BlobStore in;

  protected FilterBlobStore(BlobStore in) {
    this.in = Objects.requireNonNull(in, "in");
  }

  /** The innermost store under any number of filters. */
  public static BlobStore unwrap(BlobStore store) {
    while (store instanceof FilterBlobStore f) {
      store = f.in;
    }
    return store;
  }

  /** The store this one forwards to. */
  public final BlobStore getDelegate() {
    return in;
  }

  @Override
  public String describe() {
    return in.describe();
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    return in.read(blobName);
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    return in.read(blobName, offset, length);
  }

  @Override
  public void write(String blobName, InputStream data, long length) throws IOException {
    in.write(blobName, data, length);
  }

  @Override
  public List<BlobMetadata> list(String prefix) throws IOException {
    return in.list(prefix);
  }

  @Override
  public long length(String blobName) throws IOException {
    return in.length(blobName);
  }

  @Override
  public boolean exists(String blobName) throws IOException {
    return in.exists(blobName);
  }

  @Override
  public void delete(String blobName) throws IOException {
    in.delete(blobName);
  }

  @Override
  public void deleteAll(Collection<String> blobNames) throws IOException {
    in.deleteAll(blobNames);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + in + ")";
  }
}
