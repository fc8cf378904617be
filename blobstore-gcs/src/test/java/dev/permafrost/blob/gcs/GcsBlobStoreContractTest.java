/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreContractTest;

/**
 * The shared contract, against fake-gcs-server: a fresh bucket per test, a single-upload threshold of 1 MiB and
 * parts of 256 KiB (so the large blob goes through the resumable path in many parts) and list pages of 25 (so
 * the listing test pages).
 */
class GcsBlobStoreContractTest extends BlobStoreContractTest {
  @Override
  protected BlobStore createStore() throws Exception {
    return GcsTestStores.newStore();
  }
}
