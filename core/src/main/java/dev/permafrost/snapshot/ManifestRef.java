/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.util.Objects;
import org.apache.lucene.util.BitUtil;

/**
 * A snapshot's manifest as a blob: enough to read it again and to know the bytes read are that manifest (its
 * length, the checksum of its footer and the CRC32C of all its bytes), in a few dozen bytes of heap. What a mounted
 * index that is not open keeps instead of the manifest itself.
 *
 * @param snapshot the snapshot's name
 * @param blobName the manifest's blob in the repository's store
 * @param length the manifest's length in bytes
 * @param footerChecksum the checksum its footer records (Lucene's CRC32 of the rest)
 * @param crc32c the CRC32C of all its bytes
 */
public record ManifestRef(String snapshot, String blobName, long length, long footerChecksum, int crc32c) {
  public ManifestRef {
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(blobName, "blobName");
  }

  /**
   * The ref of a manifest blob whose bytes are {@code bytes} and end with a Lucene {@code CodecUtil} footer: for a
   * {@link SnapshotSource} whose manifests are another format's checksummed metadata blobs.
   */
  public static ManifestRef of(String snapshot, String blobName, byte[] bytes) {
    if (bytes.length < Long.BYTES) {
      throw new IllegalArgumentException("blob " + blobName + " of " + bytes.length + " bytes has no footer");
    }
    return new ManifestRef(snapshot, blobName, bytes.length,
        (long) BitUtil.VH_BE_LONG.get(bytes, bytes.length - Long.BYTES),
        ChunkTable.crc32c(bytes, 0, bytes.length));
  }
}
