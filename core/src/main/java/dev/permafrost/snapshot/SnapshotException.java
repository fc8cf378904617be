/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.io.IOException;

/** A snapshot operation failed; subclasses say how. Messages name the repository and the snapshot. */
public class SnapshotException extends IOException {
  private static final long serialVersionUID = 1L;

  public SnapshotException(String message) {
    super(message);
  }

  public SnapshotException(String message, Throwable cause) {
    super(message, cause);
  }

  /** There is no snapshot of that name in the repository (no manifest was ever completely written). */
  public static final class NotFound extends SnapshotException {
    private static final long serialVersionUID = 1L;

    public NotFound(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A snapshot of that name exists already; snapshots are immutable. */
  public static final class AlreadyExists extends SnapshotException {
    private static final long serialVersionUID = 1L;

    public AlreadyExists(String message) {
      super(message);
    }
  }

  /** A manifest was written in a format newer than this version of Permafrost reads. */
  public static final class UnsupportedFormat extends SnapshotException {
    private static final long serialVersionUID = 1L;

    public UnsupportedFormat(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A manifest in the store is truncated or corrupt (its checksum, header or structure does not hold). */
  public static final class CorruptManifest extends SnapshotException {
    private static final long serialVersionUID = 1L;

    public CorruptManifest(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
