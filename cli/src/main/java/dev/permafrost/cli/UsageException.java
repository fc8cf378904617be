/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

/** An argument that is wrong as written (a malformed URI, an invalid name, a query that does not parse): exit 2. */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
