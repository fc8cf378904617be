/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;

class FileSystemEndToEndSearchTest extends EndToEndSearchTest {
  @Override
  protected BlobStore createStore() throws Exception {
    return FileSystemBlobStore.open(tmp.resolve("repo"), false);
  }
}
