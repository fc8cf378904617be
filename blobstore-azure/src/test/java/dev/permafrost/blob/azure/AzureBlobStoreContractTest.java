/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.azure;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreContractTest;

/**
 * The shared blob store contract against Azurite: each test gets a fresh container and prefix, with blocks and
 * download chunks small enough that the large-blob test stages and commits blocks and reads in many ranged GETs,
 * and list pages small enough that the listing test follows many pages.
 */
class AzureBlobStoreContractTest extends BlobStoreContractTest {
  @Override
  protected BlobStore createStore() {
    return AzureTestStores.newStore();
  }
}
