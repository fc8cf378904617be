/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;

/**
 * A blob store operation failed. The message names the store (as {@link BlobStore#describe()}), the blob and,
 * for ranged reads, the range; it never contains credentials.
 */
public class BlobStoreException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String store;
  private final String blobName;

  public BlobStoreException(String store, String blobName, String message, Throwable cause) {
    super(format(store, blobName, message), cause);
    this.store = store;
    this.blobName = blobName;
  }

  public BlobStoreException(String store, String blobName, String message) {
    this(store, blobName, message, null);
  }

  /** The store, as {@link BlobStore#describe()} gives it. */
  public String store() {
    return store;
  }

  /** The blob at fault, or null when the failure concerns the store as a whole. */
  public String blobName() {
    return blobName;
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
