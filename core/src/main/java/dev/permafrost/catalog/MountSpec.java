/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.snapshot.ManifestRef;
import java.util.Objects;

/**
 * One snapshot to mount with {@link Catalog#mountAll}: the name to mount it under, the snapshot, how, and the
 * manifest it had when it was last mounted, if known. With a manifest, mounting reads it through the shared cache (no
 * request while the cache holds it, as after a clean restart) and checks that the bytes are that very manifest;
 * without one, it reads the snapshot's current manifest (one request).
 *
 * <p>{@link Catalog#mountSpecs()} gives the specs of what is mounted, to keep (as {@link #toLine() lines}) and mount
 * again after a restart.
 *
 * @param name the name to mount it under
 * @param snapshot the snapshot's name in its repository
 * @param mode how to mount it
 * @param manifest the manifest it had, or null to read its current one
 */
public record MountSpec(String name, String snapshot, MountMode mode, ManifestRef manifest) {
  public MountSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(mode, "mode");
    if (manifest != null && !manifest.snapshot().equals(snapshot)) {
      throw new IllegalArgumentException("mount '" + name + "': the manifest given is of snapshot '" + manifest.snapshot()
          + "', not '" + snapshot + "'");
    }
  }

  /** Snapshot {@code snapshot} under {@code name}, through the shared cache, its current manifest. */
  public static MountSpec of(String name, String snapshot) {
    return new MountSpec(name, snapshot, MountMode.SHARED_CACHE, null);
  }

  /**
   * This spec as one line of tab-separated fields (name, snapshot, mode, and the manifest's blob, length, footer
   * checksum and CRC32C, or nothing), for a file of mounts to read back with {@link #parseLine}. Names never hold a
   * tab: snapshot and index names are letters, digits, '.', '_' and '-'.
   */
  public String toLine() {
    String line = name + '\t' + snapshot + '\t' + mode;
    if (manifest != null) {
      line += '\t' + manifest.blobName() + '\t' + manifest.length() + '\t' + Long.toHexString(manifest.footerChecksum())
          + '\t' + Integer.toHexString(manifest.crc32c());
    }
    return line;
  }

  /**
   * Reads a line written by {@link #toLine()}.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  public static MountSpec parseLine(String line) {
    String[] f = line.split("\t", -1);
    if (f.length != 3 && f.length != 7) {
      throw new IllegalArgumentException("a mount line has 3 or 7 tab-separated fields, got " + f.length + ": '" + line + "'");
    }
    MountMode mode;
    try {
      mode = MountMode.valueOf(f[2]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown mount mode '" + f[2] + "' in '" + line + "'", e);
    }
    if (f.length == 3) {
      return new MountSpec(f[0], f[1], mode, null);
    }
    try {
      ManifestRef ref = new ManifestRef(f[1], f[3], Long.parseLong(f[4]), Long.parseUnsignedLong(f[5], 16),
          Integer.parseUnsignedInt(f[6], 16));
      return new MountSpec(f[0], f[1], mode, ref);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("malformed manifest length or checksum in '" + line + "'", e);
    }
  }
}
