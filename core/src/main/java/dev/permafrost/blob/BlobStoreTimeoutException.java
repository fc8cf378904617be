/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

/**
 * A store request did not complete within its deadline (see {@link StorePolicy#requestTimeout()}); the request
 * was abandoned. Retryable: the next attempt may find a healthier connection or server.
 */
public class BlobStoreTimeoutException extends BlobStoreException {
  private static final long serialVersionUID = 1L;

  public BlobStoreTimeoutException(String store, String blobName, String message, Throwable cause) {
    super(store, blobName, message, cause, true);
  }
}
