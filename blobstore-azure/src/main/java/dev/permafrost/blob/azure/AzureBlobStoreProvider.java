/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreProvider;
import dev.permafrost.blob.StoreSettings;
import java.net.URI;

/**
 * The {@code azblob:} backend: {@code azblob://container/prefix?account=myaccount&sas_token=...}. The settings
 * are those of {@link AzureSettings} (see also the module's README), plus the store policy's
 * ({@code max_retries}, {@code retry_delay}, ...), which {@link dev.permafrost.blob.BlobStores#open(URI)} reads
 * before calling this provider; an unknown one is rejected by name. Registered in {@code
 * META-INF/services/dev.permafrost.blob.BlobStoreProvider}.
 */
public final class AzureBlobStoreProvider implements BlobStoreProvider {
  @Override
  public String scheme() {
    return AzureBlobStore.SCHEME;
  }

  @Override
  public BlobStore open(URI uri, StoreSettings settings) {
    return AzureBlobStore.open(uri, settings);
  }
}
