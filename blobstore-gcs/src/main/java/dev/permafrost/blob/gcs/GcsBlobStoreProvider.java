/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreProvider;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.StoreSettings;
import java.io.IOException;
import java.net.URI;

/**
 * The {@code gs:} backend: {@code gs://bucket/prefix?setting=value&...}, opened as a {@link GcsBlobStore}. The
 * settings are those of {@link GcsSettings}; an unknown one is rejected by name.
 */
public final class GcsBlobStoreProvider implements BlobStoreProvider {
  @Override
  public String scheme() {
    return GcsBlobStore.SCHEME;
  }

  @Override
  public BlobStore open(URI uri, StoreSettings settings) throws IOException {
    if (uri.isOpaque()) {
      throw new IllegalArgumentException(
          "gs blob store URI '" + BlobStores.redact(uri) + "' must have the form gs://bucket/prefix");
    }
    // The raw authority, not the host: bucket names may contain '_', which is no valid host name.
    String bucket = uri.getRawAuthority();
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException(
          "gs blob store URI '" + BlobStores.redact(uri) + "' names no bucket; use gs://bucket/prefix");
    }
    if (bucket.contains("@") || bucket.contains(":")) {
      throw new IllegalArgumentException(
          "gs blob store URI '" + BlobStores.redact(uri) + "' must name only a bucket after gs:// (no user or port);"
              + " give the endpoint with the 'endpoint' setting and credentials with 'credentials_file'");
    }
    if (uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "gs blob store URI '" + BlobStores.redact(uri) + "' must not have a fragment ('#...')");
    }
    return GcsBlobStore.open(bucket, uri.getPath(), settings);
  }
}
