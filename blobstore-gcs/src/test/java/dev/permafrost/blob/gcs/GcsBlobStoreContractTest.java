/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreContractTest;

/**
 * The shared contract, against fake-gcs-server: a fresh bucket per test, a resumable threshold of 1 MiB with
 * 256 KiB chunks (so the large blob goes through the resumable path in many chunks) and list pages of 25 (so
 * the listing test pages).
 */
class GcsBlobStoreContractTest extends BlobStoreContractTest {
  @Override
  protected BlobStore createStore() throws Exception {
    return GcsTestStores.newStore();
  }
}
