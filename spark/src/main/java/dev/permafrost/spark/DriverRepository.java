/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import java.io.IOException;

/** Opens the repository's store on the driver, with an error that names the option and the repository. */
final class DriverRepository {
  private DriverRepository() {}

  static BlobStore open(SourceOptions options) throws IOException {
    try {
      return BlobStores.open(options.repository);
    } catch (IOException | RuntimeException e) {
      throw new IOException("cannot open the repository " + options.describeRepository() + " (option 'repository'): "
          + e.getMessage(), e);
    }
  }
}
