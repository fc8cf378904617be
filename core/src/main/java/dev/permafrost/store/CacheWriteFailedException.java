/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;

/**
 * Writing fetched bytes into the cache file failed (a full disk, an I/O error): the fill gives up, its pages stay
 * missing, and the readers waiting for it read directly from the store instead of failing.
 */
final class CacheWriteFailedException extends IOException {
  private static final long serialVersionUID = 1L;

  CacheWriteFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
