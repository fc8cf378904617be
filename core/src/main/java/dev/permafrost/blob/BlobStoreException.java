/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;

/**
 * A blob store operation failed. The message names the store (as {@link BlobStore#describe()}), the blob and,
 * for ranged reads, the range; it never contains credentials.
 *
 * <p>{@link #isRetryable()} tells whether the same request may succeed if sent again (a server error, throttling,
 * a reset or timed-out connection, a response cut short); backends set it when they translate their SDK's errors,
 * and {@link StorePolicy}'s retries rely on it. Not-found, authorization and invalid-request failures are never
 * retryable.
 */
public class BlobStoreException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String store;
  private final String blobName;
  private final String detail;
  private final boolean retryable;

  /**
   * @param retryable whether sending the same request again may succeed (see {@link #isRetryable()})
   */
  public BlobStoreException(String store, String blobName, String message, Throwable cause, boolean retryable) {
    super(format(store, blobName, message), cause);
    this.store = store;
    this.blobName = blobName;
    this.detail = message;
    this.retryable = retryable;
  }

  /** A failure that is not worth retrying. */
  public BlobStoreException(String store, String blobName, String message, Throwable cause) {
    this(store, blobName, message, cause, false);
  }

  /** A failure that is not worth retrying. */
  public BlobStoreException(String store, String blobName, String message) {
    this(store, blobName, message, null, false);
  }

  /** The store, as {@link BlobStore#describe()} gives it. */
  public String store() {
    return store;
  }

  /** The blob at fault, or null when the failure concerns the store as a whole. */
  public String blobName() {
    return blobName;
  }

  /** The message without the store and blob that {@link #getMessage()} appends. */
  public String detail() {
    return detail;
  }

  /**
   * Whether sending the same request again may succeed: server errors (5xx), throttling (429, SlowDown), reset,
   * refused or timed-out connections, and responses cut short are; missing blobs, denied access and invalid
   * requests are not.
   */
  public boolean isRetryable() {
    return retryable;
  }

  /** Formats a byte range the way every message in the project does: {@code [offset, offset+length)}. */
  public static String range(long offset, long length) {
    return "bytes [" + offset + ", " + (offset + length) + ")";
  }

  private static String format(String store, String blobName, String message) {
    StringBuilder sb = new StringBuilder();
    sb.append(message).append(" (store: ").append(store);
    if (blobName != null) {
      sb.append(", blob: ").append(blobName);
    }
    return sb.append(')').toString();
  }
}
