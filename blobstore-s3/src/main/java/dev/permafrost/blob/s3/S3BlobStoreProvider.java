/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreProvider;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.StoreSettings;
import java.net.URI;

/**
 * The {@code s3:} backend, found by {@link BlobStores#open(URI)}: {@code s3://bucket/prefix?setting=value&...}.
 * The URI's authority is the bucket, its path the key prefix, and its query the settings ({@link S3Settings}; an
 * unknown one is rejected by name). Credentials may be given as the {@code access_key}, {@code secret_key} and
 * {@code session_token} query parameters, or by the {@code profile} one, but never as user info in the URI.
 */
public final class S3BlobStoreProvider implements BlobStoreProvider {
  @Override
  public String scheme() {
    return "s3";
  }

  @Override
  public BlobStore open(URI uri, StoreSettings settings) {
    String authority = uri.getRawAuthority();
    if (authority == null || authority.isEmpty()) {
      throw new IllegalArgumentException(
          "s3 blob store URI '" + BlobStores.redact(uri) + "' has no bucket; use s3://bucket/prefix");
    }
    if (authority.contains("@")) {
      throw new IllegalArgumentException(
          "s3 blob store URI '" + BlobStores.redact(uri) + "' must not hold user info; give credentials as the"
              + " access_key and secret_key settings or through the AWS default provider chain");
    }
    if (authority.contains(":")) {
      throw new IllegalArgumentException(
          "s3 blob store URI '" + BlobStores.redact(uri) + "' names a port; the authority is the bucket, set the"
              + " server with the endpoint setting (e.g. ?endpoint=http://127.0.0.1:9000)");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    return S3BlobStore.open(authority, path, settings);
  }
}
