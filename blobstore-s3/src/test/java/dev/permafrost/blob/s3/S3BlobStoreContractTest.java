/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreContractTest;

/**
 * The shared contract on MinIO: each test gets a fresh prefix; the 12 MiB {@code largeBlob} goes through a
 * three-part multipart upload, and the 120-blob listing through 18 pages of 7 keys.
 */
class S3BlobStoreContractTest extends BlobStoreContractTest {
  @Override
  protected BlobStore createStore() {
    return S3TestStores.newStore();
  }

  @Override
  protected int manyBlobCount() {
    return 120;
  }
}
