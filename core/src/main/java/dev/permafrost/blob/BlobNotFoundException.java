/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

/** The named blob does not exist in the store. */
public class BlobNotFoundException extends BlobStoreException {
  private static final long serialVersionUID = 1L;

  public BlobNotFoundException(String store, String blobName) {
    super(store, blobName, "blob not found");
  }

  public BlobNotFoundException(String store, String blobName, Throwable cause) {
    super(store, blobName, "blob not found", cause);
  }
}
