/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.store.EndToEndSearchTest;

/** Snapshot a Lucene index into the emulator, mount it and search it. */
class S3EndToEndSearchTest extends EndToEndSearchTest {
  @Override
  protected BlobStore createStore() throws Exception {
    return S3TestStores.newStore();
  }
}
