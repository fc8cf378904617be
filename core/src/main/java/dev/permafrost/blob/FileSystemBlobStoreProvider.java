/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * The {@code file:} backend: {@code file:///var/snapshots}. Settings: {@code fsync} (default true), whether each
 * write is synced to disk before it becomes visible.
 */
public final class FileSystemBlobStoreProvider implements BlobStoreProvider {
  @Override
  public String scheme() {
    return "file";
  }

  @Override
  public BlobStore open(URI uri, StoreSettings settings) throws IOException {
    if (uri.getPath() == null || uri.getPath().isEmpty()) {
      throw new IllegalArgumentException("file blob store URI '" + BlobStores.redact(uri) + "' has no path");
    }
    if (uri.getHost() != null && !uri.getHost().isEmpty() && !uri.getHost().equals("localhost")) {
      throw new IllegalArgumentException(
          "file blob store URI '" + BlobStores.redact(uri) + "' names a host; use file:///absolute/path");
    }
    boolean fsync = settings.getBoolean("fsync", true);
    settings.rejectUnknown();
    return FileSystemBlobStore.open(Path.of(uri.getPath()), fsync);
  }
}
