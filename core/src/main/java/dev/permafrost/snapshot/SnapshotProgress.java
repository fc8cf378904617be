/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

/**
 * Progress of a snapshot being taken, reported after each file.
 *
 * @param snapshot the snapshot's name
 * @param filesDone files done (uploaded, found in the repository already, or kept in the manifest)
 * @param filesTotal files in the commit
 * @param bytesDone bytes of the files done
 * @param bytesTotal bytes of all files
 * @param filesUploaded files actually uploaded so far
 * @param bytesUploaded bytes actually uploaded so far
 */
public record SnapshotProgress(
    String snapshot, int filesDone, int filesTotal, long bytesDone, long bytesTotal, int filesUploaded, long bytesUploaded) {

  /** Receives progress reports; called from upload threads, one call at a time. */
  @FunctionalInterface
  public interface Listener {
    void onProgress(SnapshotProgress progress);

    Listener NONE = p -> {};
  }
}
