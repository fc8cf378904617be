/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.net.URI;

/**
 * A blob store backend, found by {@link BlobStores#open(URI)} through {@link java.util.ServiceLoader}. A backend
 * module lists its provider in {@code META-INF/services/dev.permafrost.blob.BlobStoreProvider}.
 */
public interface BlobStoreProvider {

  /** The URI scheme this backend serves, lower case: {@code file}, {@code s3}, {@code gs}, {@code azblob}. */
  String scheme();

  /**
   * Opens a store for {@code uri}. {@code settings} are the URI's query parameters (see
   * {@link StoreSettings#fromQuery(URI)}), of which the {@link StorePolicy} settings have already been read; the
   * backend reads its own and then calls {@link StoreSettings#rejectUnknown()}, so that a misspelt parameter is an
   * error that names it. The backend's SDK must not retry: the store policy decides (see {@link StorePolicy}).
   */
  BlobStore open(URI uri, StoreSettings settings) throws IOException;
}
