/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import dev.permafrost.blob.BlobStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Manifests over arbitrary bytes (not Lucene files), for testing the read path with files of any content and
 * length: each file is uploaded as a blob and kept in the manifest only where {@code hotBytes} says.
 */
public final class TestManifests {
  private TestManifests() {}

  /** Uploads every file to {@code blobs/<prefix><name>} and returns a manifest for them, with nothing inlined. */
  public static SnapshotManifest upload(BlobStore store, String snapshot, String prefix, Map<String, byte[]> files) throws IOException {
    return upload(store, snapshot, prefix, files, 0);
  }

  /**
   * As {@link #upload(BlobStore, String, String, Map)}, but files up to {@code inlineLimit} bytes are kept whole in
   * the manifest, and other files keep their first and last 16 bytes there.
   */
  public static SnapshotManifest upload(BlobStore store, String snapshot, String prefix, Map<String, byte[]> files, int inlineLimit)
      throws IOException {
    List<FileEntry> entries = new ArrayList<>();
    long total = 0;
    for (Map.Entry<String, byte[]> e : new TreeMap<>(files).entrySet()) {
      byte[] bytes = e.getValue();
      total += bytes.length;
      if (bytes.length <= inlineLimit) {
        entries.add(new FileEntry(e.getKey(), bytes.length, 0, null, bytes, List.of()));
        continue;
      }
      String blob = "blobs/" + prefix + e.getKey();
      store.write(blob, new ByteArrayInputStream(bytes), bytes.length);
      List<FileEntry.HotRange> hot = new ArrayList<>();
      if (inlineLimit > 0 && bytes.length > 64) {
        hot.add(new FileEntry.HotRange(0, java.util.Arrays.copyOf(bytes, 16)));
        hot.add(new FileEntry.HotRange(bytes.length - 16, java.util.Arrays.copyOfRange(bytes, bytes.length - 16, bytes.length)));
      }
      entries.add(new FileEntry(e.getKey(), bytes.length, 0, blob, null, hot));
    }
    String first = entries.isEmpty() ? null : entries.getFirst().name();
    if (first == null) {
      entries.add(new FileEntry("segments_0", 0, 0, null, new byte[0], List.of()));
      first = "segments_0";
    }
    SnapshotInfo info = new SnapshotInfo(snapshot, Instant.now(), "", 0, 0, 0, 0, entries.size(), total, Map.of(), Map.of());
    return new SnapshotManifest(info, first, entries);
  }
}
